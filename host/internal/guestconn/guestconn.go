// Package guestconn keeps one long-lived gRPC connection to one guest's glovebox-agent: it reconnects with
// backoff, reports the connection state, and on every new transport asks the agent who it is (GetInfo) and
// releases every key and button held on the guest's X server before any session call goes through. Every
// call has a deadline; a guest that hangs or is gone costs its callers an UNAVAILABLE naming the guest.
package guestconn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/endpoint"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// Connection tuning.
const (
	// MaxMessageBytes matches the agent's message limit (full-screen PNGs of large displays).
	MaxMessageBytes = 32 << 20
	// keepaliveTime pings an idle transport with calls in flight so a dead peer is noticed. glovebox-agent
	// accepts pings every 10 s or more (guest/internal/server KeepaliveMinTime); a shorter time here would get
	// the connection closed with GOAWAY too_many_pings.
	keepaliveTime    = 30 * time.Second
	keepaliveTimeout = 10 * time.Second
	// maxBackoff caps reconnect backoff so a guest that comes back is reconnected within seconds.
	maxBackoff = 3 * time.Second
	// retryHandshake is how long to wait before retrying a failed GetInfo/release on a live transport.
	retryHandshake = 500 * time.Millisecond
	// refreshInfo is how often a READY guest's GetInfo is asked again while one of its backends is not
	// available: an agent started before its display (a VM boot) attaches the desktop a few seconds after it
	// first answers, and callers of GetGuest should see that without a reconnect.
	refreshInfo = time.Second
)

// Options configure a Conn.
type Options struct {
	// Timeout bounds every call (plus the extra a call asks for).
	Timeout time.Duration
	Logger  *slog.Logger
	// OnReady is called after each successful handshake on a new transport, with the agent's info and
	// whether the agent's generation differs from the previous handshake's (the agent restarted).
	OnReady func(info *agentv1.GetInfoResponse, restarted bool)
	// OnState is called on every state change (metrics).
	OnState func(old, new brokerv1.GuestState)
}

// Status is a snapshot of the connection state.
type Status struct {
	State     brokerv1.GuestState
	LastError string
	Since     time.Time
	// Info is the agent's GetInfo answer at the last handshake; nil before the first.
	Info *agentv1.GetInfoResponse
}

// Conn is the connection to one guest.
type Conn struct {
	name string
	opts Options
	cc   *grpc.ClientConn
	log  *slog.Logger

	observe   agentv1.ObserveServiceClient
	act       agentv1.ActServiceClient
	clipboard agentv1.ClipboardServiceClient
	agent     agentv1.AgentServiceClient
	a11y      agentv1.AccessibilityServiceClient
	browser   agentv1.BrowserServiceClient
	files     agentv1.FilesServiceClient

	cancel    context.CancelFunc
	done      chan struct{} // closed when run returns
	refreshed chan struct{} // closed when refresh returns

	mu sync.Mutex
	st Status
}

// New starts connecting to the agent at uri. It fails only on a bad endpoint.
func New(name, uri string, opts Options) (*Conn, error) {
	target, dopts, err := dialTarget(uri)
	if err != nil {
		return nil, fmt.Errorf("guest %s endpoint: %w", name, err)
	}
	bc := backoff.DefaultConfig
	bc.BaseDelay, bc.MaxDelay = 100*time.Millisecond, maxBackoff
	dopts = append(dopts,
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: bc, MinConnectTimeout: opts.Timeout}),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: keepaliveTime, Timeout: keepaliveTimeout}),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessageBytes), grpc.MaxCallSendMsgSize(MaxMessageBytes)),
	)
	dopts = append(dopts, endpoint.WindowOptions()...)
	cc, err := grpc.NewClient(target, dopts...)
	if err != nil {
		return nil, fmt.Errorf("guest %s: %w", name, err)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Conn{
		name: name, opts: opts, cc: cc, log: opts.Logger.With("guest", name),
		observe: agentv1.NewObserveServiceClient(cc), act: agentv1.NewActServiceClient(cc),
		clipboard: agentv1.NewClipboardServiceClient(cc), agent: agentv1.NewAgentServiceClient(cc),
		a11y: agentv1.NewAccessibilityServiceClient(cc), browser: agentv1.NewBrowserServiceClient(cc),
		files:  agentv1.NewFilesServiceClient(cc),
		cancel: cancel, done: make(chan struct{}), refreshed: make(chan struct{}),
		st: Status{State: brokerv1.GuestState_GUEST_STATE_CONNECTING, Since: time.Now()},
	}
	go c.run(ctx)
	go func() {
		defer close(c.refreshed)
		c.refresh(ctx)
	}()
	return c, nil
}

