package mcp_test

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image/png"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/tests/internal/agenttest"
)

// client is an MCP client session on `glovebox mcp` over stdio, with the server's stderr.
type client struct {
	t      *testing.T
	cs     *mcp.ClientSession
	stderr *agenttest.SyncBuffer
}

// startClient runs `glovebox mcp -guest g1` as a subprocess and connects the Go SDK's client to it.
func startClient(t *testing.T, e *env, extra ...string) *client {
	t.Helper()
	cmd := exec.Command(e.bin, append([]string{"mcp", "-broker", e.broker.URI, "-guest", e.broker.Guest, "-model", fmt.Sprintf("%dx%d", modelW, modelH)}, extra...)...)
	c := &client{t: t, stderr: &agenttest.SyncBuffer{}}
	cmd.Stderr = c.stderr
	cl := mcp.NewClient(&mcp.Implementation{Name: "glovebox-test", Version: "0"}, nil)
	cs, err := cl.Connect(ctxT(t, 30*time.Second), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, c.stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	c.cs = cs
	return c
}

// call calls a tool; failOnError says a tool error fails the test.
func (c *client) call(name string, args map[string]any, failOnError bool) *mcp.CallToolResult {
	c.t.Helper()
	res, err := c.cs.CallTool(ctxT(c.t, 60*time.Second), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s %v: protocol error %v\n%s", name, args, err, c.stderr.String())
	}
	if failOnError && res.IsError {
		c.t.Fatalf("%s %v: tool error %s", name, args, text(res, 0))
	}
	return res
}

// text is the text of content block i.
func text(res *mcp.CallToolResult, i int) string {
	if i >= len(res.Content) {
		return ""
	}
	if tc, ok := res.Content[i].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// fields decodes the tool's own JSON (the first block).
func fields(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(text(res, 0)), &m); err != nil {
		t.Fatalf("first block %q: %v", text(res, 0), err)
	}
	return m
}

// untrusted is the text of the blocks marked untrusted.
func untrusted(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok && tc.Meta["glovebox.dev/untrusted"] == true {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// wantToolError checks that res is a tool error with reason and a message naming want.
func wantToolError(t *testing.T, what string, res *mcp.CallToolResult, reason, want string) {
	t.Helper()
	msg := text(res, 0)
	if !res.IsError || !strings.HasPrefix(msg, reason+": ") || !strings.Contains(msg, want) {
		t.Errorf("%s: isError=%v %q, want a tool error %s naming %q", what, res.IsError, msg, reason, want)
	}
}

var (
	buttonRef = regexp.MustCompile(`\[(e\d+)\] push button "Press me"`)
	snapIDRe  = regexp.MustCompile(`"snapshot_id":"([^"]+)"`)
)

// TestGoClientAgentLoop is a scripted agent loop through the official Go SDK client over stdio: tools listed,
// a screenshot at the model size, a click at scaled coordinates landing at the mapped screen pixel, Unicode
// typing, keys, a batch, scrolling by pixels, get_app_state then a click by ref, superseded and stale refs, a
// takeover refusal and bad arguments as tool errors doing nothing, a help request in the broker's queue, and the
// typed canary in no log or audit file.
func TestGoClientAgentLoop(t *testing.T) {
	e := start(t)
	app := e.app
	padX, padY, padW, padH := app.geometry(t, "pad")
	entX, entY, entW, entH := app.geometry(t, "entry")
	scX, scY, scW, scH := app.geometry(t, "scroll")
	c := startClient(t, e)

	tools, err := c.cs.ListTools(ctxT(t, 10*time.Second), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"computer", "openai_computer", "list_apps", "get_app_state", "click", "type_text", "press_key",
		"set_value", "select_text", "scroll", "drag", "browser_tabs", "browser_snapshot", "browser_click", "browser_fill",
		"browser_press", "browser_navigate", "browser_wait_for", "browser_extract", "clipboard_read", "clipboard_write", "request_help", "help_status"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools %v: no %s", names, want)
		}
	}

	// Screenshot at the model size.
	shot := c.call("computer", map[string]any{"action": "screenshot"}, true)
	img, ok := shot.Content[len(shot.Content)-1].(*mcp.ImageContent)
	if !ok {
		t.Fatalf("screenshot content %v: no image", shot.Content)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil || cfg.Width != modelW || cfg.Height != modelH || img.MIMEType != "image/png" {
		t.Fatalf("screenshot %s %dx%d (%v), want a %dx%d PNG", img.MIMEType, cfg.Width, cfg.Height, err, modelW, modelH)
	}

	// A click at scaled coordinates lands on the mapped screen pixel (the app's own report).
	mx, my := toModel(padX, padY, padW, padH)
	sx, sy := toScreen(mx, my)
	res := c.call("computer", map[string]any{"action": "left_click", "coordinate": []int{mx, my}}, true)
	app.waitLine(t, fmt.Sprintf("press %d %d", sx, sy), 5*time.Second)
	f := fields(t, res)
	// The pad does not repaint when pressed: the broker's damage watch may see nothing (NO_VISIBLE_CHANGE), or
	// whatever else repainted meanwhile (DONE); the app's own report above is what shows the click landed.
	if (f["effect"] != "DONE" && f["effect"] != "NO_VISIBLE_CHANGE") || f["audit_seq"] == nil || f["target"] == nil {
		t.Errorf("left_click answered %v, want effect DONE or NO_VISIBLE_CHANGE, a target and an audit_seq", f)
	}

	// zoom answers the region at screen resolution (never enlarged); cursor_position maps the pointer back.
	zoom := c.call("computer", map[string]any{"action": "zoom", "region": []int{0, 0, 640, 400}}, true)
	zimg, _ := zoom.Content[len(zoom.Content)-1].(*mcp.ImageContent)
	if zimg == nil {
		t.Fatalf("zoom content %v: no image", zoom.Content)
	}
	if zc, err := png.DecodeConfig(bytes.NewReader(zimg.Data)); err != nil || zc.Width != 960 || zc.Height != 600 {
		t.Errorf("zoom of [0 0 640 400]: %dx%d (%v), want the 960x600 screen pixels", zc.Width, zc.Height, err)
	}
	c.call("computer", map[string]any{"action": "mouse_move", "coordinate": []int{mx + 7, my + 3}}, true)
	if got := fields(t, c.call("computer", map[string]any{"action": "cursor_position"}, true))["coordinate"]; fmt.Sprint(got) != fmt.Sprint([]any{float64(mx + 7), float64(my + 3)}) {
		t.Errorf("cursor_position after mouse_move to [%d %d]: %v", mx+7, my+3, got)
	}

	// Bad arguments are tool errors naming the argument, and nothing happens on the desktop.
	app.clear()
	for _, bad := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"action": "mouse_move"}, "coordinate: required for mouse_move"},
		{map[string]any{"action": "left_click", "coordinate": []int{modelW, 10}}, "coordinate[0]: must be 0..1279"},
		{map[string]any{"action": "left_click", "coordinate": []int{10, -1}}, "coordinate[1]: must be 0..799"},
		{map[string]any{"action": "fly"}, "action: must be one of"},
		{map[string]any{"action": "left_click", "coordinate": []int{mx, my}, "scroll_amount": 3}, "scroll_amount: not an argument of left_click"},
		{map[string]any{"action": "key", "text": "ctrl+nosuchkey"}, "text key 1 (action.key.combo)"},
	} {
		wantToolError(t, fmt.Sprint(bad.args), c.call("computer", bad.args, false), "INVALID_ARGUMENT", bad.want)
	}
	wantToolError(t, "openai batch with one bad action", c.call("openai_computer", map[string]any{"actions": []any{
		map[string]any{"type": "click", "x": mx, "y": my}, map[string]any{"type": "click", "x": mx}}}, false),
		"INVALID_ARGUMENT", "actions[1].x: x and y are required")
	time.Sleep(300 * time.Millisecond)
	if p := app.printed(); len(p) > 0 {
		t.Errorf("refused calls reached the desktop: the app printed %q", p)
	}

	// Typing into the entry: a click to focus it, Unicode text, then ctrl+a, ArrowLeft and a canary in one batch.
	ex, ey := toModel(entX, entY, entW, entH)
	c.call("computer", map[string]any{"action": "left_click", "coordinate": []int{ex, ey}}, true)
	c.call("computer", map[string]any{"action": "type", "text": "Grüße 你好 🚀"}, true)
	app.waitLine(t, "entry: Grüße 你好 🚀", 10*time.Second)
	canary := canaryText(t)
	c.call("computer", map[string]any{"action": "key", "text": "ctrl+a"}, true)
	res = c.call("openai_computer", map[string]any{"actions": []any{
		map[string]any{"type": "keypress", "keys": []string{"ArrowLeft"}},
		map[string]any{"type": "type", "text": canary},
	}}, true)
	app.waitLine(t, regexp.QuoteMeta("entry: "+canary+"Grüße 你好 🚀"), 10*time.Second)
	if _, ok := res.Content[len(res.Content)-1].(*mcp.ImageContent); !ok {
		t.Errorf("openai batch answered %v, want a screenshot last", res.Content)
	}

	// Scrolling by pixels (OpenAI's scroll_y) moves the scrolled window down.
	vx, vy := toModel(scX, scY, scW, scH)
	app.clear()
	c.call("openai_computer", map[string]any{"action": map[string]any{"type": "scroll", "x": vx, "y": vy, "scroll_x": 0, "scroll_y": 200}}, true)
	app.waitLine(t, `scroll: [1-9]\d*`, 5*time.Second)

	// get_app_state then a click by ref.
	state := c.call("get_app_state", map[string]any{"name": "mcpapp", "max_bytes": 4096}, true)
	tree := untrusted(state)
	m := buttonRef.FindStringSubmatch(tree)
	if m == nil {
		t.Fatalf("get_app_state tree has no button:\n%s", tree)
	}
	if _, ok := state.Content[len(state.Content)-1].(*mcp.ImageContent); !ok {
		t.Errorf("get_app_state has no screenshot: %v", state.Content)
	}
	sf := fields(t, state)
	if n, _ := sf["text_bytes"].(float64); n <= 0 || n > 4096 {
		t.Errorf("get_app_state text_bytes %v, want 1..4096", sf["text_bytes"])
	}
	firstSnap := snapIDRe.FindStringSubmatch(text(state, 0))[1]
	app.clear()
	c.call("click", map[string]any{"ref": m[1]}, true)
	app.waitLine(t, "button clicked", 5*time.Second)

	// A ref of a superseded snapshot, and a ref whose element is gone, are tool errors with their reasons.
	state2 := c.call("get_app_state", map[string]any{"name": "mcpapp", "no_screenshot": true}, true)
	m2 := buttonRef.FindStringSubmatch(untrusted(state2))
	if m2 == nil {
		t.Fatalf("second get_app_state has no button:\n%s", untrusted(state2))
	}
	app.clear()
	wantToolError(t, "click by a superseded snapshot's ref", c.call("click", map[string]any{"ref": m[1], "snapshot_id": firstSnap}, false),
		"SNAPSHOT_SUPERSEDED", "")
	fmt.Fprintln(app.stdin, "hide")
	time.Sleep(300 * time.Millisecond)
	wantToolError(t, "click by the ref of a destroyed button", c.call("click", map[string]any{"ref": m2[1]}, false), "STALE_REF", "")

	// request_help reaches the broker's help queue (read here over gRPC), and help_status follows it.
	help := fields(t, c.call("request_help", map[string]any{"reason": "need a password", "instructions": "log in as the test user"}, true))
	helpID, _ := help["help_id"].(string)
	if helpID == "" || help["state"] != "PENDING" {
		t.Fatalf("request_help answered %v, want a help_id and state PENDING", help)
	}
	queue, err := brokerv1.NewHandoffServiceClient(e.conn).ListHelpRequests(ctxT(t, 10*time.Second), &brokerv1.ListHelpRequestsRequest{Guest: e.broker.Guest})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(queue.GetRequests(), func(h *brokerv1.HelpRequest) bool { return h.GetId() == helpID && h.GetReason() == "need a password" }) {
		t.Errorf("the broker's help queue %v has no %s with the reason sent", queue.GetRequests(), helpID)
	}
	if st := fields(t, c.call("help_status", map[string]any{"help_id": helpID}, true)); st["state"] != "PENDING" {
		t.Errorf("help_status %v, want PENDING", st)
	}

	// A human takes over: mutations are tool errors with CONTROL_HELD and nothing reaches the app.
	ctl := brokerv1.NewControlServiceClient(e.conn)
	if _, err := ctl.AcquireControl(ctxT(t, 10*time.Second), &brokerv1.AcquireControlRequest{Guest: e.broker.Guest, Reason: "test takeover"}); err != nil {
		t.Fatal(err)
	}
	wantToolError(t, "left_click during a takeover", c.call("computer", map[string]any{"action": "left_click", "coordinate": []int{mx, my}}, false),
		"CONTROL_HELD", "")
	time.Sleep(300 * time.Millisecond)
	if p := app.printed(); slices.ContainsFunc(p, func(l string) bool { return strings.HasPrefix(l, "press") || strings.HasPrefix(l, "button") }) {
		t.Errorf("a click during a takeover reached the app: %q", p)
	}
	if _, err := ctl.ReleaseControl(ctxT(t, 10*time.Second), &brokerv1.ReleaseControlRequest{Guest: e.broker.Guest}); err != nil {
		t.Fatal(err)
	}

	// The canary typed through MCP is in no log and no audit file.
	c.cs.Close()
	for what, s := range map[string]string{"MCP server log": c.stderr.String(), "broker log": e.broker.Log.String(), "audit files": auditText(t, e.broker.AuditDir)} {
		if strings.Contains(s, canary) || strings.Contains(s, "你好") {
			t.Errorf("typed text appears in the %s", what)
		}
	}
	if !strings.Contains(c.stderr.String(), "mcp tool") {
		t.Errorf("MCP server log has no tool lines:\n%s", c.stderr.String())
	}
}

// canaryText is a random marker typed through MCP and searched for in logs.
func canaryText(t *testing.T) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "cnry" + hex.EncodeToString(b)
}
