// Package auth authenticates the broker's callers: on unix sockets by the peer uid (SO_PEERCRED), on TCP by
// the verified TLS client certificate, each mapped to a configured principal during the transport handshake.
// A TLS peer without a known certificate is refused in the handshake; a unix peer with an unknown uid is
// admitted to the transport only to have every RPC refused with PERMISSION_DENIED naming its uid (a refused
// handshake reads as UNAVAILABLE, which clients retry forever). A per-RPC interceptor puts the principal in
// the context.
package auth

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"

	"golang.org/x/sys/unix"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"glovebox.dev/host/internal/config"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// Directory maps authenticated identities to principals.
type Directory struct {
	byUID  map[uint32]*config.Principal
	byCert map[string]*config.Principal
	byName map[string]*config.Principal
}

// NewDirectory indexes the configured principals.
func NewDirectory(ps []config.Principal) *Directory {
	d := &Directory{byUID: map[uint32]*config.Principal{}, byCert: map[string]*config.Principal{}, byName: map[string]*config.Principal{}}
	for i := range ps {
		p := &ps[i]
		d.byName[p.Name] = p
		for _, u := range p.UIDs {
			d.byUID[u] = p
		}
		for _, n := range p.CertNames {
			d.byCert[n] = p
		}
	}
	return d
}

// ByName returns the principal named name, or nil.
func (d *Directory) ByName(name string) *config.Principal { return d.byName[name] }

// ByCert returns the principal of a verified client certificate: the first whose cert_names holds the
// certificate's CommonName or one of its DNS SANs.
func (d *Directory) ByCert(c *x509.Certificate) *config.Principal {
	if p := d.byCert[c.Subject.CommonName]; p != nil && c.Subject.CommonName != "" {
		return p
	}
	for _, n := range c.DNSNames {
		if p := d.byCert[n]; p != nil {
			return p
		}
	}
	return nil
}

// AuthInfo is the credentials.AuthInfo of an authenticated connection.
type AuthInfo struct {
	credentials.CommonAuthInfo
	// Principal is who the peer is.
	Principal *config.Principal
	// Via says how: "uid 1000" or "cert CN=ci".
	Via string
}

// AuthType names the mechanism.
func (a AuthInfo) AuthType() string { return "glovebox" }

// ErrUnknownPeer is returned by the handshake of a peer no principal matches.
var ErrUnknownPeer = errors.New("unknown peer")

// Credentials are the broker's transport credentials: a unix connection is authenticated by its peer uid,
// any other connection by TLS with a verified client certificate (TLS may be nil when no TCP listener is
// configured; a non-unix connection is then refused).
type Credentials struct {
	dir *Directory
	tls credentials.TransportCredentials
	log *slog.Logger
}

// NewCredentials returns the broker's credentials.
func NewCredentials(dir *Directory, tlsConf *tls.Config, log *slog.Logger) *Credentials {
	c := &Credentials{dir: dir, log: log}
	if tlsConf != nil {
		c.tls = credentials.NewTLS(tlsConf)
	}
	return c
}

// ServerHandshake authenticates conn and maps it to a principal, or refuses it with a log line.
func (c *Credentials) ServerHandshake(conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	if lc, ok := conn.(*LocalConn); ok {
		return conn, localAuthInfo(lc), nil
	}
	if uc, ok := conn.(*net.UnixConn); ok {
		uid, err := PeerUID(uc)
		if err != nil {
			c.log.Warn("refused connection", "transport", "unix", "error", err)
			return nil, nil, err
		}
		info := AuthInfo{CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.PrivacyAndIntegrity}, Principal: c.dir.byUID[uid], Via: fmt.Sprintf("uid %d", uid)}
		if info.Principal == nil {
			// Admitted to the transport without a principal, so that every RPC on it is answered
			// PERMISSION_DENIED with the reason (a refused handshake is UNAVAILABLE, which clients retry
			// forever); the interceptors serve it nothing else.
			c.log.Warn("refused connection", "transport", "unix", "uid", uid, "error", ErrUnknownPeer)
		}
		return conn, info, nil
	}
	if c.tls == nil {
		c.log.Warn("refused connection", "remote", conn.RemoteAddr().String(), "error", "not a unix socket and no TLS configured")
		return nil, nil, fmt.Errorf("no tls configured: %w", ErrUnknownPeer)
	}
	tc, info, err := c.tls.ServerHandshake(conn)
	if err != nil {
		c.log.Warn("refused connection", "transport", "tcp", "remote", conn.RemoteAddr().String(), "error", err)
		return nil, nil, err
	}
	ti, _ := info.(credentials.TLSInfo)
	if len(ti.State.PeerCertificates) == 0 {
		tc.Close()
		c.log.Warn("refused connection", "transport", "tcp", "remote", conn.RemoteAddr().String(), "error", "no client certificate")
		return nil, nil, fmt.Errorf("no client certificate: %w", ErrUnknownPeer)
	}
	cert := ti.State.PeerCertificates[0]
	p := c.dir.ByCert(cert)
	if p == nil {
		tc.Close()
		c.log.Warn("refused connection", "transport", "tcp", "remote", conn.RemoteAddr().String(), "cn", cert.Subject.CommonName, "error", ErrUnknownPeer)
		return nil, nil, fmt.Errorf("certificate %q: %w", cert.Subject.CommonName, ErrUnknownPeer)
	}
	return tc, AuthInfo{CommonAuthInfo: ti.CommonAuthInfo, Principal: p, Via: "cert CN=" + cert.Subject.CommonName}, nil
}

