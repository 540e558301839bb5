package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/chromedp/remote"

	"glovebox.dev/guest/internal/bidi"
	"glovebox.dev/guest/internal/browser"
	"glovebox.dev/guest/internal/engines"
	"glovebox.dev/guest/internal/x11/screen"
	"glovebox.dev/guest/internal/x11/windows"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv/chromium"
	"glovebox.dev/shared/testenv/desktop"
	"glovebox.dev/shared/testenv/firefox"
)

// pageEngine is one real browser engine on its own test desktop behind the agent's services, with the engine
// router in front (as the agent has it) and a way of reading the page that is not the code under test.
type pageEngine struct {
	name string
	id   string
	br   agentv1.BrowserServiceClient
	act  agentv1.ActServiceClient
	// observe is the one-call observation, over the desktop's screen and windows backends too.
	observe agentv1.ObserveServiceClient
	srv     *httptest.Server
	// eval evaluates an expression in the page's own realm, not through the page actions, and answers its JSON:
	// Chromium over the test's own DevTools connection to the page; Firefox (one BiDi session per browser) with a
	// bare script.evaluate on the backend's session.
	eval func(t testing.TB, tab, expr string) string
	// closeOutside closes a tab behind the agent's queue (DevTools HTTP; Firefox: the backend's close_tab
	// directly, not through the serialized Act), as a user closing it would.
	closeOutside func(tab string)
	// router is the engine router the services call (release_all's page part is its ReleaseOwner).
	router *engines.Router
	// port is the browser's DevTools or remote agent port.
	port int
	// yield lets another client drive the browser (benchmarks' peers).
	yield func()
	// crash crashes a tab's page for real, outside the agent: Chromium's Page.crash on the test's own DevTools
	// connection to the page; Firefox's content process of the tab killed (firefox.CrashTab).
	crash func(t testing.TB, tab string)
}

// unreachable are ports no test browser listens on, for the engine a pageEngine does not test.
var unreachable = []int{1}

// newChromiumEngine starts Chromium and the agent's services over the router.
func newChromiumEngine(t testing.TB) *pageEngine {
	t.Helper()
	chromium.Need(t)
	d := desktop.Start(t, desktop.Options{})
	port := chromium.Start(t, d)
	// Discovery on command lines is off (an empty proc): the tests here never reach another test's browser.
	c := browser.New(browser.Config{Ports: []int{port}, Display: d.Display, ProfileDir: t.TempDir(), Executable: "/nonexistent", Proc: t.TempDir()})
	f := bidi.New(bidi.Config{Ports: unreachable, Executable: "/nonexistent", Proc: t.TempDir()})
	t.Cleanup(func() { c.Close(); f.Close() })
	ce := &chromeEnv{port: port, pages: map[string]*remote.Conn{}}
	t.Cleanup(func() {
		for _, c := range ce.pages {
			c.Close()
		}
	})
	e := newPageEngine(t, d, "chromium", fmt.Sprintf("chrome-%d", port), port, engines.New(c, f))
	e.yield = func() {}
	e.eval = ce.eval
	e.crash = func(t testing.TB, tab string) {
		ce.eval(t, tab, "0") // the test's own connection to the page
		ce.mu.Lock()
		c := ce.pages[tab]
		ce.mu.Unlock()
		// Page.crash never answers: the renderer is gone.
		if err := c.Write(context.Background(), &cdproto.Message{ID: 2, Method: "Page.crash"}); err != nil {
			t.Fatalf("Page.crash: %v", err)
		}
	}
	e.closeOutside = func(tab string) {
		if resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/json/close/%s", port, tab)); err == nil {
			resp.Body.Close()
		}
	}
	return e
}

