package browser

import (
	"context"
	"errors"
	"testing"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

const fillPage = `<!doctype html><title>Fill</title>
<input id="a" aria-label="A" value="old a"><textarea id="t" aria-label="T">old t</textarea>
<div id="ce" contenteditable="true" role="textbox" aria-label="E">old e</div><button id="b">B</button>
<input class="two"><input class="two"><input id="m" type="email" aria-label="M">
<input id="up" aria-label="Up" value="abc" oninput="this.value = this.value.toUpperCase()">
<script>window.__log=[]; for (const id of ['a','t','ce']) document.getElementById(id).addEventListener('input', e => __log.push(id + ' ' + e.inputType + ' ' + e.isTrusted));</script>`

// TestFillLocators fills by refs (the first use of a ref locates and focuses in one round trip, a later one
// reuses the page object) and by selectors, into inputs, textareas and contenteditable, and checks the page's
// own state and events through an evaluate of the test's; refusals keep their classes.
func TestFillLocators(t *testing.T) {
	lb := startBrowser(t)
	srv := serveHTML(t, fillPage)
	ctx := context.Background()
	act := func(r *agentv1.ActRequest) (*agentv1.ActResponse, error) { return lb.act(ctx, r) }
	tr := lb.newTab(t, ctx, "")
	if _, err := act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: tr, Url: srv.URL}}}); err != nil {
		t.Fatal(err)
	}
	// The test reads the page with evaluates of its own, not through fill's code.
	tb, err := lb.b.resolveTab(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	read := func(expr string) string { t.Helper(); return readString(t, ctx, tb, expr) }
	snap, err := lb.b.SnapshotTab(ctx, &agentv1.SnapshotTabRequest{Tab: tr})
	if err != nil {
		t.Fatal(err)
	}
	refOf := func(name string) *agentv1.Locator {
		for _, el := range snap.GetSnapshot().GetElements() {
			if el.GetName() == name {
				return &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: &agentv1.ElementRef{SnapshotId: snap.GetSnapshot().GetSnapshotId(), Ref: el.GetRef()}}}
			}
		}
		t.Fatalf("no %q in the snapshot", name)
		return nil
	}
	sel := func(s string) *agentv1.Locator { return &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: s}} }
	fill := func(l *agentv1.Locator, text string) (*agentv1.ActResponse, error) {
		return act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Fill{Fill: &agentv1.Fill{Tab: tr, Locator: l, Text: text}}})
	}
	for _, c := range []struct {
		name string
		loc  *agentv1.Locator
		text string
		expr string
	}{
		{"ref first use", refOf("A"), "中文 😀 one", "document.getElementById('a').value"},
		{"ref again", refOf("A"), "two", "document.getElementById('a').value"},
		{"textarea ref", refOf("T"), "line", "document.getElementById('t').value"},
		{"contenteditable ref", refOf("E"), "édité 👍", "document.getElementById('ce').innerText"},
		{"contenteditable selector", sel("#ce"), "again", "document.getElementById('ce').innerText"},
		{"input selector", sel("#a"), "by selector", "document.getElementById('a').value"},
		{"email, no selection API", refOf("M"), "a@example.org", "document.getElementById('m').value"},
	} {
		resp, err := fill(c.loc, c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := read(c.expr); got != c.text {
			t.Errorf("%s: page has %q, want %q", c.name, got, c.text)
		}
		if resp.GetValue() != c.text || resp.GetEffect() != agentv1.Effect_EFFECT_VERIFIED {
			t.Errorf("%s: answered %q %v", c.name, resp.GetValue(), resp.GetEffect())
		}
	}
	if got := read("__log.join('|')"); got != "a insertText true|a insertText true|t insertText true|ce insertText true|ce insertText true|a insertText true" {
		t.Errorf("page saw input events %q", got)
	}
	for _, c := range []struct {
		name string
		loc  *agentv1.Locator
		want error
	}{
		{"button ref", refOf("B"), errdefs.ErrUnsupportedAction},
		{"button selector", sel("#b"), errdefs.ErrUnsupportedAction},
		{"no match", sel("#nothing"), errdefs.ErrNotFound},
		{"two matches", sel(".two"), errdefs.ErrTargetAmbiguous},
		{"bad selector", sel("[["), errdefs.ErrInvalidArgument},
	} {
		if _, err := fill(c.loc, "x"); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	// The page rewrites what is typed: filling the text the field already had is still read back after the
	// insert and is a mismatch.
	// It is VALUE_MISMATCH (not INTERNAL), and what was read back is in untrusted metadata.
	if _, err := fill(refOf("Up"), "abc"); !errors.Is(err, errdefs.ErrValueMismatch) || errgrpc.Metadata(err)["untrusted_read_back"] != "ABC" {
		t.Errorf("fill rewritten by the page: %v (metadata %v), want VALUE_MISMATCH with untrusted_read_back ABC", err, errgrpc.Metadata(err))
	}
	if got := read("document.getElementById('up').value"); got != "ABC" {
		t.Errorf("the page's field has %q", got)
	}
	// A ref of the page before a reload is refused, never filled into the new document.
	stale := refOf("A")
	if _, err := act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Reload{Reload: &agentv1.Reload{Tab: tr}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := fill(stale, "x"); !errors.Is(err, errdefs.ErrStaleRef) {
		t.Errorf("ref after reload: %v, want stale", err)
	}
	if got := read("document.getElementById('a').value"); got != "old a" {
		t.Errorf("after reload the field has %q", got)
	}
}
