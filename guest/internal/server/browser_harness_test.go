package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/chromedp/remote"

	"glovebox.dev/guest/internal/browser"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv/chromium"
	"glovebox.dev/shared/testenv/desktop"
)

// chromeEnv is a real Chromium on a test desktop, pages served on 127.0.0.1, and the agent's services over
// gRPC with the real browser backend.
type chromeEnv struct {
	d       *desktop.Desktop
	port    int
	srv     *httptest.Server
	backend *browser.Backend
	br      agentv1.BrowserServiceClient
	act     agentv1.ActServiceClient
	id      string

	mu    sync.Mutex
	pages map[string]*remote.Conn
}

// newChromeEnv starts everything; call it once per top-level test and share it across subtests.
func newChromeEnv(t testing.TB) *chromeEnv {
	t.Helper()
	chromium.Need(t)
	d := desktop.Start(t, desktop.Options{})
	port := chromium.Start(t, d)
	srv := httptest.NewServer(http.HandlerFunc(servePage))
	t.Cleanup(srv.Close)
	b := browser.New(browser.Config{Ports: []int{port}, Display: d.Display, ProfileDir: t.TempDir(), Executable: "/nonexistent"})
	t.Cleanup(func() { b.Close() })
	conn := dialServices(t, New(Options{Generation: 1}, Backends{Browser: AdaptBrowser(b)}))
	e := &chromeEnv{d: d, port: port, srv: srv, backend: b, br: agentv1.NewBrowserServiceClient(conn),
		act: agentv1.NewActServiceClient(conn), id: fmt.Sprintf("chrome-%d", port), pages: map[string]*remote.Conn{}}
	t.Cleanup(func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, c := range e.pages {
			c.Close()
		}
	})
	return e
}

// url is a page of the test server.
func (e *chromeEnv) url(path string) string { return e.srv.URL + path }

// newTab opens a tab on url through the agent and returns its id.
func (e *chromeEnv) newTab(t testing.TB, url string) string {
	t.Helper()
	resp, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_NewTab{NewTab: &agentv1.NewTab{BrowserId: e.id}}})
	if err != nil {
		t.Fatalf("new_tab: %v", err)
	}
	id := resp.GetTab().GetTabId()
	if url != "" {
		if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: e.tab(id), Url: url}}}); err != nil {
			t.Fatalf("navigate: %v", err)
		}
	}
	return id
}

func (e *chromeEnv) tab(id string) *agentv1.TabRef {
	return &agentv1.TabRef{BrowserId: e.id, TabId: id}
}

