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

// TestActionDeadlines: navigate to a server that never answers and wait_for on a page whose script never
// yields end at their timeout_ms with TIMEOUT; they do not hang on the browser's reply, nor on releasing the
// keys held on the tab after the failure.
func TestActionDeadlines(t *testing.T) {
	lb := startBrowser(t)
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/hang":
			select {
			case <-block:
			case <-r.Context().Done():
			}
		case "/busy":
			fmt.Fprint(w, "<!doctype html><title>Busy</title><script>setTimeout(() => { for (;;) {} }, 2000)</script>")
		default:
			fmt.Fprint(w, "<!doctype html><title>Page</title><p>hi</p>")
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(block) })
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	act := func(r *agentv1.ActRequest) (*agentv1.ActResponse, error) { return lb.act(ctx, r) }
	newTab := func(url string) *agentv1.TabRef { return lb.newTab(t, ctx, url) }
	nav := newTab(srv.URL)
	start := time.Now()
	_, err := act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: nav, Url: srv.URL + "/hang", TimeoutMs: 2000}}})
	if took := time.Since(start); !errors.Is(err, errdefs.ErrTimeout) || took > 5*time.Second {
		t.Errorf("navigate to a server that never answers: %v after %v, want TIMEOUT after 2s", err, took)
	}

	busy := newTab(srv.URL + "/busy")
	// Attach while the page still answers; its script then never yields.
	if _, err := lb.b.SnapshotTab(ctx, &agentv1.SnapshotTabRequest{Tab: busy}); err != nil {
		t.Fatal(err)
	}
	// A key held there: the failed wait_for releases it, and that release must not hang either.
	if _, err := act(&agentv1.ActRequest{Action: &agentv1.ActRequest_PageKeyDown{PageKeyDown: &agentv1.PageKeyDown{Tab: busy, Key: "Shift"}}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2500 * time.Millisecond)
	start = time.Now()
	_, err = act(&agentv1.ActRequest{Action: &agentv1.ActRequest_WaitFor{WaitFor: &agentv1.WaitFor{Tab: busy, Selector: "#never", TimeoutMs: 1500}}})
	if took := time.Since(start); !errors.Is(err, errdefs.ErrTimeout) || took > 5*time.Second {
		t.Errorf("wait_for on a page that never yields: %v after %v, want TIMEOUT after 1.5s", err, took)
	}
}
