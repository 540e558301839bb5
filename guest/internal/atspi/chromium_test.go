package atspi

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv"
)

// chromiumArgs are the switches of the Chromium tests: its accessibility tree on, no sandbox (tests run as
// root), no GPU, no network beyond the test's page, a fresh profile.
func chromiumArgs(profile, url string) []string {
	return []string{"--force-renderer-accessibility", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
		"--user-data-dir=" + profile, "--window-size=1200,760", url}
}

// TestChromiumSnapshot snapshots Chromium's AT-SPI tree of a page served here and finds the page's elements.
func TestChromiumSnapshot(t *testing.T) {
	testenv.NeedCommands(t, "chromium")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Glovebox page</title><h1>Inventory</h1>
<button onclick="document.title='clicked'">Order now</button><a href="#x">Details link</a>
<input aria-label="Quantity" value="3"><ul>`)
		for i := range 20 {
			fmt.Fprintf(w, "<li>Item %d</li>", i)
		}
		fmt.Fprint(w, "</ul>")
	}))
	t.Cleanup(srv.Close)
	e := newEnv(t, Options{})
	c := e.startApp(t, "chromium", chromiumArgs(t.TempDir(), srv.URL)...)
	t.Logf("url %s", srv.URL)
	e.waitOnBus(t, c.pid)
	ctx := context.Background()
	var s *agentv1.Snapshot
	deadline := time.Now().Add(30 * time.Second)
	for {
		// Chromium's browser process reconnects to the bus while it starts: retry until the page shows.
		r, err := e.b.SnapshotApp(ctx, &agentv1.SnapshotAppRequest{AppId: AppID(c.pid)})
		if err == nil {
			s = r.Snapshot
			if strings.Contains(s.Text, `"Order now"`) && strings.Contains(s.Text, "Item 19") {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page never showed in the tree (%v):\n%s", err, s.GetText())
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !s.Complete {
		t.Errorf("incomplete: %s", s.IncompleteReason)
	}
	button := find(t, s, "push button", "Order now")
	if button.Bounds.GetWidth() <= 0 || len(button.Actions) == 0 {
		t.Errorf("button %v", button)
	}
	find(t, s, "heading", "Inventory")
	find(t, s, "link", "Details link")
	entry := find(t, s, "entry", "Quantity")
	if entry.Text != "3" {
		t.Errorf("entry text %q, want 3", entry.Text)
	}
	// The structure: which element hangs under which. Most of Chromium's page nodes are missing from its cache,
	// so the walk links them by document order and child counts; a wrong guess moves elements here.
	doc := find(t, s, "document web", "Glovebox page")
	list := find(t, s, "list", "")
	want := map[string][]string{
		doc.Ref:  {`heading "Inventory"`, `push button "Order now"`, `link "Details link"`, `entry "Quantity"`, "list " + strconv.Quote(list.Name)},
		list.Ref: nil,
	}
	for i := range 20 {
		want[list.Ref] = append(want[list.Ref], fmt.Sprintf(`list item "" text "• Item %d"`, i))
	}
	got := map[string][]string{}
	for _, el := range s.Elements {
		switch el.ParentRef {
		case doc.Ref:
			got[el.ParentRef] = append(got[el.ParentRef], el.Role+" "+strconv.Quote(el.Name))
		case list.Ref:
			got[el.ParentRef] = append(got[el.ParentRef], el.Role+" "+strconv.Quote(el.Name)+" text "+strconv.Quote(el.Text))
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("children of the document and the list (-want +got):\n%s", d)
	}
	for _, el := range s.Elements {
		if el.ParentRef == list.Ref {
			var kids []string
			for _, k := range s.Elements {
				if k.ParentRef == el.Ref {
					kids = append(kids, k.Role+" "+strconv.Quote(k.Name))
				}
			}
			if d := cmp.Diff([]string{`static "• "`, `static ` + strconv.Quote(strings.TrimPrefix(el.Text, "• "))}, kids); d != "" {
				t.Errorf("children of %s %q (-want +got):\n%s", el.Ref, el.Text, d)
			}
		}
	}
	t.Logf("%d elements in %d us", len(s.Elements), s.TookUs)
}
