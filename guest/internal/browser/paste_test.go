package browser

import (
	"context"
	"strings"
	"testing"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

const pastePage = `<!doctype html><title>Paste</title>
<input id="a" aria-label="A" autofocus>
<div id="ce" contenteditable="true" aria-label="E"><p id="p">para</p>loose</div>`

// TestPasteIntoEditableChild pastes with a locator naming a part of a contenteditable (a text run's ref, a
// paragraph inside it) while a field elsewhere has the focus: the text goes into the contenteditable the
// locator names, never into the focused field.
func TestPasteIntoEditableChild(t *testing.T) {
	lb := startBrowser(t)
	srv := serveHTML(t, pastePage)
	ctx := context.Background()
	act := func(r *agentv1.ActRequest) (*agentv1.ActResponse, error) { return lb.act(ctx, r) }
	tr := lb.newTab(t, ctx, "")
	tb, err := lb.b.resolveTab(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	read := func(expr string) string { t.Helper(); return readString(t, ctx, tb, expr) }
	for _, c := range []struct {
		name string
		loc  func(s *agentv1.Snapshot) *agentv1.Locator
	}{
		{"text run ref", func(s *agentv1.Snapshot) *agentv1.Locator {
			for _, el := range s.GetElements() {
				if el.GetRole() == "text" && el.GetName() == "loose" {
					return &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: &agentv1.ElementRef{SnapshotId: s.GetSnapshotId(), Ref: el.GetRef()}}}
				}
			}
			t.Fatalf("no text run in %s", s.GetText())
			return nil
		}},
		{"paragraph selector", func(*agentv1.Snapshot) *agentv1.Locator {
			return &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: "#p"}}
		}},
	} {
		if _, err := act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: tr, Url: srv.URL}}}); err != nil {
			t.Fatal(err)
		}
		read("document.getElementById('a').focus(), ''")
		snap, err := lb.b.SnapshotTab(ctx, &agentv1.SnapshotTabRequest{Tab: tr})
		if err != nil {
			t.Fatal(err)
		}
		_, err = act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Paste{Paste: &agentv1.Paste{Tab: tr, Locator: c.loc(snap.GetSnapshot()), Text: "PASTED"}}})
		if got := read("document.getElementById('a').value"); got != "" {
			t.Errorf("%s: the focused field elsewhere got %q (err %v)", c.name, got, err)
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := read("document.getElementById('ce').innerText"); !strings.Contains(got, "PASTED") {
			t.Errorf("%s: the contenteditable has %q", c.name, got)
		}
	}
}
