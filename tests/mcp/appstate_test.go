package mcp_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/a11ybus"
	"glovebox.dev/shared/testenv/desktop"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// refPrefix is a line's ref in the compact text ("  [e12] push button ...").
var refPrefix = regexp.MustCompile(`^(\s*)\[(\w+)\] `)

// TestGoClientAppStatePages pages gtk3-widget-factory's window through get_app_state at the smallest budget: every
// page's text is within the budget, the pages follow each other (offset + elements), together they are the
// window's tree as the agent answers it whole over gRPC (refs aside: a separate snapshot numbers its own), a ref
// of a later page acts (a spin button or slider set by it, read back from the agent), only the first page carries the screenshot, and a continuation taken before a hand-over
// is refused afterwards with GENERATION_CHANGED.
func TestGoClientAppStatePages(t *testing.T) {
	testenv.NeedCommands(t, "gtk3-widget-factory")
	d := desktop.Start(t, desktop.Options{Width: screenW, Height: screenH})
	s := a11ybus.Start(t, d)
	factory := s.Command("gtk3-widget-factory")
	if err := s.StartProgram(t, factory); err != nil {
		t.Fatal(err)
	}
	a := agenttest.Start(t, agenttest.Options{Desktop: d, Env: []string{"DBUS_SESSION_BUS_ADDRESS=" + s.Address}})
	br := brokertest.Start(t, a)
	conn, err := grpc.NewClient(br.URI, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(agenttest.MaxMessageBytes)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	e := &env{broker: br, conn: conn, bin: brokertest.Binary(t, "glovebox")}
	c := startClient(t, e)
	const budget = 2048
	args := map[string]any{"name": "gtk3-widget-factory", "max_bytes": budget}

	// The factory's first page is whole once its window shows more than 100 elements.
	a11y := agentv1.NewAccessibilityServiceClient(a.DialUnix(t))
	whole := func(appID, windowID string) string {
		r, err := a11y.SnapshotWindow(ctxT(t, 30*time.Second), &agentv1.SnapshotWindowRequest{AppId: appID, WindowId: windowID,
			Options: &agentv1.SnapshotOptions{VisibleOnly: true, TextOnly: true, MaxNodes: 20000}})
		if err != nil {
			t.Fatalf("SnapshotWindow straight from the agent: %v", err)
		}
		return r.GetSnapshot().GetText()
	}
	var first *mcp.CallToolResult
	var f map[string]any
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		first = c.call("get_app_state", args, false)
		if !first.IsError {
			f = fields(t, first)
			if n := strings.Count(whole(str(f["app_id"]), str(f["window_id"])), "\n"); n > 100 {
				first = c.call("get_app_state", args, true)
				f = fields(t, first)
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("gtk3-widget-factory's window never showed 100 elements: %s", text(first, 0))
		}
	}
	if _, ok := first.Content[len(first.Content)-1].(*mcp.ImageContent); !ok {
		t.Errorf("the first page has no screenshot: %v", first.Content)
	}

	var pages []string
	refs := map[string]bool{}
	res, offset := first, 0
	for i := 0; ; i++ {
		f := fields(t, res)
		page := treeText(res)
		if f["text_bytes"] != float64(len(page)) || len(page) > budget || len(page) == 0 {
			t.Fatalf("page %d: text_bytes %v, %d bytes of text, want 1..%d", i, f["text_bytes"], len(page), budget)
		}
		if f["offset"] != float64(offset) || f["elements"] != float64(strings.Count(page, "\n")) {
			t.Fatalf("page %d: offset %v elements %v, want offset %d and one element a line", i, f["offset"], f["elements"], offset)
		}
		if i > 0 {
			if _, ok := res.Content[len(res.Content)-1].(*mcp.ImageContent); ok {
				t.Errorf("page %d carries a screenshot: only the first page does", i)
			}
		}
		for _, l := range strings.Split(strings.TrimSuffix(page, "\n"), "\n") {
			m := refPrefix.FindStringSubmatch(l)
			if m == nil || refs[m[2]] {
				t.Fatalf("page %d: line %q has no ref, or one an earlier page gave", i, l)
			}
			refs[m[2]] = true
		}
		pages = append(pages, page)
		offset += strings.Count(page, "\n")
		cont, _ := f["continuation"].(string)
		if cont == "" {
			break
		}
		if i > 500 {
			t.Fatal("more than 500 pages")
		}
		res = c.call("get_app_state", map[string]any{"continuation": cont, "max_bytes": budget}, true)
	}
	if len(pages) < 3 {
		t.Fatalf("%d pages at %d bytes, want the window over several", len(pages), budget)
	}
	// A ref of a later page acts: the first spin button or slider after the first page is set to 37 through MCP,
	// and the agent's own whole snapshot (straight over gRPC) shows it at that place.
	all := strings.Split(strings.Join(pages, ""), "\n")
	spin, role := -1, ""
	ranged := regexp.MustCompile(`\] (spin button|slider) value=`)
	for i := strings.Count(pages[0], "\n"); i < len(all) && spin < 0; i++ {
		if m := ranged.FindStringSubmatch(all[i]); m != nil && !strings.Contains(all[i], "disabled") {
			spin, role = i, m[1]
		}
	}
	if spin < 0 {
		t.Fatal("no enabled spin button or slider after the first page")
	}
	c.call("set_value", map[string]any{"ref": refPrefix.FindStringSubmatch(all[spin])[2], "number": 37}, true)

	// Together the pages are the window's tree as the agent answers it whole, refs and values aside (the
	// adjustment set drives other widgets' values).
	values := regexp.MustCompile(` value="[^"]*"`)
	strip := func(s string) []string {
		lines := strings.Split(s, "\n")
		for i, l := range lines {
			lines[i] = values.ReplaceAllString(refPrefix.ReplaceAllString(l, "$1"), "")
		}
		return lines
	}
	after := whole(str(f["app_id"]), str(f["window_id"]))
	if l := strings.Split(after, "\n"); spin >= len(l) || !strings.Contains(l[spin], role+` value="37"`) {
		t.Errorf("after set_value 37 by the ref of page line %d (%q), the agent's whole snapshot there shows %q", spin, all[spin], l[min(spin, len(l)-1)])
	}
	paged, direct := strip(strings.Join(pages, "")), strip(after)
	if strings.Join(paged, "\n") != strings.Join(direct, "\n") {
		t.Errorf("the %d pages (%d lines) are not the window's tree as the agent answers it whole (%d lines)", len(pages), len(paged), len(direct))
		for i := range min(len(paged), len(direct)) {
			if paged[i] != direct[i] {
				t.Errorf("first difference at line %d: paged %q, whole %q", i, paged[i], direct[i])
				break
			}
		}
	}

	// A continuation from before a hand-over is refused after it.
	cont, _ := fields(t, c.call("get_app_state", args, true))["continuation"].(string)
	ctl := brokerv1.NewControlServiceClient(conn)
	if _, err := ctl.AcquireControl(ctxT(t, 10*time.Second), &brokerv1.AcquireControlRequest{Guest: br.Guest, Reason: "test takeover"}); err != nil {
		t.Fatal(err)
	}
	if _, err := ctl.ReleaseControl(ctxT(t, 10*time.Second), &brokerv1.ReleaseControlRequest{Guest: br.Guest}); err != nil {
		t.Fatal(err)
	}
	wantToolError(t, fmt.Sprintf("continuation %s after a hand-over", cont), c.call("get_app_state", map[string]any{"continuation": cont}, false),
		"GENERATION_CHANGED", "")

	// The name is resolved again once the app it named quit: a new instance is observed, under its own id.
	oldID := str(f["app_id"])
	factory.Process.Kill()
	factory.Wait()
	again := s.Command("gtk3-widget-factory")
	if err := s.StartProgram(t, again); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		res := c.call("get_app_state", map[string]any{"name": "gtk3-widget-factory", "no_screenshot": true}, false)
		if !res.IsError {
			if id := str(fields(t, res)["app_id"]); id != fmt.Sprintf("app:%d", again.Process.Pid) {
				t.Errorf("get_app_state by name after a restart observed %s (before: %s), want the new instance app:%d", id, oldID, again.Process.Pid)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("get_app_state by name never reached the restarted app: %s", text(res, 0))
		}
	}
}

// treeText is the last block marked untrusted: the tree text (guest fields such as the focused element come
// before it, as JSON).
func treeText(res *mcp.CallToolResult) string {
	out := ""
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok && tc.Meta["glovebox.dev/untrusted"] == true {
			out = tc.Text
		}
	}
	return out
}

// str is v as a string ("" when it is none).
func str(v any) string { s, _ := v.(string); return s }
