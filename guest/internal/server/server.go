// Package server is the gRPC facade of glovebox-agent: each service validates its requests completely,
// calls a backend (screen, windows, input, clipboard) through a small interface owned here, and returns
// errors as errdefs classes that one interceptor turns into gRPC status with google.rpc.ErrorInfo.
package server

import (
	"log/slog"
	"runtime"
	"sync/atomic"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/endpoint"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/validate"
	"glovebox.dev/shared/wirecodec"
	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
)

// ProtocolVersion is the API package the agent serves.
const ProtocolVersion = "glovebox.agent.v1"

// Capability is the state of one backend as GetInfo reports it.
type Capability struct {
	State  agentv1.CapabilityState
	Reason string
}

// Available is the capability of a backend that works.
var Available = Capability{State: agentv1.CapabilityState_CAPABILITY_STATE_AVAILABLE}

// Unavailable returns the capability of a backend that cannot be used, with the reason.
func Unavailable(reason string) Capability {
	return Capability{State: agentv1.CapabilityState_CAPABILITY_STATE_UNAVAILABLE, Reason: reason}
}

// Backends are the desktop systems the agent drives. A nil backend is reported as unavailable and its RPCs
// fail with CAPABILITY_UNAVAILABLE.
type Backends struct {
	Screen    Screen
	Windows   Windows
	Input     Input
	Clipboard Clipboard
	// Accessibility is the AT-SPI backend; Browser the browser engines (Chromium over CDP, Firefox over BiDi).
	Accessibility Accessibility
	Browser       Browser
	// Files moves files in and out (drops, reads); it needs only the home directory.
	Files Files
	// Missing says why a nil backend could not start (for example the X connection error); GetInfo reports it.
	Missing map[agentv1.Backend]string
}

// Options configures the services.
type Options struct {
	// Version is the agent build version reported by GetInfo.
	Version string
	// XDisplay is the X display name reported by GetInfo.
	XDisplay string
	// Generation is the guest generation this agent process runs in.
	Generation uint64
	Logger     *slog.Logger
}

// Services holds the agent's gRPC services.
type Services struct {
	opts     Options
	backends atomic.Pointer[Backends]
	log      *slog.Logger
	// inputQueue serializes everything that sends input (Act, PasteText) in arrival order: one input device.
	inputQueue fifo
}

// New returns the services over the given backends.
func New(opts Options, b Backends) *Services {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Services{opts: opts, log: log}
	s.SetBackends(b)
	return s
}

// SetBackends replaces the backends, for example once the X display the agent waited for appears. Requests
// already running keep the backends they started with.
func (s *Services) SetBackends(b Backends) { s.backends.Store(&b) }

// b returns the current backends.
func (s *Services) b() *Backends { return s.backends.Load() }

// Register registers every agent service on s.
func (s *Services) Register(g *grpc.Server) {
	agentv1.RegisterAgentServiceServer(g, &agentService{s: s})
	agentv1.RegisterObserveServiceServer(g, newObserveService(s))
	agentv1.RegisterActServiceServer(g, newActService(s))
	agentv1.RegisterClipboardServiceServer(g, newClipboardService(s))
	agentv1.RegisterAccessibilityServiceServer(g, newAccessibilityService(s))
	agentv1.RegisterBrowserServiceServer(g, newBrowserService(s))
	agentv1.RegisterFilesServiceServer(g, newFilesService(s))
}

// ServerOptions returns the grpc.ServerOptions every agent server uses: interceptors that log one line per
// RPC and turn errdefs classes into status with ErrorInfo, the codec that makes invalid UTF-8 in a string
// field a BadRequest naming the field (grpc-go's own codec makes it INTERNAL), and the message size limits.
func (s *Services) ServerOptions() []grpc.ServerOption {
	return append([]grpc.ServerOption{
		// Logging sees the final status, so it runs outside the errdefs -> status translation, and that runs
		// outside the check of the codec's UTF-8 findings, whose *errdefs.BadRequest it converts.
		grpc.ForceServerCodecV2(wirecodec.Codec{}),
		grpc.ChainUnaryInterceptor(logUnary(s.log), errgrpc.UnaryServerInterceptor(), wirecodec.UnaryServerInterceptor()),
		grpc.ChainStreamInterceptor(logStream(s.log), errgrpc.StreamServerInterceptor(), wirecodec.StreamServerInterceptor()),
		// Requests: no valid one is larger (a 16 MiB clipboard text); a larger one is refused unread.
		grpc.MaxRecvMsgSize(validate.MaxRequestBytes),
		grpc.MaxSendMsgSize(MaxMessageBytes),
		// Reused goroutines for RPCs instead of a new one each, whose stack grpc and the backends would grow
		// (copy) several times on every request. A stream that finds every worker busy gets its own.
		grpc.NumStreamWorkers(uint32(runtime.GOMAXPROCS(0))),
		// The broker pings its guest connections (every 30 s, with or without calls in flight); grpc-go's
		// default policy (one ping per 5 minutes, none without a stream) would answer those pings with
		// GOAWAY too_many_pings and cut the broker off.
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: KeepaliveMinTime, PermitWithoutStream: true}),
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: keepaliveTime, Timeout: keepaliveTimeout}),
	}, endpoint.ServerWindowOptions()...)
}

// KeepaliveMinTime is the shortest ping interval the agent accepts from a client; a client pinging more
// often is sent GOAWAY. glovebox-broker pings every 30 s.
const KeepaliveMinTime = 10 * time.Second

// keepaliveTime and keepaliveTimeout make the agent ping a connection idle for 30 s and close it when the
// ping is not answered within 10 s, so a vanished broker's connection (a VM host that paused, a killed
// process behind a vsock proxy) does not linger.
const (
	keepaliveTime    = 30 * time.Second
	keepaliveTimeout = 10 * time.Second
)

// MaxMessageBytes bounds every response (an 8K PNG screenshot); requests are bounded by validate.MaxRequestBytes.
const MaxMessageBytes = 32 << 20
