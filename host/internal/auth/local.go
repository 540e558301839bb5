package auth

import (
	"context"
	"errors"
	"net"
	"sync"

	"google.golang.org/grpc/credentials"

	"glovebox.dev/host/internal/config"
)

// LocalConn is an in-process connection to the broker's gRPC server on behalf of a principal the broker
// already authenticated another way (an MCP bearer token). Only code in the broker's process can make one, so
// ServerHandshake trusts its principal.
type LocalConn struct {
	net.Conn
	principal *config.Principal
	via       string
}

// LocalListener is a net.Listener of in-process connections, served by the broker's gRPC server next to its
// unix and TCP listeners, so in-process callers go through the same interceptors, fencing, policy and audit.
type LocalListener struct {
	conns     chan net.Conn
	closeOnce sync.Once
	done      chan struct{}
}

// NewLocalListener returns an open listener.
func NewLocalListener() *LocalListener {
	return &LocalListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// errLocalClosed is Accept's and Dial's error after Close.
var errLocalClosed = errors.New("local listener closed")

// Dial opens a connection as principal p; via says how p was authenticated (for the RPC log line).
func (l *LocalListener) Dial(ctx context.Context, p *config.Principal, via string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- &LocalConn{Conn: server, principal: p, via: via}:
		return client, nil
	case <-l.done:
	case <-ctx.Done():
	}
	client.Close()
	server.Close()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, errLocalClosed
}

// Accept returns the next in-process connection.
func (l *LocalListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, errLocalClosed
	}
}

// Close stops Accept and Dial.
func (l *LocalListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return nil
}

// Addr names the listener.
func (l *LocalListener) Addr() net.Addr { return localAddr{} }

type localAddr struct{}

func (localAddr) Network() string { return "local" }
func (localAddr) String() string  { return "local" }

// localAuthInfo is the AuthInfo of a LocalConn.
func localAuthInfo(c *LocalConn) AuthInfo {
	return AuthInfo{CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.PrivacyAndIntegrity}, Principal: c.principal, Via: c.via}
}
