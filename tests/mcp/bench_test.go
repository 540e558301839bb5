package mcp_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
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

// unlimited lifts the per-session rate limit (50 mutations/s by default), which a benchmark loop passes.
func unlimited(cfg map[string]any) {
	cfg["principals"].([]map[string]any)[0]["rate_per_second"] = -1
}

// timed runs op b.N times and reports the median as p50-ms.
func timed(b *testing.B, op func() error) {
	lat := make([]time.Duration, 0, b.N)
	for b.Loop() {
		t0 := time.Now()
		if err := op(); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
}

// timedPair runs op and then baseline, alternately, b.N times each, and reports both medians: p50-ms (op) and
// baseline-p50-ms. Alternating keeps a changing machine load out of the comparison.
func timedPair(b *testing.B, op, baseline func() error) {
	var lat, base []time.Duration
	for b.Loop() {
		for i, f := range []func() error{op, baseline} {
			t0 := time.Now()
			if err := f(); err != nil {
				b.Fatal(err)
			}
			if i == 0 {
				lat = append(lat, time.Since(t0))
			} else {
				base = append(base, time.Since(t0))
			}
		}
	}
	p50 := func(l []time.Duration) float64 {
		sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
		return float64(l[len(l)/2].Microseconds()) / 1000
	}
	b.ReportMetric(p50(lat), "p50-ms")
	b.ReportMetric(p50(base), "baseline-p50-ms")
}

// baselineBin is a glovebox binary of another commit to compare with, side by side in one run
// (GLOVEBOX_MCP_BASELINE; the vs-baseline- benchmarks are skipped without it).
func baselineBin(b *testing.B) string {
	p := os.Getenv("GLOVEBOX_MCP_BASELINE")
	if p == "" {
		b.Skip("GLOVEBOX_MCP_BASELINE (a glovebox binary of another commit) is not set")
	}
	return p
}

// baselineAgent is a glovebox-agent binary of another commit to compare with, side by side in one run
// (GLOVEBOX_AGENT_BASELINE; the vs-baseline-agent- benchmarks are skipped without it).
func baselineAgent(b *testing.B) string {
	p := os.Getenv("GLOVEBOX_AGENT_BASELINE")
	if p == "" {
		b.Skip("GLOVEBOX_AGENT_BASELINE (a glovebox-agent binary of another commit) is not set")
	}
	return p
}

// benchMCP connects the Go SDK client to `glovebox mcp` on the broker's guest.
func benchMCP(b *testing.B, br *brokertest.Broker, model string, extra ...string) *mcp.ClientSession {
	return benchMCPBin(b, brokertest.Binary(b, "glovebox"), br, model, extra...)
}

// benchMCPBin is benchMCP with the glovebox binary bin.
func benchMCPBin(b *testing.B, bin string, br *brokertest.Broker, model string, extra ...string) *mcp.ClientSession {
	cmd := exec.Command(bin, append([]string{"mcp", "-broker", br.URI, "-guest", br.Guest, "-model", model}, extra...)...)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// callOK calls a tool and turns a tool error into an error.
func callOK(cs *mcp.ClientSession, name string, args map[string]any) error {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err == nil && res.IsError {
		err = fmt.Errorf("%s: %s", name, text(res, 0))
	}
	return err
}

// BenchmarkAgentStep is one agent step, a left click then a 1280x800 screenshot, side by side: through MCP
// over stdio (glovebox mcp, Go SDK client, broker, agent), through the broker's gRPC API (the same two calls),
// and the way a harness on e2b desktop does it (`xdotool mousemove X Y click 1`, then `scrot`, one process
// each). The ratio script pairs glovebox-/xdotool+scrot- and grpc-/mcp- (MCP's own overhead).
func BenchmarkAgentStep(b *testing.B) {
	testenv.NeedCommands(b, "Xvfb", "openbox", "xdotool", "scrot")
	d := desktop.Start(b, desktop.Options{Width: 1280, Height: 800})
	a := agenttest.Start(b, agenttest.Options{Desktop: d})
	br := brokertest.StartConfig(b, a, unlimited)
	// Both sides deliver the click without the damage watch (-1): the step measures delivery, as the peer's does.
	cs := benchMCP(b, br, "1280x800", "-watch-ms", "-1")
	conn, err := grpc.NewClient(br.URI, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(agenttest.MaxMessageBytes)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	ctx := context.Background()
	sess, err := brokerv1.NewSessionServiceClient(conn).CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: br.Guest})
	if err != nil {
		b.Fatal(err)
	}
	sid := sess.GetSession().GetId()
	computer := brokerv1.NewComputerServiceClient(conn)
	shotFile := filepath.Join(b.TempDir(), "shot.png")
	i := 0
	point := func() (int, int) { i++; return 600 + i%50, 400 }
	mcpStep := func() error {
		x, y := point()
		if err := callOK(cs, "computer", map[string]any{"action": "left_click", "coordinate": []int{x, y}}); err != nil {
			return err
		}
		return callOK(cs, "computer", map[string]any{"action": "screenshot"})
	}
	grpcStep := func() error {
		x, y := point()
		_, err := computer.Act(ctx, &brokerv1.ActRequest{SessionId: sid, Request: &agentv1.ActRequest{WatchMs: -1, Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{
			At: &agentv1.Point{X: int32(x), Y: int32(y)}, Button: agentv1.MouseButton_MOUSE_BUTTON_LEFT, Count: 1}}}})
		if err != nil {
			return err
		}
		_, err = computer.CaptureScreenshot(ctx, &brokerv1.CaptureScreenshotRequest{SessionId: sid, Request: &agentv1.CaptureScreenshotRequest{
			Options: &agentv1.ScreenshotOptions{Format: agentv1.ImageFormat_IMAGE_FORMAT_PNG}}})
		return err
	}
	shell := func(name string, args ...string) error {
		c := exec.Command(name, args...)
		c.Env = append(os.Environ(), "DISPLAY="+d.Display)
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v: %s", name, err, out)
		}
		return nil
	}
	peerStep := func() error {
		x, y := point()
		if err := shell("xdotool", "mousemove", fmt.Sprint(x), fmt.Sprint(y), "click", "1"); err != nil {
			return err
		}
		return shell("scrot", "-o", shotFile)
	}
	if shot, err := computer.CaptureScreenshot(ctx, &brokerv1.CaptureScreenshotRequest{SessionId: sid, Request: &agentv1.CaptureScreenshotRequest{
		Options: &agentv1.ScreenshotOptions{Format: agentv1.ImageFormat_IMAGE_FORMAT_PNG}}}); err == nil {
		b.Logf("screenshot: %d bytes of PNG", len(shot.GetResponse().GetImage().GetData()))
	}
	b.Run("glovebox-click-screenshot", func(b *testing.B) { timed(b, mcpStep) })
	b.Run("xdotool+scrot-click-screenshot", func(b *testing.B) { timed(b, peerStep) })
	b.Run("grpc-click-screenshot", func(b *testing.B) { timed(b, grpcStep) })
	b.Run("mcp-click-screenshot", func(b *testing.B) { timed(b, mcpStep) })
	// MCP's overhead with the load kept out: MCP and gRPC steps alternate (p50-ms: MCP, baseline-p50-ms: gRPC).
	b.Run("alternating-mcp-vs-grpc-click-screenshot", func(b *testing.B) { timedPair(b, mcpStep, grpcStep) })
	// Against the glovebox of another commit (GLOVEBOX_MCP_BASELINE), alternately: the screenshot alone and the
	// cursor alone (the step's click is not compared: a build before -watch-ms watches every click 250 ms).
	for _, c := range []struct {
		name string
		args map[string]any
	}{{"shot", map[string]any{"action": "screenshot"}}, {"cursor", map[string]any{"action": "cursor_position"}}} {
		b.Run("vs-baseline-mcp-"+c.name, func(b *testing.B) {
			base := benchMCPBin(b, baselineBin(b), br, "1280x800")
			timedPair(b, func() error { return callOK(cs, "computer", c.args) }, func() error { return callOK(base, "computer", c.args) })
		})
	}
	b.Run("grpc-cursor", func(b *testing.B) {
		timed(b, func() error {
			_, err := computer.GetCursorPosition(ctx, &brokerv1.GetCursorPositionRequest{SessionId: sid, Request: &agentv1.GetCursorPositionRequest{}})
			return err
		})
	})
	b.Run("mcp-cursor", func(b *testing.B) {
		timed(b, func() error { return callOK(cs, "computer", map[string]any{"action": "cursor_position"}) })
	})
	b.Run("grpc-shot", func(b *testing.B) {
		timed(b, func() error {
			_, err := computer.CaptureScreenshot(ctx, &brokerv1.CaptureScreenshotRequest{SessionId: sid, Request: &agentv1.CaptureScreenshotRequest{
				Options: &agentv1.ScreenshotOptions{Format: agentv1.ImageFormat_IMAGE_FORMAT_PNG}}})
			return err
		})
	})
	b.Run("mcp-shot", func(b *testing.B) {
		timed(b, func() error { return callOK(cs, "computer", map[string]any{"action": "screenshot"}) })
	})
}