// newFirefoxEngine starts Firefox ESR and the agent's services over the router.
func newFirefoxEngine(t testing.TB) *pageEngine {
	t.Helper()
	firefox.Need(t)
	d := desktop.Start(t, desktop.Options{})
	port := firefox.Start(t, d)
	c := browser.New(browser.Config{Ports: unreachable, Executable: "/nonexistent", Proc: t.TempDir()})
	f := bidi.New(bidi.Config{Ports: []int{port}, Display: d.Display, ProfileDir: t.TempDir(), Executable: "/nonexistent", Proc: t.TempDir()})
	t.Cleanup(func() { c.Close(); f.Close() })
	e := newPageEngine(t, d, "firefox", fmt.Sprintf("firefox-%d", port), port, engines.New(c, f))
	// Firefox takes one BiDi session: ours ends so a peer can open its own; the backend reconnects when next asked.
	e.yield = func() { f.Close() }
	// The remote agent listens a few seconds before it takes sessions.
	deadline := time.Now().Add(45 * time.Second)
	for {
		if _, err := e.br.ListTabs(context.Background(), &agentv1.ListTabsRequest{BrowserId: e.id}); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("firefox on port %d never took our session: %v", port, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	e.eval = func(t testing.TB, tab, expr string) string {
		t.Helper()
		v, err := f.Evaluate(context.Background(), &agentv1.TabRef{BrowserId: e.id, TabId: tab}, expr)
		if err != nil {
			t.Fatalf("evaluate %s: %v", expr, err)
		}
		return string(v)
	}
	e.crash = func(t testing.TB, tab string) {
		firefox.CrashTab(t, port, func() { e.eval(t, tab, "(window.__big = new Uint8Array(200 << 20).fill(7), 0)") })
	}
	e.closeOutside = func(tab string) {
		f.Act(context.Background(), &agentv1.ActRequest{Owner: "outside", Action: &agentv1.ActRequest_CloseTab{CloseTab: &agentv1.CloseTab{
			Tab: &agentv1.TabRef{BrowserId: e.id, TabId: tab}}}}, &agentv1.ActResponse{})
	}
	return e
}

func newPageEngine(t testing.TB, d *desktop.Desktop, name, id string, port int, r *engines.Router) *pageEngine {
	srv := httptest.NewServer(http.HandlerFunc(servePage))
	t.Cleanup(srv.Close)
	win, err := windows.New(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { win.Close() })
	scr, err := screen.New(d.Display, win, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { scr.Close() })
	conn := dialServices(t, New(Options{Generation: 1}, Backends{Browser: AdaptBrowser(r), Screen: AdaptScreen(scr), Windows: win}))
	return &pageEngine{router: r, name: name, id: id, port: port, br: agentv1.NewBrowserServiceClient(conn), act: agentv1.NewActServiceClient(conn),
		observe: agentv1.NewObserveServiceClient(conn), srv: srv}
}

func (e *pageEngine) url(path string) string { return e.srv.URL + path }

func (e *pageEngine) tab(id string) *agentv1.TabRef {
	return &agentv1.TabRef{BrowserId: e.id, TabId: id}
}

// do sends an action as owner "test".
func (e *pageEngine) do(t testing.TB, r *agentv1.ActRequest) (*agentv1.ActResponse, error) {
	t.Helper()
	if r.Owner == "" {
		r.Owner = "test"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return e.act.Act(ctx, r)
}

// newTab opens a tab on url through the agent and returns its id.
func (e *pageEngine) newTab(t testing.TB, url string) string {
	t.Helper()
	resp, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_NewTab{NewTab: &agentv1.NewTab{BrowserId: e.id}}})
	if err != nil {
		t.Fatalf("new_tab: %v", err)
	}
	id := resp.GetTab().GetTabId()
	if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: e.tab(id), Url: url}}}); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	return id
}

func (e *pageEngine) snapshot(t testing.TB, tab string) *agentv1.Snapshot {
	t.Helper()
	resp, err := e.br.SnapshotTab(context.Background(), &agentv1.SnapshotTabRequest{Tab: e.tab(tab)})
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	return resp.GetSnapshot()
}

func (e *pageEngine) evalString(t testing.TB, tab, expr string) string {
	t.Helper()
	var s string
	if err := json.Unmarshal([]byte(e.eval(t, tab, expr)), &s); err != nil {
		t.Fatalf("eval %s: not a string: %v", expr, err)
	}
	return s
}

func (e *pageEngine) pageLog(t testing.TB, tab string) []string {
	t.Helper()
	var out []string
	json.Unmarshal([]byte(e.eval(t, tab, "window.__log")), &out)
	return out
}

func (e *pageEngine) clearLog(t testing.TB, tab string) { e.eval(t, tab, "window.__log = []") }

func sel(s string) *agentv1.Locator {
	return &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: s}}
}

func byRef(r *agentv1.ElementRef) *agentv1.Locator {
	return &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: r}}
}