// ClientHandshake is not used: the broker's credentials are server-side only.
func (c *Credentials) ClientHandshake(ctx context.Context, _ string, conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return nil, nil, errors.New("broker credentials are server-side only")
}

// Info describes the protocol.
func (c *Credentials) Info() credentials.ProtocolInfo {
	return credentials.ProtocolInfo{SecurityProtocol: "glovebox"}
}

// Clone returns c (it holds no per-connection state).
func (c *Credentials) Clone() credentials.TransportCredentials { return c }

// OverrideServerName is deprecated in grpc and a no-op here.
func (c *Credentials) OverrideServerName(string) error { return nil }

// PeerUID returns the uid of the process on the other end of a unix socket.
func PeerUID(c *net.UnixConn) (uint32, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, err
	}
	var cred *unix.Ucred
	var serr error
	if err := raw.Control(func(fd uintptr) { cred, serr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) }); err != nil {
		return 0, err
	}
	if serr != nil {
		return 0, fmt.Errorf("SO_PEERCRED: %w", serr)
	}
	return cred.Uid, nil
}

// ServerTLS builds the TCP listener's tls.Config: TLS 1.3, the broker's certificate, and a client certificate
// required and verified against the client CA.
func ServerTLS(t *config.TLS) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(t.Cert, t.Key)
	if err != nil {
		return nil, fmt.Errorf("tls.cert/tls.key: %w", err)
	}
	pem, err := os.ReadFile(t.ClientCA)
	if err != nil {
		return nil, fmt.Errorf("tls.client_ca: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("tls.client_ca: no PEM certificate in %s", t.ClientCA)
	}
	return &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{cert},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    pool,
	}, nil
}

// Caller is what the broker knows about the caller of one RPC. The principal is set by the interceptor;
// Session and Guest are filled in by the handler so the RPC log line and metrics can name them.
type Caller struct {
	Principal *config.Principal
	Session   string
	Guest     string
}

type callerKey struct{}

// WithCaller returns ctx carrying c.
func WithCaller(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller of the RPC, or nil outside an authenticated RPC.
func CallerFrom(ctx context.Context) *Caller {
	c, _ := ctx.Value(callerKey{}).(*Caller)
	return c
}

// principalOf reads the principal the handshake attached to the connection. A unix peer whose uid is no
// principal's gets PERMISSION_DENIED naming its uid (the reason is the caller's own identity, nothing of the
// broker's configuration).
func principalOf(ctx context.Context) (*config.Principal, error) {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return nil, status.Error(codes.Unauthenticated, "no peer")
	}
	ai, ok := p.AuthInfo.(AuthInfo)
	switch {
	case !ok:
		return nil, status.Error(codes.Unauthenticated, "unauthenticated connection")
	case ai.Principal == nil:
		return nil, errgrpc.ToStatus(fmt.Errorf("unix peer %s is not a principal of this broker; ask its operator to add it: %w", ai.Via, errdefs.ErrPermissionDenied)).Err()
	}
	return ai.Principal, nil
}

// UnaryServerInterceptor puts the connection's principal into the context as a *Caller.
func UnaryServerInterceptor() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		p, err := principalOf(ctx)
		if err != nil {
			return nil, err
		}
		return handler(WithCaller(ctx, &Caller{Principal: p}), req)
	}
}

// StreamServerInterceptor is UnaryServerInterceptor for streams.
func StreamServerInterceptor() grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		p, err := principalOf(ss.Context())
		if err != nil {
			return err
		}
		return handler(srv, &stream{ServerStream: ss, ctx: WithCaller(ss.Context(), &Caller{Principal: p})})
	}
}

type stream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *stream) Context() context.Context { return s.ctx }
