package mcp_test

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/testpki"
	"glovebox.dev/tests/internal/agenttest"
)

// TestStreamableHTTPS serves the broker's MCP endpoint over TLS (mcp.tls, the broker's certificate) on loopback: a
// token minted over gRPC names an https URL; plain HTTP to the port gets no MCP answer; over TLS a request without a
// token or with a wrong one is 401; the Go SDK's client, trusting only the test CA, takes a model-sized screenshot
// and clicks the pad (the app's own output shows the mapped pixel); a client that does not trust the CA is
// refused by the handshake; and the official TypeScript SDK does the same over TLS (NODE_EXTRA_CA_CERTS).
func TestStreamableHTTPS(t *testing.T) {
	ca := testpki.New(t)
	server := ca.Server(t, "127.0.0.1")
	e := startConfig(t, func(cfg map[string]any) {
		cfg["tls"] = map[string]any{"cert": server.CertFile, "key": server.KeyFile, "client_ca": ca.File}
		cfg["mcp"] = map[string]any{"listen": "127.0.0.1:0", "tls": true, "model": fmt.Sprintf("%dx%d", modelW, modelH)}
	})
	padX, padY, padW, padH := e.app.geometry(t, "pad")
	tok, err := brokerv1.NewMcpServiceClient(e.conn).CreateMcpToken(ctxT(t, 10*time.Second), &brokerv1.CreateMcpTokenRequest{Guest: e.broker.Guest, Label: "https-test"})
	if err != nil {
		t.Fatal(err)
	}
	url := tok.GetUrl()
	if !strings.HasPrefix(url, "https://127.0.0.1:") {
		t.Fatalf("minted URL %q, want https://127.0.0.1:...", url)
	}
	trusting := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool(), MinVersion: tls.VersionTLS13}}
	t.Cleanup(trusting.CloseIdleConnections)
	initialize := func(c *http.Client, u, auth string) (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		return c.Do(req)
	}

	// Plain HTTP on the TLS port: no MCP answer (the server answers 400 to an HTTP request, or drops it).
	if resp, err := initialize(&http.Client{Timeout: 10 * time.Second}, "http://"+strings.TrimPrefix(url, "https://"), "Bearer "+tok.GetToken()); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("plain HTTP to the TLS endpoint: HTTP %d, want 400 or no answer", resp.StatusCode)
		}
	}
	// A client that does not trust the test CA is refused by the handshake.
	if resp, err := initialize(&http.Client{Timeout: 10 * time.Second}, url, "Bearer "+tok.GetToken()); err == nil {
		resp.Body.Close()
		t.Errorf("a client without the test CA got HTTP %d, want a certificate error", resp.StatusCode)
	}
	for _, h := range []string{"", "Bearer gbm_not-a-minted-token", "Bearer " + tok.GetToken() + "x"} {
		resp, err := initialize(&http.Client{Transport: trusting, Timeout: 10 * time.Second}, url, h)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("initialize over TLS with Authorization %q: HTTP %d, want 401", strings.ReplaceAll(h, tok.GetToken(), "<token>"), resp.StatusCode)
		}
	}

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "glovebox-https-test", Version: "0"}, nil).Connect(ctxT(t, 30*time.Second),
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTLS{tok.GetToken(), trusting}}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("connect over TLS: %v\n%s", err, e.broker.Log.String())
	}
	c := &client{t: t, cs: cs}
	shot := c.call("computer", map[string]any{"action": "screenshot"}, true)
	img, _ := shot.Content[len(shot.Content)-1].(*mcp.ImageContent)
	if img == nil {
		t.Fatalf("screenshot over TLS: no image in %v", shot.Content)
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(img.Data)); err != nil || cfg.Width != modelW || cfg.Height != modelH {
		t.Errorf("screenshot over TLS: %dx%d (%v), want a %dx%d PNG", cfg.Width, cfg.Height, err, modelW, modelH)
	}
	mx, my := toModel(padX, padY, padW/2, padH)
	sx, sy := toScreen(mx, my)
	c.call("computer", map[string]any{"action": "left_click", "coordinate": []int{mx, my}}, true)
	e.app.waitLine(t, fmt.Sprintf("press %d %d", sx, sy), 5*time.Second)
	cs.Close()

	// The official TypeScript SDK over the same TLS endpoint, trusting the test CA through Node's own setting.
	testenv.NeedCommands(t, "node")
	dir := filepath.Join(agenttest.RepoRoot(t), "tests/mcp/js")
	if _, err := os.Stat(filepath.Join(dir, "node_modules/@modelcontextprotocol/sdk/package.json")); err != nil {
		testenv.Missing(t, "tests/mcp/js has no node_modules (scripts/install-deps.sh runs npm ci there)")
		return
	}
	px, py := toModel(padX+padW/2, padY, padW/2, padH)
	cmd := exec.Command("node", "--test", "--test-reporter=spec", "tls.test.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NODE_EXTRA_CA_CERTS="+ca.File, "MCP_URL="+url, "MCP_TOKEN="+tok.GetToken(), fmt.Sprintf("PAD=%d,%d", px, py))
	out, err := runBounded(cmd, 90*time.Second)
	if err != nil {
		t.Fatalf("node --test tls.test.mjs: %v\n%s", err, out)
	}
	qx, qy := toScreen(px, py)
	e.app.waitLine(t, fmt.Sprintf("press %d %d", qx, qy), 5*time.Second)
	if strings.Contains(e.broker.Log.String(), tok.GetToken()) || strings.Contains(auditText(t, e.broker.AuditDir), tok.GetToken()) {
		t.Error("the MCP token appears in the broker's log or audit")
	}
}

// bearerTLS adds a bearer token to every request sent through rt.
type bearerTLS struct {
	token string
	rt    http.RoundTripper
}

func (b bearerTLS) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.rt.RoundTrip(r)
}

// runBounded runs cmd and returns its combined output, killing it after limit.
func runBounded(cmd *exec.Cmd, limit time.Duration) (string, error) {
	out := &agenttest.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		return out.String(), fmt.Errorf("did not finish within %v", limit)
	}
}