// refresh asks a READY guest for its info again while any of its backends is not available.
func (c *Conn) refresh(ctx context.Context) {
	t := time.NewTicker(refreshInfo)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		st := c.Status()
		if st.State != brokerv1.GuestState_GUEST_STATE_READY || allAvailable(st.Info) {
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
		info, err := c.agent.GetInfo(rctx, &agentv1.GetInfoRequest{})
		cancel()
		if err != nil {
			continue
		}
		c.mu.Lock()
		// Only the same agent process: a new one is the handshake's to report (and to release input for).
		if c.st.Info != nil && c.st.Info.GetGeneration() == info.GetGeneration() {
			c.st.Info = info
		}
		c.mu.Unlock()
	}
}

// allAvailable reports whether every backend in info is available.
func allAvailable(info *agentv1.GetInfoResponse) bool {
	if info == nil {
		return false
	}
	for _, b := range info.GetCapabilities() {
		if b.GetState() != agentv1.CapabilityState_CAPABILITY_STATE_AVAILABLE {
			return false
		}
	}
	return true
}

// dialTarget turns an endpoint URI into a grpc target. Guest transports are local to the host (vsock, unix,
// loopback tcp), so the connection itself is not encrypted.
func dialTarget(uri string) (string, []grpc.DialOption, error) {
	ep, err := endpoint.Parse(uri)
	if err != nil {
		return "", nil, err
	}
	target, opts := endpoint.GRPCTarget(ep)
	return target, append(opts, grpc.WithTransportCredentials(insecure.NewCredentials())), nil
}

// Name is the guest's name.
func (c *Conn) Name() string { return c.name }

// Status returns the current state.
func (c *Conn) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st
}

// Close stops reconnecting and closes the connection.
func (c *Conn) Close() {
	c.cancel()
	c.cc.Close()
	<-c.done
	<-c.refreshed
}

func (c *Conn) setState(s brokerv1.GuestState, lastErr string) {
	c.mu.Lock()
	old := c.st.State
	if old != s {
		c.st.Since = time.Now()
	}
	c.st.State, c.st.LastError = s, lastErr
	c.mu.Unlock()
	if old != s {
		c.log.Info("guest state", "state", s.String(), "last_error", lastErr)
		if c.opts.OnState != nil {
			c.opts.OnState(old, s)
		}
	}
}

// run follows the channel's connectivity state. Every time the channel becomes READY after being anything
// else, it is a new transport (a new agent process, perhaps), so the handshake runs again before the guest
// is reported READY and session calls go through.
func (c *Conn) run(ctx context.Context) {
	defer close(c.done)
	ready := false
	for {
		s := c.cc.GetState()
		switch s {
		case connectivity.Shutdown:
			return
		case connectivity.Idle:
			c.cc.Connect()
			if c.Status().State != brokerv1.GuestState_GUEST_STATE_UNREACHABLE {
				c.setState(brokerv1.GuestState_GUEST_STATE_CONNECTING, "")
			}
		case connectivity.Connecting:
			if c.Status().State == brokerv1.GuestState_GUEST_STATE_READY {
				c.setState(brokerv1.GuestState_GUEST_STATE_CONNECTING, "")
			}
		case connectivity.TransientFailure:
			c.setState(brokerv1.GuestState_GUEST_STATE_UNREACHABLE, c.probe(ctx))
		case connectivity.Ready:
			if !ready {
				if err := c.handshake(ctx); err != nil {
					if ctx.Err() != nil {
						return
					}
					c.setState(brokerv1.GuestState_GUEST_STATE_UNREACHABLE, err.Error())
					wctx, cancel := context.WithTimeout(ctx, retryHandshake)
					if c.cc.WaitForStateChange(wctx, s) {
						ready = false
					}
					cancel()
					continue
				}
				ready = true
				c.setState(brokerv1.GuestState_GUEST_STATE_READY, "")
			}
		}
		if !c.cc.WaitForStateChange(ctx, s) {
			return
		}
		if s == connectivity.Ready {
			ready = false
			c.setState(brokerv1.GuestState_GUEST_STATE_CONNECTING, "")
		}
	}
}

// probe makes a fail-fast call to learn why the channel is failing.
func (c *Conn) probe(ctx context.Context) string {
	pctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_, err := c.agent.GetInfo(pctx, &agentv1.GetInfoRequest{})
	if err == nil {
		return ""
	}
	return status.Convert(err).Message()
}

