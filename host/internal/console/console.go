// Package console is glovebox-broker's web console: the page a supervising person opens from a viewer link
// (static ES modules embedded in the binary), and the WebSocket behind it that carries the guest's screen as
// damage-driven tiles, the guest's sessions, control and help requests, and, in CONTROL mode while the person
// holds the control lease, their pointer and keyboard into the broker's mutation path.
package console

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"glovebox.dev/host/internal/auth"
	"glovebox.dev/host/internal/broker"
	"glovebox.dev/host/internal/config"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
)

//go:embed static
var staticFiles embed.FS

// cookieName is the console's session cookie.
const cookieName = "glovebox_console"

// AuditTail reads the newest records of a guest's audit log for the console (package audit's *Log through a
// small adapter); nil: the console shows no audit tail.
type AuditTail func(guest string, n int) ([]*brokerv1.AuditRecord, error)

// Options configure a console Server.
type Options struct {
	Broker *broker.Broker
	Config config.Console
	Logger *slog.Logger
	// Audit may be nil.
	Audit AuditTail
	// Now overrides time.Now (tests of expiry).
	Now func() time.Time
}

// Server is the console: links, cookie sessions, the page and the WebSocket.
type Server struct {
	b       *broker.Broker
	cfg     config.Console
	log     *slog.Logger
	audit   AuditTail
	now     func() time.Time
	secrets *secrets
	static  http.Handler

	mu   sync.Mutex
	base string
	hubs map[string]*hub
}

// New returns a console server; Serve starts it on a listener.
func New(o Options) *Server {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	sub, _ := fs.Sub(staticFiles, "static")
	return &Server{b: o.Broker, cfg: o.Config, log: o.Logger, audit: o.Audit, now: o.Now, secrets: newSecrets(),
		static: http.FileServerFS(sub), base: strings.TrimRight(o.Config.PublicURL, "/"), hubs: map[string]*hub{}}
}

// SetAddr records where the console listens, for links when no public URL is configured.
func (s *Server) SetAddr(addr net.Addr, tls bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.base == "" {
		scheme := "http"
		if tls {
			scheme = "https"
		}
		s.base = scheme + "://" + addr.String()
	}
}

// CreateViewerLink mints a link for the calling principal (ConsoleService).
func (s *Server) CreateViewerLink(ctx context.Context, r *brokerv1.CreateViewerLinkRequest) (*brokerv1.CreateViewerLinkResponse, error) {
	c := auth.CallerFrom(ctx)
	if c == nil || c.Principal == nil {
		return nil, fmt.Errorf("no authenticated principal: %w", errdefs.ErrPermissionDenied)
	}
	c.Guest = r.GetGuest()
	var v errdefs.Violations
	switch r.GetMode() {
	case brokerv1.ViewerMode_VIEWER_MODE_VIEW, brokerv1.ViewerMode_VIEWER_MODE_CONTROL:
	default:
		v.Addf("mode", "must be VIEWER_MODE_VIEW or VIEWER_MODE_CONTROL, got %d", r.GetMode())
	}
	ttl := DefaultLinkTTL
	if n := r.GetTtlSeconds(); n != 0 {
		if n < 1 || n > int32(MaxLinkTTL/time.Second) {
			v.Addf("ttl_seconds", "must be 0 or 1..%d, got %d", int(MaxLinkTTL/time.Second), n)
		}
		ttl = time.Duration(n) * time.Second
	}
	if r.GetGuest() == "" {
		v.Addf("guest", "required")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if _, err := s.b.ConsoleView(c.Principal, r.GetGuest()); err != nil {
		return nil, err
	}
	g := &grant{principal: c.Principal, guest: r.GetGuest(), mode: r.GetMode(), linkID: newLinkID(), expires: s.now().Add(ttl)}
	fields := map[string]string{"link_id": g.linkID, "mode": g.mode.String(), "ttl": ttl.String()}
	if g.mode == brokerv1.ViewerMode_VIEWER_MODE_CONTROL && !c.Principal.Control && !c.Principal.Admin {
		err := fmt.Errorf("principal %s may not take control, so it may not mint a CONTROL link: %w", c.Principal.Name, errdefs.ErrPolicyDenied)
		s.b.AuditConsole(ctx, g.guest, broker.RPCConsoleLink, c.Principal.Name, fields, err)
		return nil, err
	}
	s.mu.Lock()
	base := s.base
	s.mu.Unlock()
	if base == "" {
		return nil, status.Error(codes.FailedPrecondition, "the console is not configured (console.listen)")
	}
	tok := s.secrets.mint(g, s.now())
	s.b.AuditConsole(ctx, g.guest, broker.RPCConsoleLink, c.Principal.Name, fields, nil)
	s.log.Info("console link minted", "guest", g.guest, "principal", c.Principal.Name, "mode", g.mode.String(), "link", g.linkID)
	return &brokerv1.CreateViewerLinkResponse{Url: base + "/link/" + tok, ExpiresAt: timestamppb.New(g.expires), LinkId: g.linkID}, nil
}

// Handler returns the console's HTTP handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /link/{token}", s.openLink)
	mux.HandleFunc("GET /ws", s.serveWS)
	mux.HandleFunc("GET /", s.page)
	return securityHeaders(mux)
}

