package mcp_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/agenttest"
)

// TestTypeScriptSDK runs js/agent_loop.test.mjs (node:test, the official TypeScript MCP SDK from npm) over stdio
// and streamable HTTP against the real stack, then checks the app's own output: each transport's click at its
// mapped pixel, the text typed over stdio then edited over HTTP (ctrl+a, ArrowLeft, the canary), one click by a
// get_app_state ref and none during a takeover (taken with proto/ts's gRPC client); and that the canary is in no
// log and no audit file.
func TestTypeScriptSDK(t *testing.T) {
	testenv.NeedCommands(t, "node")
	dir := filepath.Join(agenttest.RepoRoot(t), "tests/mcp/js")
	for _, p := range []string{filepath.Join(dir, "node_modules/@modelcontextprotocol/sdk/package.json"),
		filepath.Join(dir, "../../../proto/ts/node_modules/@connectrpc/connect-node/package.json")} {
		if _, err := os.Stat(p); err != nil {
			testenv.Missing(t, "tests/mcp/js or proto/ts has no node_modules (scripts/install-deps.sh runs npm ci there)")
			return
		}
	}
	e := startHTTP(t)
	padX, padY, padW, padH := e.app.geometry(t, "pad")
	entX, entY, entW, entH := e.app.geometry(t, "entry")
	tok := mintToken(t, e)
	// Two points of the pad, one per transport, so each click is told apart in the app's output.
	p1x, p1y := toModel(padX, padY, padW/2, padH)
	p2x, p2y := toModel(padX+padW/2, padY, padW/2, padH)
	ex, ey := toModel(entX, entY, entW, entH)
	canary := canaryText(t)
	cmd := exec.Command("node", "--test", "--test-reporter=spec", "agent_loop.test.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GLOVEBOX_BIN="+e.bin, "GLOVEBOX_BROKER="+e.broker.URI, "GLOVEBOX_GUEST="+e.broker.Guest,
		"MCP_URL="+tok.GetUrl(), "MCP_TOKEN="+tok.GetToken(), "CANARY="+canary,
		fmt.Sprintf("PAD_STDIO=%d,%d", p1x, p1y), fmt.Sprintf("PAD_HTTP=%d,%d", p2x, p2y), fmt.Sprintf("ENTRY=%d,%d", ex, ey))
	out := &agenttest.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("node --test: %v\n%s", err, out.String())
		}
	case <-time.After(120 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("node --test did not finish within 120s:\n%s", out.String())
	}
	t.Logf("node --test:\n%s", out.String())

	s1x, s1y := toScreen(p1x, p1y)
	s2x, s2y := toScreen(p2x, p2y)
	e.app.waitLine(t, fmt.Sprintf("press %d %d", s1x, s1y), 5*time.Second)
	e.app.waitLine(t, fmt.Sprintf("press %d %d", s2x, s2y), 5*time.Second)
	e.app.waitLine(t, regexp.QuoteMeta("entry: "+canary+"Grüße 你好 🚀"), 5*time.Second)
	// One click by ref over HTTP; the second, during the takeover, was refused and never reached the app.
	var clicks int
	for _, l := range e.app.printed() {
		if l == "button clicked" {
			clicks++
		}
	}
	if clicks != 1 {
		t.Errorf("the app printed %d button clicks, want 1 (by ref; the one during the takeover refused)", clicks)
	}
	for what, s := range map[string]string{"node output (MCP server log)": out.String(), "broker log": e.broker.Log.String(), "audit files": auditText(t, e.broker.AuditDir)} {
		if strings.Contains(s, canary) || strings.Contains(s, "你好") {
			t.Errorf("typed text appears in the %s", what)
		}
	}
}
