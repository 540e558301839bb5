package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// TestNavigateIgnoresEarlierLoad: the load event of the document a tab showed before a navigate (its image
// finishing while the next document's request is on its way) does not end the navigate: it returns once the
// new document loaded, as the page's own readyState, read with the test's Runtime.evaluate, says.
func TestNavigateIgnoresEarlierLoad(t *testing.T) {
	lb := startBrowser(t)
	release := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/first":
			fmt.Fprint(w, "<!doctype html><title>First</title><img src=/first.png>")
		case "/first.png":
			// The first document's load event waits for this image, held until the second is asked for.
			select {
			case <-release:
			case <-r.Context().Done():
			case <-time.After(20 * time.Second):
			}
			w.WriteHeader(http.StatusNotFound)
		case "/second":
			once.Do(func() { close(release) })
			// Time for the first document's load event to reach the agent before this document commits.
			time.Sleep(400 * time.Millisecond)
			fmt.Fprint(w, "<!doctype html><title>Second</title><img src=/second.png>")
		case "/second.png":
			time.Sleep(800 * time.Millisecond)
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	tr := lb.newTab(t, ctx, srv.URL+"/first")
	tb, err := lb.b.resolveTab(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	// The first document shows and is still loading (its image is held).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		s := readString(t, ctx, tb, "document.title + ' ' + document.readyState")
		if s == "First interactive" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("first document: %q, want it interactive, still loading its image", s)
		}
	}
	start := time.Now()
	if _, err := lb.act(ctx, &agentv1.ActRequest{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: tr, Url: srv.URL + "/second", TimeoutMs: 15000}}}); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	took := time.Since(start)
	if s := readString(t, ctx, tb, "document.title + ' ' + document.readyState"); s != "Second complete" {
		t.Errorf("after navigate (%v): the page says %q, want the second document loaded (\"Second complete\")", took, s)
	}
}
