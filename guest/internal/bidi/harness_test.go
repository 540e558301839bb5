package bidi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv/desktop"
	"glovebox.dev/shared/testenv/firefox"
)

// liveFirefox is a Backend on Debian's Firefox ESR under its own Xvfb, for the package's tests.
type liveFirefox struct {
	b    *Backend
	id   string // firefox-<port>
	port int
}

// startFirefox starts a desktop and Firefox and a Backend on it; all are stopped when the test ends.
func startFirefox(t *testing.T) *liveFirefox {
	t.Helper()
	firefox.Need(t)
	d := desktop.Start(t, desktop.Options{})
	port := firefox.Start(t, d)
	// An empty proc: no discovery on command lines, so a test never reaches another test's Firefox.
	b := New(Config{Ports: []int{port}, Display: d.Display, ProfileDir: t.TempDir(), Executable: "/nonexistent", Proc: t.TempDir()})
	t.Cleanup(func() { b.Close() })
	lf := &liveFirefox{b: b, id: fmt.Sprintf("firefox-%d", port), port: port}
	// The remote agent listens before it takes sessions: wait for ours (bounded by the start timeout).
	if _, err := b.browser(context.Background(), port, false); err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		defer cancel()
		for ctx.Err() == nil {
			if _, err = b.browser(ctx, port, false); err == nil {
				break
			}
		}
		if err != nil {
			t.Fatalf("no bidi session on firefox port %d: %v", port, err)
		}
	}
	return lf
}

// act runs r as owner "test".
func (lf *liveFirefox) act(ctx context.Context, r *agentv1.ActRequest) (*agentv1.ActResponse, error) {
	r.Owner = "test"
	resp := &agentv1.ActResponse{}
	return resp, lf.b.Act(ctx, r, resp)
}

// newTab opens a tab and navigates it to url (empty: a blank page), returning its ref.
func (lf *liveFirefox) newTab(t *testing.T, ctx context.Context, url string) *agentv1.TabRef {
	t.Helper()
	resp, err := lf.act(ctx, &agentv1.ActRequest{Action: &agentv1.ActRequest_NewTab{NewTab: &agentv1.NewTab{BrowserId: lf.id}}})
	if err != nil {
		t.Fatal(err)
	}
	tr := &agentv1.TabRef{BrowserId: lf.id, TabId: resp.GetTab().GetTabId()}
	if url != "" {
		if _, err := lf.act(ctx, &agentv1.ActRequest{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: tr, Url: url}}}); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

// serveHTML serves page on every path of a loopback server until the test ends.
func serveHTML(t *testing.T, page string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// read evaluates expr in the page's own realm with a bare script.evaluate of the test's (none of the page-action
// code) and returns the JSON of its value.
func (lf *liveFirefox) read(t *testing.T, ctx context.Context, tr *agentv1.TabRef, expr string) string {
	t.Helper()
	v, err := lf.b.Evaluate(ctx, tr, expr)
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return string(v)
}

// readString is read for an expression whose value is a string.
func (lf *liveFirefox) readString(t *testing.T, ctx context.Context, tr *agentv1.TabRef, expr string) string {
	t.Helper()
	var s string
	if err := json.Unmarshal([]byte(lf.read(t, ctx, tr, expr)), &s); err != nil {
		t.Fatalf("evaluate %s: not a string", expr)
	}
	return s
}