// do sends an action as owner "test".
func (e *chromeEnv) do(t testing.TB, r *agentv1.ActRequest) (*agentv1.ActResponse, error) {
	t.Helper()
	if r.Owner == "" {
		r.Owner = "test"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return e.act.Act(ctx, r)
}

// snapshot snapshots a tab and returns the snapshot with a ref finder by role and name.
func (e *chromeEnv) snapshot(t testing.TB, tab string) *agentv1.Snapshot {
	t.Helper()
	resp, err := e.br.SnapshotTab(context.Background(), &agentv1.SnapshotTabRequest{Tab: e.tab(tab)})
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	return resp.GetSnapshot()
}

// ref finds the ref of the element with role and name in s.
func ref(t testing.TB, s *agentv1.Snapshot, role, name string) *agentv1.ElementRef {
	t.Helper()
	for _, el := range s.GetElements() {
		if el.GetRole() == role && el.GetName() == name {
			return &agentv1.ElementRef{SnapshotId: s.GetSnapshotId(), Ref: el.GetRef()}
		}
	}
	t.Fatalf("no %s %q in snapshot:\n%s", role, name, s.GetText())
	return nil
}

// eval evaluates expr in a tab over the TEST's own DevTools connection to that page (not the code under
// test) and returns the JSON of its value.
func (e *chromeEnv) eval(t testing.TB, tab, expr string) string {
	t.Helper()
	e.mu.Lock()
	c := e.pages[tab]
	e.mu.Unlock()
	if c == nil {
		ws := fmt.Sprintf("ws://127.0.0.1:%d/devtools/page/%s", e.port, tab)
		var err error
		if c, err = remote.DialContext(context.Background(), ws); err != nil {
			t.Fatalf("dial page %s: %v", tab, err)
		}
		e.mu.Lock()
		e.pages[tab] = c
		e.mu.Unlock()
	}
	params, _ := json.Marshal(map[string]any{"expression": expr, "returnByValue": true})
	if err := c.Write(context.Background(), &cdproto.Message{ID: 1, Method: "Runtime.evaluate", Params: params}); err != nil {
		t.Fatalf("eval write: %v", err)
	}
	for {
		var m cdproto.Message
		if err := c.Read(context.Background(), &m); err != nil {
			t.Fatalf("eval read: %v", err)
		}
		if m.ID != 1 {
			continue
		}
		if m.Error != nil {
			t.Fatalf("eval %s: %v", expr, m.Error)
		}
		var res struct {
			Result struct {
				Value json.RawMessage `json:"value"`
			} `json:"result"`
			Exception *struct {
				Text string `json:"text"`
			} `json:"exceptionDetails"`
		}
		json.Unmarshal(m.Result, &res)
		if res.Exception != nil {
			t.Fatalf("eval %s: %s", expr, res.Exception.Text)
		}
		return string(res.Result.Value)
	}
}

// evalString evaluates an expression whose value is a string.
func (e *chromeEnv) evalString(t testing.TB, tab, expr string) string {
	t.Helper()
	var s string
	if err := json.Unmarshal([]byte(e.eval(t, tab, expr)), &s); err != nil {
		t.Fatalf("eval %s: not a string: %v", expr, err)
	}
	return s
}

// pageLog is the page's event log (window.__log), read independently.
func (e *chromeEnv) pageLog(t testing.TB, tab string) []string {
	t.Helper()
	var out []string
	json.Unmarshal([]byte(e.eval(t, tab, "window.__log")), &out)
	return out
}

func (e *chromeEnv) clearLog(t testing.TB, tab string) { e.eval(t, tab, "window.__log = []") }

// testPage records what happens to it in window.__log.
const testPage = `<!doctype html><html><head><title>Glovebox test</title></head><body>
<button id="b1" onclick="log('click b1')">Press me</button>
<div style="position:relative;height:40px"><button id="under" onclick="log('click under')">Under</button>
<div id="cover" style="position:absolute;left:0;top:0;width:300px;height:40px;background:#ddd">cover</div></div>
<p><input id="name" aria-label="Name"> <textarea id="ta" aria-label="Notes"></textarea></p>
<select id="sel" aria-label="Color"><option value="r">Red</option><option value="g">Green</option></select>
<div id="ce" contenteditable="true" aria-label="Editor" role="textbox">hello world</div>
<input id="handled" aria-label="Handled">
<div id="box" style="height:100px;overflow:auto" aria-label="Box" tabindex="0"><div style="height:1000px">tall</div></div>
<a href="/page2">Next page</a>
<script>
window.__log = []; function log(s) { window.__log.push(s); }
document.addEventListener('keydown', e => log('down ' + e.key + (e.shiftKey ? ' shift' : '')), true);
document.getElementById('handled').addEventListener('paste', e => { e.preventDefault();
  log('paste ' + e.clipboardData.getData('text/plain') + ' | ' + e.clipboardData.getData('text/html')); });
for (const id of ['name', 'sel']) for (const t of ['input', 'change']) document.getElementById(id).addEventListener(t, () => log(t + ' ' + id));
console.log('page ready', 42);
</script></body></html>`

// bigPage is a generated page of about 1,400 DOM elements (the benchmark's).
func bigPage() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Big</title></head><body><h1>Rows</h1><table>`)
	for i := range 200 {
		fmt.Fprintf(&b, `<tr><td><span>Row %d</span></td><td><button id="btn%d" onclick="window.__n=(window.__n||0)+1">Act %d</button></td><td><input id="in%d" aria-label="Field %d"></td></tr>`, i, i, i, i, i)
	}
	b.WriteString(`</table><script>window.__log=[]</script></body></html>`)
	return b.String()
}

func servePage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	switch r.URL.Path {
	case "/page":
		fmt.Fprint(w, testPage)
	case "/page2":
		fmt.Fprint(w, `<!doctype html><title>Second</title><button>Second button</button><script>window.__log=[]</script>`)
	case "/big":
		fmt.Fprint(w, bigPage())
	default:
		fmt.Fprintf(w, `<!doctype html><title>%s</title><p>%s</p><script>window.__log=[]</script>`, r.URL.Path, r.URL.Path)
	}
}
