package mcp

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"glovebox.dev/host/internal/config"
	"glovebox.dev/shared/errgrpc"
)

// Path is where the endpoint serves streamable HTTP.
const Path = "/mcp"

// idleSession closes an MCP session no request reached for this long (its broker session goes with it); the
// broker's own session idle timeout is the same.
const idleSession = 15 * time.Minute

// bare answers the SDK's questions about a server on requests of existing sessions.
var bare = mcp.NewServer(&mcp.Implementation{Name: "glovebox", Version: Version}, nil)

// maxMessageBytes matches the broker's gRPC message limit.
const maxMessageBytes = 32 << 20

// Dialer opens an in-process connection to the broker's gRPC server as principal p (auth.LocalListener.Dial).
type Dialer func(ctx context.Context, p *config.Principal, via string) (net.Conn, error)

// EndpointOptions configure the streamable-HTTP endpoint.
type EndpointOptions struct {
	Tokens *Tokens
	Dial   Dialer
	// Model and ObserveMS are every session's (Options).
	Model     Size
	ObserveMS int32
	Logger    *slog.Logger
}

// Endpoint is the broker's MCP endpoint: bearer token -> grant -> one broker session per MCP session, opened
// over an in-process gRPC connection as the token's principal, so MCP calls pass the same interceptors,
// fencing, policy and audit as any gRPC client.
type Endpoint struct {
	opts EndpointOptions
}

// NewEndpoint returns the endpoint.
func NewEndpoint(opts EndpointOptions) *Endpoint {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Endpoint{opts: opts}
}

type grantKey struct{}

// Handler serves Path: requests without a valid bearer token get 401; the token's id is the MCP session's
// user, so one token's session cannot be used with another token.
func (e *Endpoint) Handler() http.Handler {
	verify := func(ctx context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		g, err := e.opts.Tokens.Verify(tok)
		if err != nil {
			return nil, errors.Join(auth.ErrInvalidToken, err)
		}
		return &auth.TokenInfo{UserID: g.ID, Expiration: g.Expires, Extra: map[string]any{"grant": g}}, nil
	}
	h := mcp.NewStreamableHTTPHandler(e.server, &mcp.StreamableHTTPOptions{SessionTimeout: idleSession, Logger: e.opts.Logger})
	withSlot := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), slotKey{}, &serverSlot{})))
		})
	}
	mux := http.NewServeMux()
	mux.Handle(Path, auth.RequireBearerToken(verify, nil)(withSlot(h)))
	return mux
}

// serverSlot holds the server built for one request: the SDK asks for it more than once per request.
type serverSlot struct {
	once sync.Once
	srv  *mcp.Server
}

type slotKey struct{}

// uninitialized closes a session whose client never finished the MCP handshake.
const uninitialized = 30 * time.Second

// server prepares the session of a new MCP session (nil answers 400). The SDK asks on every request (for the
// protocol versions); only a POST without a session id can start a session, the others get a bare server. The
// broker session is created by the first tool call, since the SDK may build servers it never connects.
func (e *Endpoint) server(req *http.Request) *mcp.Server {
	if req.Method != http.MethodPost || req.Header.Get("Mcp-Session-Id") != "" {
		return bare
	}
	slot, _ := req.Context().Value(slotKey{}).(*serverSlot)
	if slot == nil {
		return nil
	}
	slot.once.Do(func() { slot.srv = e.newServer(req) })
	return slot.srv
}

// newServer prepares one MCP session's broker connection and server.
func (e *Endpoint) newServer(req *http.Request) *mcp.Server {
	ti := auth.TokenInfoFromContext(req.Context())
	if ti == nil {
		return nil
	}
	g, _ := ti.Extra["grant"].(*Grant)
	if g == nil {
		return nil
	}
	log := e.opts.Logger.With("token", g.ID, "principal", g.Principal.Name)
	conn, err := grpc.NewClient("passthrough:///glovebox-broker-local",
		grpc.WithTransportCredentials(insecure.NewCredentials()), // in process: the broker trusts the LocalConn's principal
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			return e.opts.Dial(ctx, g.Principal, "mcp token "+g.ID)
		}),
		grpc.WithChainUnaryInterceptor(errgrpc.UnaryClientInterceptor()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessageBytes), grpc.MaxCallSendMsgSize(maxMessageBytes)))
	if err != nil {
		log.Warn("mcp session refused", "error", err)
		return nil
	}
	ctx, cancel := context.WithTimeout(req.Context(), callTimeout)
	defer cancel()
	s, err := Prepare(ctx, conn, Options{Guest: g.Guest, Label: g.Label, Model: e.opts.Model, ObserveMS: e.opts.ObserveMS, Logger: log})
	if err != nil {
		conn.Close()
		log.Warn("mcp session refused", "error", err)
		return nil
	}
	s.onEnd = func() { conn.Close() }
	time.AfterFunc(uninitialized, func() {
		if !s.initialized.Load() {
			s.Close(context.Background())
		}
	})
	return s.Server()
}
