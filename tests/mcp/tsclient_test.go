package mcp_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/testpki"
	"glovebox.dev/tests/internal/agenttest"
)

// TestTypeScriptClient runs proto/ts/client.test.mjs (node:test, the generated TypeScript client with
// connect-node's gRPC transport) against the real broker over its unix socket and its mTLS TCP listener; the
// node test reads the GTK app's own output file for the typed text.
func TestTypeScriptClient(t *testing.T) {
	testenv.NeedCommands(t, "node")
	dir := filepath.Join(agenttest.RepoRoot(t), "proto/ts")
	if _, err := os.Stat(filepath.Join(dir, "node_modules/@connectrpc/connect-node/package.json")); err != nil {
		testenv.Missing(t, "proto/ts has no node_modules (scripts/install-deps.sh runs npm ci there)")
		return
	}
	ca := testpki.New(t)
	server, client := ca.Server(t, "localhost"), ca.Client(t, "ts-client")
	addr := testenv.FreeAddr(t)
	e := startConfig(t, func(cfg map[string]any) {
		cfg["listen"] = append(cfg["listen"].([]string), "tcp://"+addr)
		cfg["tls"] = map[string]any{"cert": server.CertFile, "key": server.KeyFile, "client_ca": ca.File}
		ps := cfg["principals"].([]map[string]any)
		ps[0]["cert_names"] = []string{"ts-client"}
	})
	entX, entY, entW, entH := e.app.geometry(t, "entry")
	cmd := exec.Command("node", "--test", "--test-reporter=spec", "client.test.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GLOVEBOX_BROKER="+e.broker.URI, "GLOVEBOX_BROKER_TCP=tcp://"+addr, "GLOVEBOX_GUEST="+e.broker.Guest,
		"TLS_CERT="+client.CertFile, "TLS_KEY="+client.KeyFile, "TLS_CA="+ca.File, "APP_OUTPUT="+e.app.Output,
		fmt.Sprintf("ENTRY=%d,%d", entX+entW/2, entY+entH/2), fmt.Sprintf("SCREEN=%dx%d", screenW, screenH))
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
	// The app's own output, read here too: the text typed over mTLS replaced the first session's text.
	e.app.waitLine(t, "entry: über mTLS 東京", 5*time.Second)
}