// handshake asks the agent who it is, then releases everything held on its X server: whatever sessions held
// before the transport broke belongs to nobody now.
func (c *Conn) handshake(ctx context.Context) error {
	hctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	info, err := c.agent.GetInfo(hctx, &agentv1.GetInfoRequest{})
	if err != nil {
		return fmt.Errorf("get info: %s", status.Convert(err).Message())
	}
	rel := &agentv1.ActRequest{Owner: "broker", Action: &agentv1.ActRequest_ReleaseAll{ReleaseAll: &agentv1.ReleaseAll{Everything: true}}}
	if _, err := c.act.Act(hctx, rel); err != nil {
		// An agent without an input backend cannot hold anything; anything else is a failed handshake.
		if errdefs.Reason(errgrpc.FromError(err)) != agentv1.ErrorReason_ERROR_REASON_CAPABILITY_UNAVAILABLE {
			return fmt.Errorf("release all: %s", status.Convert(err).Message())
		}
	}
	c.mu.Lock()
	restarted := c.st.Info != nil && c.st.Info.GetGeneration() != info.GetGeneration()
	c.st.Info = info
	c.mu.Unlock()
	c.log.Info("guest handshake", "agent_version", info.GetVersion(), "agent_generation", info.GetGeneration(), "restarted", restarted)
	if c.opts.OnReady != nil {
		c.opts.OnReady(info, restarted)
	}
	return nil
}

// Ready returns nil when calls may go to the guest, else an error wrapping errdefs.ErrUnavailable that says
// why.
func (c *Conn) Ready() error {
	st := c.Status()
	if st.State == brokerv1.GuestState_GUEST_STATE_READY {
		return nil
	}
	if st.LastError != "" {
		return fmt.Errorf("guest %s is %s: %s: %w", c.name, stateName(st.State), st.LastError, errdefs.ErrUnavailable)
	}
	return fmt.Errorf("guest %s is %s: %w", c.name, stateName(st.State), errdefs.ErrUnavailable)
}

func stateName(s brokerv1.GuestState) string {
	switch s {
	case brokerv1.GuestState_GUEST_STATE_CONNECTING:
		return "connecting"
	case brokerv1.GuestState_GUEST_STATE_UNREACHABLE:
		return "unreachable"
	}
	return "not ready"
}

// Clients are the agent's services on this connection; use them inside Call.
type Clients struct {
	Observe   agentv1.ObserveServiceClient
	Act       agentv1.ActServiceClient
	Clipboard agentv1.ClipboardServiceClient
	Agent     agentv1.AgentServiceClient
	// Accessibility and Browser serve the AT-SPI and Chromium reads.
	Accessibility agentv1.AccessibilityServiceClient
	Browser       agentv1.BrowserServiceClient
	// Files serves drops and file reads (streams: use Stream and Translate).
	Files agentv1.FilesServiceClient
}

// Call runs fn against the guest when it is ready, with a deadline of the configured timeout plus extra
// (the action's own duration), and translates the result: the agent's own errors pass through with their
// status and reason; a deadline or a broken transport becomes an error wrapping errdefs.ErrUnavailable that
// names the guest.
func (c *Conn) Call(ctx context.Context, extra time.Duration, fn func(ctx context.Context, cl Clients) error) error {
	if err := c.Ready(); err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, c.opts.Timeout+extra)
	defer cancel()
	return c.translate(ctx, fn(cctx, c.clients()), c.opts.Timeout+extra)
}

// Stream returns the clients for a streaming call (which has no overall deadline) when the guest is ready;
// pass the stream's errors through Translate.
func (c *Conn) Stream() (Clients, error) {
	if err := c.Ready(); err != nil {
		return Clients{}, err
	}
	return c.clients(), nil
}

// Translate is Call's error translation for errors of streams obtained with Stream.
func (c *Conn) Translate(ctx context.Context, err error) error { return c.translate(ctx, err, 0) }

func (c *Conn) clients() Clients {
	return Clients{Observe: c.observe, Act: c.act, Clipboard: c.clipboard, Agent: c.agent, Accessibility: c.a11y, Browser: c.browser, Files: c.files}
}

func (c *Conn) translate(ctx context.Context, err error, limit time.Duration) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetDomain() == errgrpc.Domain {
			return errgrpc.FromError(err)
		}
	}
	switch st.Code() {
	case codes.DeadlineExceeded:
		c.log.Warn("guest call timed out", "timeout", limit)
		return fmt.Errorf("guest %s: no answer within %s: %w", c.name, limit, errdefs.ErrUnavailable)
	case codes.Unavailable, codes.Canceled:
		return fmt.Errorf("guest %s: %s: %w", c.name, st.Message(), errdefs.ErrUnavailable)
	}
	return errgrpc.FromError(err)
}

// IsUnavailable says whether err is a guest-unavailable error.
func IsUnavailable(err error) bool { return errors.Is(err, errdefs.ErrUnavailable) }