// securityHeaders keeps the page to itself: no framing, no foreign scripts, no referrer carrying a token.
func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' blob: data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

// openLink exchanges a link's one-time token for the cookie and sends the browser to the page. The token is
// consumed by the first request, valid or expired; a second use finds nothing.
func (s *Server) openLink(w http.ResponseWriter, r *http.Request) {
	cookie, g, res := s.secrets.redeem(r.PathValue("token"), s.now())
	if res != redeemed {
		why := map[redeemResult]string{unknownLink: "unknown", expiredLink: "expired", reusedLink: "already used"}[res]
		if g != nil {
			s.b.AuditConsole(r.Context(), g.guest, broker.RPCConsoleOpen, g.principal.Name,
				map[string]string{"link_id": g.linkID, "mode": g.mode.String(), "why": why}, fmt.Errorf("link %s: %w", why, errdefs.ErrPermissionDenied))
		}
		s.log.Info("console link refused", "why", why, "remote", r.RemoteAddr)
		http.Error(w, "this link is not valid ("+why+"); ask for a new one", http.StatusForbidden)
		return
	}
	s.b.AuditConsole(r.Context(), g.guest, broker.RPCConsoleOpen, g.principal.Name,
		map[string]string{"link_id": g.linkID, "mode": g.mode.String()}, nil)
	s.log.Info("console link opened", "guest", g.guest, "principal", g.principal.Name, "link", g.linkID)
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: cookie, Path: "/", HttpOnly: true, Secure: r.TLS != nil,
		SameSite: http.SameSiteStrictMode, MaxAge: int(ViewerTTL / time.Second)})
	http.Redirect(w, r, "/?guest="+url.QueryEscape(g.guest), http.StatusSeeOther)
}

// viewerOf returns the grant of the request's cookie, or nil.
func (s *Server) viewerOf(r *http.Request) *grant {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return nil
	}
	return s.secrets.viewer(c.Value, s.now())
}

// page serves the static files to a browser holding a console cookie.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	if s.viewerOf(r) == nil {
		http.Error(w, "open the console through a viewer link (glovebox view GUEST)", http.StatusUnauthorized)
		return
	}
	s.static.ServeHTTP(w, r)
}

// sameOrigin reports whether a WebSocket upgrade comes from the console's own page: its Origin must be the
// scheme and host the request came to. Browsers always send Origin on WebSocket requests.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return false
	}
	u, err := url.Parse(o)
	if err != nil {
		return false
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return u.Scheme == scheme && u.Host == r.Host
}

// Serve serves the console on l until ctx ends.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
