package mcp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/chromium"
	"glovebox.dev/shared/testenv/desktop"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

const mcpFormPage = `<!doctype html><html><head><title>MCP form</title></head><body>
<button id="b" onclick="document.getElementById('count').textContent = String(++window.__n)">Press me</button>
<span id="count">0</span>
<p><input id="name" aria-label="Name"></p>
<script>window.__n = 0</script></body></html>`

// pageEval evaluates expr in a tab over the test's own DevTools connection (independent of the code under test).
func pageEval(t *testing.T, port int, tab, expr string, out any) {
	t.Helper()
	ws, err := websocket.Dial(fmt.Sprintf("ws://127.0.0.1:%d/devtools/page/%s", port, tab), "", "http://127.0.0.1/")
	if err != nil {
		t.Fatalf("dial page %s: %v", tab, err)
	}
	defer ws.Close()
	ws.SetDeadline(time.Now().Add(10 * time.Second))
	msg := map[string]any{"id": 1, "method": "Runtime.evaluate", "params": map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}}
	if err := websocket.JSON.Send(ws, msg); err != nil {
		t.Fatal(err)
	}
	for {
		var reply struct {
			ID     int
			Result struct {
				Result struct{ Value json.RawMessage }
			}
		}
		if err := websocket.JSON.Receive(ws, &reply); err != nil {
			t.Fatalf("eval %s: %v", expr, err)
		}
		if reply.ID == 1 {
			if err := json.Unmarshal(reply.Result.Result.Value, out); err != nil {
				t.Fatalf("eval %s = %s: %v", expr, reply.Result.Result.Value, err)
			}
			return
		}
	}
}

// TestGoClientBrowser drives Chromium through the MCP browser tools: browser_tabs lists the test's tab,
// browser_snapshot gives refs, browser_fill by ref and browser_click by ref change the page's DOM (read over the
// test's own DevTools connection), the CLI's browser verbs (tabs, snapshot tab, act fill by ref, extract) work on
// the same tab, and the filled canary is in no log or audit file.
func TestGoClientBrowser(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb", "openbox", "chromium")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, mcpFormPage)
	}))
	t.Cleanup(srv.Close)
	d := desktop.Start(t, desktop.Options{})
	port := chromium.Start(t, d)
	req, _ := http.NewRequest(http.MethodPut, fmt.Sprintf("http://127.0.0.1:%d/json/new?%s", port, srv.URL+"/form"), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var tab struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&tab)
	resp.Body.Close()
	pageEval(t, port, tab.ID, `new Promise(r => document.readyState === 'complete' ? r(true) : addEventListener('load', () => r(true)))`, new(bool))

	a := agenttest.Start(t, agenttest.Options{Desktop: d, ExtraArgs: []string{"-browser-port", strconv.Itoa(port), "-browser-profile", t.TempDir()}})
	b := brokertest.Start(t, a)
	e := &env{broker: b, bin: brokertest.Binary(t, "glovebox")}
	c := startClient(t, e)
	browserID := "chrome-" + strconv.Itoa(port)

	tabs := c.call("browser_tabs", nil, true)
	if !strings.Contains(untrusted(tabs), tab.ID) {
		t.Fatalf("browser_tabs %s %s: no tab %s", text(tabs, 0), untrusted(tabs), tab.ID)
	}
	snap := c.call("browser_snapshot", map[string]any{"browser_id": browserID, "tab_id": tab.ID}, true)
	tree := untrusted(snap)
	field := regexp.MustCompile(`\[(e\d+)\] textbox "Name"`).FindStringSubmatch(tree)
	button := regexp.MustCompile(`\[(e\d+)\] button "Press me"`).FindStringSubmatch(tree)
	if field == nil || button == nil {
		t.Fatalf("page snapshot has no Name field or button:\n%s", tree)
	}
	canary := canaryText(t) + " 東京🙂"
	fill := c.call("browser_fill", map[string]any{"ref": field[1], "text": canary}, true)
	if f := fields(t, fill); f["effect"] != "VERIFIED" {
		t.Errorf("browser_fill answered %v, want effect VERIFIED", f)
	}
	var value string
	pageEval(t, port, tab.ID, `document.getElementById('name').value`, &value)
	if value != canary {
		t.Errorf("the page's field holds %q after browser_fill, want the filled text", value)
	}
	c.call("browser_click", map[string]any{"ref": button[1]}, true)
	var count string
	pageEval(t, port, tab.ID, `document.getElementById('count').textContent`, &count)
	if count != "1" {
		t.Errorf("the page's counter is %q after browser_click, want 1", count)
	}

	// The CLI's browser verbs on the same tab: tabs, snapshot tab, act fill by ref, extract.
	session, _, _ := glovebox(t, e, "", "sessions", "create", b.Guest)
	session = strings.TrimSpace(session)
	if out, _, code := glovebox(t, e, session, "tabs"); code != 0 || !strings.Contains(out, tab.ID) {
		t.Errorf("glovebox tabs: exit %d, no %s in\n%s", code, tab.ID, out)
	}
	out, errOut, code := glovebox(t, e, session, "snapshot", "tab", "-browser", browserID, "-tab", tab.ID)
	head := regexp.MustCompile(`^snapshot (\S+) of `).FindStringSubmatch(out)
	cliField := regexp.MustCompile(`\[(e\d+)\] textbox "Name"`).FindStringSubmatch(out)
	if code != 0 || head == nil || cliField == nil {
		t.Fatalf("glovebox snapshot tab: exit %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code := glovebox(t, e, session, "act", "fill", "-browser", browserID, "-tab", tab.ID, "-ref", head[1]+":"+cliField[1], "from the CLI"); code != 0 {
		t.Fatalf("glovebox act fill: exit %d %s%s", code, out, errOut)
	}
	pageEval(t, port, tab.ID, `document.getElementById('name').value`, &value)
	if value != "from the CLI" {
		t.Errorf("the page's field holds %q after glovebox act fill, want %q", value, "from the CLI")
	}
	if out, _, code := glovebox(t, e, session, "extract", "-browser", browserID, "-tab", tab.ID, "-dom"); code != 0 || !strings.Contains(out, "Press me") {
		t.Errorf("glovebox extract -dom: exit %d\n%s", code, out)
	}
	if _, errOut, code := glovebox(t, e, session, "act", "page-click", "-browser", browserID, "-tab", tab.ID); code != 2 || !strings.Contains(errOut, "-ref SNAPSHOT:REF") {
		t.Errorf("page-click without a locator: exit %d %q, want 2 naming the locator flags", code, errOut)
	}

	wantToolError(t, "browser_click by a ref of the snapshot the CLI's superseded", c.call("browser_click", map[string]any{"ref": button[1]}, false),
		"SNAPSHOT_SUPERSEDED", "")
	c.call("browser_snapshot", map[string]any{"browser_id": browserID, "tab_id": tab.ID}, true)
	res := c.call("browser_click", map[string]any{"ref": "e99999"}, false)
	wantToolError(t, "browser_click by a ref the snapshot never had", res, "NOT_FOUND", "")
	if md, _ := res.StructuredContent.(map[string]any)["error"].(map[string]any)["metadata"].(map[string]any); md["cause"] != "no_such_ref" {
		t.Errorf("browser_click by a ref the snapshot never had: metadata %v, want cause no_such_ref", md)
	}
	c.cs.Close()
	for what, s := range map[string]string{"MCP server log": c.stderr.String(), "broker log": b.Log.String(), "audit files": auditText(t, b.AuditDir)} {
		if strings.Contains(s, canary) {
			t.Errorf("filled text appears in the %s", what)
		}
	}
}
