package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/testenv/chromium"
)

// TestTabSnapshotBudget pages a tab's snapshot of the benchmarks' page at 4 KiB, on both engines: every page
// within the budget (its encoded size, measured here), the pages together are a full snapshot's elements exactly
// once and in order, a ref of the last page clicks (the page's own activeElement says so), and find, subtree,
// text-only and the cut marker give what a full snapshot says they should.
func TestTabSnapshotBudget(t *testing.T) {
	for _, eng := range []struct {
		name  string
		start func(testing.TB) *pageEngine
	}{{"chromium", newChromiumEngine}, {"firefox", newFirefoxEngine}} {
		t.Run(eng.name, func(t *testing.T) { tabSnapshotBudget(t, eng.start(t)) })
	}
}

func tabSnapshotBudget(t *testing.T, e *pageEngine) {
	page := chromium.BenchPage()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, page) }))
	defer srv.Close()
	tab := e.newTab(t, srv.URL)
	ctx := context.Background()
	snap := func(o *agentv1.SnapshotOptions) *agentv1.Snapshot {
		t.Helper()
		r, err := e.br.SnapshotTab(ctx, &agentv1.SnapshotTabRequest{Tab: e.tab(tab), Options: o})
		if err != nil {
			t.Fatalf("SnapshotTab %v: %v", o, err)
		}
		return r.GetSnapshot()
	}
	line := func(el *agentv1.Element) string {
		return fmt.Sprintf("%s %s %q %q depth %d parent %s", el.GetRef(), el.GetRole(), el.GetName(), el.GetValue(), el.GetDepth(), el.GetParentRef())
	}
	full := snap(&agentv1.SnapshotOptions{MaxNodes: 20000})
	var want []string
	for _, el := range full.GetElements() {
		want = append(want, line(el))
	}

	var got []string
	var pages []*agentv1.Snapshot
	for s := snap(&agentv1.SnapshotOptions{MaxNodes: 20000, MaxBytes: 4096}); ; {
		pages = append(pages, s)
		if n := proto.Size(s); n > 4096 {
			t.Errorf("page %d is %d bytes encoded, over 4096", len(pages)-1, n)
		}
		if s.GetSnapshotId() != pages[0].GetSnapshotId() || int(s.GetOffset()) != len(got) {
			t.Fatalf("page %d: snapshot %s offset %d, want %s and %d", len(pages)-1, s.GetSnapshotId(), s.GetOffset(), pages[0].GetSnapshotId(), len(got))
		}
		for _, el := range s.GetElements() {
			got = append(got, line(el))
		}
		if s.GetNextCursor() == "" || len(pages) > 1000 {
			break
		}
		s = snap(&agentv1.SnapshotOptions{Cursor: s.GetNextCursor(), MaxBytes: 4096})
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("pages differ from a full snapshot (-full +pages):\n%s", d)
	}
	t.Logf("%d elements in %d pages; full snapshot %d bytes", len(want), len(pages), proto.Size(full))
	last := pages[len(pages)-1]
	var button *agentv1.Element
	for _, el := range last.GetElements() {
		if el.GetRole() == "button" {
			button = el
		}
	}
	if button == nil {
		t.Fatalf("no button on the last page:\n%s", last.GetText())
	}
	if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: e.tab(tab),
		Locator: &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: &agentv1.ElementRef{SnapshotId: last.GetSnapshotId(), Ref: button.GetRef()}}}}}}); err != nil {
		t.Fatalf("page_click by ref %s of the last page: %v", button.GetRef(), err)
	}
	if got := e.evalString(t, tab, "document.activeElement.textContent"); got != button.GetName() {
		t.Errorf("activeElement %q after clicking %q", got, button.GetName())
	}

	t.Run("find", func(t *testing.T) {
		full := snap(&agentv1.SnapshotOptions{MaxNodes: 20000})
		re := regexp.MustCompile(`^Link 3-\d$`)
		var wantLinks, wantButtons []string
		for _, el := range full.GetElements() {
			if el.GetRole() == "link" && re.MatchString(el.GetName()) {
				wantLinks = append(wantLinks, el.GetName())
			}
			if el.GetRole() == "button" {
				wantButtons = append(wantButtons, el.GetName())
			}
		}
		names := func(s *agentv1.Snapshot) []string {
			var out []string
			for _, el := range s.GetElements() {
				out = append(out, el.GetName())
			}
			return out
		}
		s := snap(&agentv1.SnapshotOptions{MaxNodes: 20000, Find: &agentv1.ElementFind{Role: "link", NameRegex: `^Link 3-\d$`}})
		if d := cmp.Diff(wantLinks, names(s)); d != "" || len(wantLinks) != 5 {
			t.Errorf("find links (-want +got):\n%s", d)
		}
		s = snap(&agentv1.SnapshotOptions{MaxNodes: 20000, Find: &agentv1.ElementFind{Role: "BUTTON", Limit: 1000}})
		if d := cmp.Diff(wantButtons, names(s)); d != "" || len(wantButtons) != 87 || !s.GetComplete() {
			t.Errorf("find buttons (complete %v) (-want +got):\n%s", s.GetComplete(), d)
		}
		s = snap(&agentv1.SnapshotOptions{MaxNodes: 20000, Find: &agentv1.ElementFind{Role: "button"}})
		if len(s.GetElements()) != 50 || s.GetComplete() {
			t.Errorf("find buttons with the default limit: %d, complete %v; want 50, incomplete", len(s.GetElements()), s.GetComplete())
		}
		s = snap(&agentv1.SnapshotOptions{MaxNodes: 20000, Find: &agentv1.ElementFind{Name: "field 7", States: []string{"editable"}}})
		if d := cmp.Diff([]string{"Field 7", "Field 70", "Field 71", "Field 72", "Field 73", "Field 74", "Field 75", "Field 76", "Field 77", "Field 78", "Field 79"}, names(s)); d != "" {
			t.Errorf("find fields by name and state (-want +got):\n%s", d)
		}
		s = snap(&agentv1.SnapshotOptions{MaxNodes: 20000, Find: &agentv1.ElementFind{States: []string{"focused"}}})
		if d := cmp.Diff([]string{button.GetName()}, names(s)); d != "" {
			t.Errorf("find the focused element (-want +got):\n%s", d)
		}
		// The one-call observation's focused element is the clicked button, with a ref of its snapshot.
		os, focused, err := e.router.Observe(ctx, e.tab(tab), &agentv1.SnapshotOptions{MaxNodes: 20000, MaxBytes: 4096})
		if e.name == "firefox" && errors.Is(err, errdefs.ErrUnsupportedAction) {
			t.Log("no one-call observation of a Firefox tab yet")
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if focused.GetName() != button.GetName() || focused.GetRef() == "" || proto.Size(os) > 4096 {
			t.Errorf("observed focused %v (snapshot %d bytes), want %q with a ref", focused, proto.Size(os), button.GetName())
		}
		if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: e.tab(tab),
			Locator: &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: &agentv1.ElementRef{SnapshotId: os.GetSnapshotId(), Ref: focused.GetRef()}}}}}}); err != nil {
			t.Errorf("page_click by the focused element's ref %s (past the first page): %v", focused.GetRef(), err)
		}
	})

	t.Run("subtree", func(t *testing.T) {
		full := snap(&agentv1.SnapshotOptions{MaxNodes: 20000})
		var root *agentv1.Element
		for _, el := range full.GetElements() {
			if el.GetRole() == "list" && root == nil && strings.Contains(full.GetText(), "Link 5-0") {
				root = el
			}
		}
		if root == nil {
			t.Fatal("no list")
		}
		var want []string
		in := map[string]bool{root.GetRef(): true}
		for _, el := range full.GetElements() {
			if el == root || in[el.GetParentRef()] {
				in[el.GetRef()] = true
				want = append(want, fmt.Sprintf("%s %q %d", el.GetRole(), el.GetName(), el.GetDepth()-root.GetDepth()))
			}
		}
		s := snap(&agentv1.SnapshotOptions{MaxNodes: 20000, Subtree: &agentv1.ElementRef{SnapshotId: full.GetSnapshotId(), Ref: root.GetRef()}})
		var got []string
		for _, el := range s.GetElements() {
			got = append(got, fmt.Sprintf("%s %q %d", el.GetRole(), el.GetName(), el.GetDepth()))
		}
		if d := cmp.Diff(want, got); d != "" || len(want) < 10 {
			t.Errorf("subtree of %s (-full's descendants +subtree):\n%s", root.GetRef(), d)
		}
	})

	t.Run("text_only and cut", func(t *testing.T) {
		s := snap(&agentv1.SnapshotOptions{MaxNodes: 20000, MaxBytes: 4096, TextOnly: true, MaxFieldBytes: 16})
		if len(s.GetElements()) != 0 || s.GetText() == "" || proto.Size(s) > 4096 {
			t.Errorf("text-only page: %d elements, %d bytes of text, %d encoded", len(s.GetElements()), len(s.GetText()), proto.Size(s))
		}
		if !strings.Contains(s.GetText(), `"Paragraph 0 with…[+12 bytes]"`) {
			t.Errorf("no cut paragraph in the text:\n%s", s.GetText())
		}
	})
}
