package atspi

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

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
	t.Logf("%d elements in %d us", len(s.Elements), s.TookUs)
}
