package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/cdproto/runtime"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv/chromium"
	"glovebox.dev/shared/testenv/desktop"
)

// liveBrowser is a Backend on Debian's Chromium under its own Xvfb, for the package's tests.
type liveBrowser struct {
	b    *Backend
	id   string // the browser id, chrome-<port>
	port int    // the DevTools port
}

// startBrowser starts a desktop and Chromium and a Backend on it; all are stopped when the test ends.
func startBrowser(t *testing.T) *liveBrowser {
	t.Helper()
	chromium.Need(t)
	d := desktop.Start(t, desktop.Options{})
	port := chromium.Start(t, d)
	b := New(Config{Ports: []int{port}, Display: d.Display, ProfileDir: t.TempDir(), Executable: "/nonexistent"})
	t.Cleanup(func() { b.Close() })
	return &liveBrowser{b: b, id: fmt.Sprintf("chrome-%d", port), port: port}
}

// act runs r as owner "test".
func (lb *liveBrowser) act(ctx context.Context, r *agentv1.ActRequest) (*agentv1.ActResponse, error) {
	r.Owner = "test"
	resp := &agentv1.ActResponse{}
	return resp, lb.b.Act(ctx, r, resp)
}

// newTab opens a tab on url (empty: a blank page) and returns its ref.
func (lb *liveBrowser) newTab(t *testing.T, ctx context.Context, url string) *agentv1.TabRef {
	t.Helper()
	resp, err := lb.act(ctx, &agentv1.ActRequest{Action: &agentv1.ActRequest_NewTab{NewTab: &agentv1.NewTab{BrowserId: lb.id, Url: url}}})
	if err != nil {
		t.Fatal(err)
	}
	return &agentv1.TabRef{BrowserId: lb.id, TabId: resp.GetTab().GetTabId()}
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

// readString evaluates expr in tb's page with the test's own Runtime.evaluate, not through the code under
// test, and returns its value, which must be a string.
func readString(t *testing.T, ctx context.Context, tb *tab, expr string) string {
	t.Helper()
	var res runtime.EvaluateResult
	if err := tb.s.Call(ctx, "Runtime.evaluate", runtime.EvaluateParams{Expression: expr, ReturnByValue: ptr(true)}, &res); err != nil || res.Result == nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	var v string
	if err := json.Unmarshal(res.Result.Value, &v); err != nil {
		t.Fatalf("evaluate %s: %s is not a string", expr, res.Result.Value)
	}
	return v
}
