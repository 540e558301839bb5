package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"google.golang.org/grpc"

	"glovebox.dev/host/internal/auth"
	"glovebox.dev/host/internal/broker"
	"glovebox.dev/host/internal/config"
	"glovebox.dev/host/internal/mcp"
	"glovebox.dev/host/internal/service"
)

// mcpEndpoint is the running MCP endpoint: its HTTP server and the in-process gRPC listener its sessions use.
type mcpEndpoint struct {
	http  *http.Server
	local *auth.LocalListener
}

// startMCP registers McpService on srv and, when mcp.listen is configured, serves the endpoint's HTTP (errors
// of Serve go to errc); the caller serves srv on its local listener. It returns nil when the endpoint is off.
func startMCP(cfg *config.Config, srv *grpc.Server, b *broker.Broker, tlsConf *tls.Config, log *slog.Logger, errc chan<- error) (*mcpEndpoint, error) {
	if cfg.MCP == nil {
		service.RegisterMCP(srv, b, nil, "")
		return nil, nil
	}
	model := mcp.DefaultModelSize
	if cfg.MCP.Model != "" {
		fmt.Sscanf(cfg.MCP.Model, "%dx%d", &model.Width, &model.Height) // validated with the config
	}
	ln, err := net.Listen("tcp", cfg.MCP.Listen)
	if err != nil {
		return nil, fmt.Errorf("mcp.listen: %w", err)
	}
	scheme := "http"
	if tlsConf != nil && (cfg.MCP.TLS || !isLoopback(cfg.MCP.Listen)) {
		// MCP clients authenticate with bearer tokens, not client certificates: the broker's certificate only.
		ln = tls.NewListener(ln, &tls.Config{MinVersion: tls.VersionTLS13, Certificates: tlsConf.Certificates})
		scheme = "https"
	}
	url := scheme + "://" + ln.Addr().String() + mcp.Path
	tokens := mcp.NewTokens()
	service.RegisterMCP(srv, b, tokens, url)
	local := auth.NewLocalListener() // served with the other listeners, once every service is registered
	ep := mcp.NewEndpoint(mcp.EndpointOptions{Tokens: tokens, Dial: local.Dial, Model: model, ObserveMS: cfg.MCP.ObserveMS, Logger: log})
	hs := &http.Server{Handler: ep.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			errc <- fmt.Errorf("mcp: %w", err)
		}
	}()
	log.Info("mcp serving", "url", url)
	return &mcpEndpoint{http: hs, local: local}, nil
}

// close stops the endpoint: no new HTTP requests, then no new in-process connections.
func (e *mcpEndpoint) close() {
	if e == nil {
		return
	}
	e.http.Close()
	e.local.Close()
}

func isLoopback(hostport string) bool {
	host, _, _ := net.SplitHostPort(hostport)
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}