// BenchmarkAppState is get_app_state of gtk3-widget-factory within a 4 KiB text budget (tree text with refs
// and a screenshot in one call) through MCP over stdio.
func BenchmarkAppState(b *testing.B) {
	testenv.NeedCommands(b, "Xvfb", "openbox", "gtk3-widget-factory")
	d := desktop.Start(b, desktop.Options{Width: 1280, Height: 800})
	s := a11ybus.Start(b, d)
	c := s.Command("gtk3-widget-factory")
	if err := s.StartProgram(b, c); err != nil {
		b.Fatal(err)
	}
	a := agenttest.Start(b, agenttest.Options{Desktop: d, Env: []string{"DBUS_SESSION_BUS_ADDRESS=" + s.Address}})
	br := brokertest.Start(b, a)
	cs := benchMCP(b, br, "1280x800")
	args := map[string]any{"name": "gtk3-widget-factory", "max_bytes": 4096}
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_app_state", Arguments: args})
		if err == nil && !res.IsError && regexp.MustCompile(`"elements":[1-9]`).MatchString(text(res, 0)) {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("gtk3-widget-factory not snapshotted within 30s: %v %v", err, res)
		}
		time.Sleep(200 * time.Millisecond)
	}
	b.Run("glovebox-widget-factory-4k", func(b *testing.B) { timed(b, func() error { return callOK(cs, "get_app_state", args) }) })
	b.Run("glovebox-widget-factory-screenshot", func(b *testing.B) {
		timed(b, func() error { return callOK(cs, "computer", map[string]any{"action": "screenshot"}) })
	})
	jpeg := benchMCP(b, br, "1280x800", "-jpeg")
	b.Run("glovebox-widget-factory-4k-jpeg", func(b *testing.B) { timed(b, func() error { return callOK(jpeg, "get_app_state", args) }) })
	b.Run("glovebox-widget-factory-4k-include-hidden", func(b *testing.B) {
		args := map[string]any{"name": "gtk3-widget-factory", "max_bytes": 4096, "include_hidden": true}
		timed(b, func() error { return callOK(cs, "get_app_state", args) })
	})
	b.Run("vs-baseline-widget-factory-4k", func(b *testing.B) {
		base := benchMCPBin(b, baselineBin(b), br, "1280x800")
		timedPair(b, func() error { return callOK(cs, "get_app_state", args) }, func() error { return callOK(base, "get_app_state", args) })
	})
	b.Run("vs-baseline-widget-factory-screenshot", func(b *testing.B) {
		base := benchMCPBin(b, baselineBin(b), br, "1280x800")
		shot := map[string]any{"action": "screenshot"}
		timedPair(b, func() error { return callOK(cs, "computer", shot) }, func() error { return callOK(base, "computer", shot) })
	})
	b.Run("glovebox-widget-factory-4k-no-screenshot", func(b *testing.B) {
		args := map[string]any{"name": "gtk3-widget-factory", "max_bytes": 4096, "no_screenshot": true}
		timed(b, func() error { return callOK(cs, "get_app_state", args) })
	})
	// This tree's agent against another commit's (GLOVEBOX_AGENT_BASELINE) on the same desktop, bus and app,
	// each behind its own broker and MCP server, calls alternating.
	for _, c := range []struct {
		name string
		args map[string]any
	}{{"vs-baseline-agent-widget-factory-4k", args},
		{"vs-baseline-agent-widget-factory-4k-no-screenshot", map[string]any{"name": "gtk3-widget-factory", "max_bytes": 4096, "no_screenshot": true}}} {
		b.Run(c.name, func(b *testing.B) {
			old := agenttest.Start(b, agenttest.Options{Desktop: d, Binary: baselineAgent(b), Env: []string{"DBUS_SESSION_BUS_ADDRESS=" + s.Address}})
			base := benchMCP(b, brokertest.Start(b, old), "1280x800")
			if err := callOK(base, "get_app_state", c.args); err != nil {
				b.Fatalf("the baseline agent: %v", err)
			}
			timedPair(b, func() error { return callOK(cs, "get_app_state", c.args) }, func() error { return callOK(base, "get_app_state", c.args) })
		})
	}
}
