package browser

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// TestTabClosedDuringAction closes a tab from outside (DevTools HTTP, as a user closing it would) while an
// action waits on it: the action fails at once with TARGET_GONE, not at its deadline and not as INTERNAL, and
// the next action on another tab works.
func TestTabClosedDuringAction(t *testing.T) {
	lb := startBrowser(t)
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/slow" {
			// The document never finishes: its load event never fires.
			fmt.Fprint(w, "<!doctype html><title>Slow</title><img src=/hang>")
			return
		}
		if r.URL.Path == "/hang" {
			select {
			case <-block:
			case <-r.Context().Done():
			}
			return
		}
		fmt.Fprint(w, "<!doctype html><title>Page</title><p>hi</p>")
	}))
	t.Cleanup(srv.Close)
	ctx := context.Background()
	act := func(r *agentv1.ActRequest) (*agentv1.ActResponse, error) { return lb.act(ctx, r) }
	newTab := func() *agentv1.TabRef { return lb.newTab(t, ctx, srv.URL) }
	closeLater := func(tr *agentv1.TabRef) {
		go func() {
			time.Sleep(700 * time.Millisecond)
			resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/json/close/%s", lb.port, tr.GetTabId()))
			if err == nil {
				resp.Body.Close()
			}
		}()
	}
	other := newTab()
	for _, c := range []struct {
		name string
		r    func(tr *agentv1.TabRef) *agentv1.ActRequest
	}{
		{"wait_for", func(tr *agentv1.TabRef) *agentv1.ActRequest {
			return &agentv1.ActRequest{Action: &agentv1.ActRequest_WaitFor{WaitFor: &agentv1.WaitFor{Tab: tr, Selector: "#never", TimeoutMs: 15000}}}
		}},
		{"navigate", func(tr *agentv1.TabRef) *agentv1.ActRequest {
			return &agentv1.ActRequest{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: tr, Url: srv.URL + "/slow", TimeoutMs: 15000}}}
		}},
	} {
		tr := newTab()
		// Attach first: the action in flight is the one the close interrupts.
		if _, err := lb.b.SnapshotTab(ctx, &agentv1.SnapshotTabRequest{Tab: tr}); err != nil {
			t.Fatal(err)
		}
		closeLater(tr)
		start := time.Now()
		_, err := act(c.r(tr))
		if !errors.Is(err, errdefs.ErrTargetGone) {
			t.Errorf("%s on a tab closed meanwhile: %v, want TARGET_GONE", c.name, err)
		}
		if took := time.Since(start); took > 8*time.Second {
			t.Errorf("%s on a tab closed meanwhile took %v", c.name, took)
		}
		if _, err := act(&agentv1.ActRequest{Action: &agentv1.ActRequest_WaitFor{WaitFor: &agentv1.WaitFor{Tab: other, Selector: "p", TimeoutMs: 5000}}}); err != nil {
			t.Errorf("after %s: an action on another tab: %v", c.name, err)
		}
	}
}
