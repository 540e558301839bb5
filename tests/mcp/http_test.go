package mcp_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// bearer adds a bearer token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// startHTTP starts the environment with the broker's MCP endpoint on a loopback port.
func startHTTP(t *testing.T) *env {
	return startConfig(t, func(cfg map[string]any) {
		cfg["mcp"] = map[string]any{"listen": "127.0.0.1:0", "model": fmt.Sprintf("%dx%d", modelW, modelH)}
	})
}

// mintToken asks the broker for an MCP token on the guest.
func mintToken(t *testing.T, e *env) *brokerv1.CreateMcpTokenResponse {
	t.Helper()
	tok, err := brokerv1.NewMcpServiceClient(e.conn).CreateMcpToken(ctxT(t, 10*time.Second), &brokerv1.CreateMcpTokenRequest{Guest: e.broker.Guest, Label: "http-test"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tok.GetUrl(), "http://127.0.0.1:") || !strings.HasPrefix(tok.GetToken(), "gbm_") {
		t.Fatalf("token answer %v, want an http://127.0.0.1 url and a gbm_ token", tok)
	}
	return tok
}

// TestGoClientStreamableHTTP drives the broker's streamable-HTTP endpoint with the Go SDK's client: requests
// without a token or with a wrong one are refused with 401; with a minted token a click lands at the mapped pixel
// and typed text in the app; the MCP session is one broker session of the token's principal with its label, closed
// when the MCP session ends; minting is audited with the token's id; neither the token nor the typed canary
// appears in the broker's log or audit.
func TestGoClientStreamableHTTP(t *testing.T) {
	e := startHTTP(t)
	padX, padY, padW, padH := e.app.geometry(t, "pad")
	entX, entY, entW, entH := e.app.geometry(t, "entry")
	tok := mintToken(t, e)

	for _, h := range []string{"", "Bearer gbm_not-a-minted-token", "Bearer " + tok.GetToken() + "x"} {
		req, _ := http.NewRequest(http.MethodPost, tok.GetUrl(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if h != "" {
			req.Header.Set("Authorization", h)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("initialize with Authorization %q: HTTP %d, want 401", strings.ReplaceAll(h, tok.GetToken(), "<token>"), resp.StatusCode)
		}
	}

	cl := mcp.NewClient(&mcp.Implementation{Name: "glovebox-http-test", Version: "0"}, nil)
	cs, err := cl.Connect(ctxT(t, 30*time.Second), &mcp.StreamableClientTransport{Endpoint: tok.GetUrl(),
		HTTPClient: &http.Client{Transport: bearer{tok.GetToken()}}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, e.broker.Log.String())
	}
	c := &client{t: t, cs: cs}
	mx, my := toModel(padX, padY, padW, padH)
	sx, sy := toScreen(mx, my)
	c.call("computer", map[string]any{"action": "left_click", "coordinate": []int{mx, my}}, true)
	e.app.waitLine(t, fmt.Sprintf("press %d %d", sx, sy), 5*time.Second)
	ex, ey := toModel(entX, entY, entW, entH)
	c.call("computer", map[string]any{"action": "left_click", "coordinate": []int{ex, ey}}, true)
	canary := canaryText(t)
	c.call("type_text", map[string]any{"text": canary}, true)
	e.app.waitLine(t, "entry: "+canary, 5*time.Second)

	sessions := brokerv1.NewSessionServiceClient(e.conn)
	list, err := sessions.ListSessions(ctxT(t, 10*time.Second), &brokerv1.ListSessionsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var sid string
	for _, s := range list.GetSessions() {
		if s.GetLabel() == "http-test" && s.GetState() == brokerv1.SessionState_SESSION_STATE_OPEN {
			sid = s.GetId()
			if s.GetPrincipal() != "tester" || s.GetGuest() != e.broker.Guest {
				t.Errorf("MCP's broker session %v, want principal tester on %s", s, e.broker.Guest)
			}
		}
	}
	if sid == "" {
		t.Fatalf("no open broker session labelled http-test in %v", list.GetSessions())
	}

	cs.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		g, err := sessions.GetSession(ctxT(t, 5*time.Second), &brokerv1.GetSessionRequest{SessionId: sid})
		if err == nil && g.GetSession().GetState() == brokerv1.SessionState_SESSION_STATE_CLOSED {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("broker session %s not closed within 10s of the MCP session's end: %v %v", sid, g, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	audit := auditText(t, e.broker.AuditDir)
	if !regexp.MustCompile(`"rpc":"/glovebox.broker.v1.McpService/CreateMcpToken".*"token_id":"[0-9a-f]{8}"`).MatchString(audit) {
		t.Errorf("the audit log has no CreateMcpToken record with the token's id")
	}
	for what, s := range map[string]string{"broker log": e.broker.Log.String(), "audit files": audit} {
		if strings.Contains(s, canary) {
			t.Errorf("typed text appears in the %s", what)
		}
		if strings.Contains(s, tok.GetToken()) {
			t.Errorf("the MCP token appears in the %s", what)
		}
	}
}
