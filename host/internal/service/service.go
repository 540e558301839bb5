// Package service holds glovebox-broker's gRPC services: thin facades that unwrap requests, call the
// broker, and wrap responses. Errors are translated once, by the errgrpc interceptor installed by Options;
// the RPC log line and metrics come from Interceptors.
package service

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"glovebox.dev/host/internal/auth"
	"glovebox.dev/host/internal/broker"
	"glovebox.dev/host/internal/config"
	"glovebox.dev/host/internal/metrics"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/endpoint"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/validate"
	"glovebox.dev/shared/wirecodec"
)

// MaxMessageBytes bounds every response (screenshots of large displays); requests are bounded by validate.MaxRequestBytes.
const MaxMessageBytes = 32 << 20

// Register registers the broker's services on s. audit may be nil (AuditService then answers UNAVAILABLE);
// links may be nil (the console is not configured: CreateViewerLink answers FAILED_PRECONDITION).
func Register(s *grpc.Server, b *broker.Broker, audit AuditReader, links LinkMinter) {
	brokerv1.RegisterGuestServiceServer(s, &Guests{b: b})
	brokerv1.RegisterHandoffServiceServer(s, &Handoff{b: b})
	brokerv1.RegisterConsoleServiceServer(s, &Console{links: links})
	brokerv1.RegisterSessionServiceServer(s, &Sessions{b: b})
	brokerv1.RegisterComputerServiceServer(s, &Computer{b: b})
	brokerv1.RegisterFilesServiceServer(s, &Files{b: b})
	brokerv1.RegisterControlServiceServer(s, &Control{b: b})
	brokerv1.RegisterAuditServiceServer(s, &Audit{b: b, log: audit})
	brokerv1.RegisterRecordingServiceServer(s, &Recordings{b: b})
}

// ServerOptions are the broker server's options: message limits, the codec that makes invalid UTF-8 in a
// string field a BadRequest naming the field (grpc-go's own codec makes it INTERNAL), and the interceptor
// chain authentication (principal into the context) -> RPC log line and metrics -> error translation ->
// the check of the codec's UTF-8 findings, whose refusals of computer requests b audits (b may be nil).
func ServerOptions(log *slog.Logger, m *metrics.Metrics, b *broker.Broker) []grpc.ServerOption {
	return append([]grpc.ServerOption{
		grpc.ForceServerCodecV2(wirecodec.Codec{}),
		// Requests: no valid one is larger (a 16 MiB clipboard text); a larger one is refused unread.
		grpc.MaxRecvMsgSize(validate.MaxRequestBytes), grpc.MaxSendMsgSize(MaxMessageBytes),
		// Reused goroutines for RPCs instead of a new one each: a new goroutine's stack is grown (copied)
		// several times on the way through grpc, the broker and the audit log, on every request. A stream
		// that finds every worker busy still gets its own goroutine.
		grpc.NumStreamWorkers(uint32(runtime.GOMAXPROCS(0))),
		grpc.ChainUnaryInterceptor(auth.UnaryServerInterceptor(), unaryLog(log, m), errgrpc.UnaryServerInterceptor(), unaryWire(b)),
		grpc.ChainStreamInterceptor(auth.StreamServerInterceptor(), streamLog(log, m), errgrpc.StreamServerInterceptor(), streamWire(b)),
	}, endpoint.ServerWindowOptions()...)
}

// unaryWire is wirecodec's check; a request it refuses never reaches the handler, so the refusal is audited
// here.
func unaryWire(b *broker.Broker) grpc.UnaryServerInterceptor {
	check := wirecodec.UnaryServerInterceptor()
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		ran := false
		resp, err := check(ctx, req, info, func(ctx context.Context, req any) (any, error) {
			ran = true
			return handler(ctx, req)
		})
		if !ran && err != nil && b != nil {
			err = b.AuditRefusal(ctx, info.FullMethod, req, err)
		}
		return resp, err
	}
}

// streamWire is wirecodec's check of received stream messages, auditing the refusals like unaryWire.
func streamWire(b *broker.Broker) grpc.StreamServerInterceptor {
	check := wirecodec.StreamServerInterceptor()
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		return check(srv, ss, info, func(srv any, ss grpc.ServerStream) error {
			return handler(srv, &auditedStream{ServerStream: ss, b: b, rpc: info.FullMethod})
		})
	}
}

// auditedStream audits a received message that wirecodec refused.
type auditedStream struct {
	grpc.ServerStream
	b   *broker.Broker
	rpc string
}

// RecvMsg receives m; a BadRequest here can only be wirecodec's (transport errors are not field errors).
func (s *auditedStream) RecvMsg(m any) error {
	err := s.ServerStream.RecvMsg(m)
	var br *errdefs.BadRequest
	if err != nil && s.b != nil && errors.As(err, &br) {
		err = s.b.AuditRefusal(s.Context(), s.rpc, m, err)
	}
	return err
}

// logRPC writes the one line per RPC: method, code, duration, principal, session, guest. Never arguments.
func logRPC(ctx context.Context, log *slog.Logger, m *metrics.Metrics, method string, start time.Time, err error) {
	d := time.Since(start)
	code := status.Code(err)
	attrs := []slog.Attr{slog.String("rpc", method), slog.String("code", code.String()), slog.Duration("duration", d)}
	guest := ""
	if c := auth.CallerFrom(ctx); c != nil {
		attrs = append(attrs, slog.String("principal", c.Principal.Name))
		if c.Session != "" {
			attrs = append(attrs, slog.String("session", c.Session))
		}
		if c.Guest != "" {
			guest = metricsGuest(c, code)
			// A name that is not a guest name at all (the caller's text, of any size) is logged by its size.
			if config.ValidName(c.Guest, config.MaxGuestNameBytes, "-") {
				attrs = append(attrs, slog.String("guest", c.Guest))
			} else {
				attrs = append(attrs, slog.Int("guest_bytes", len(c.Guest)))
			}
		}
	}
	level := slog.LevelInfo
	if err != nil {
		attrs = append(attrs, slog.String("error", status.Convert(err).Message()))
	}
	log.LogAttrs(ctx, level, "rpc", attrs...)
	m.RPC(method, code.String(), guest, d)
}

// metricsGuest is the guest label of an RPC: c.Guest once the broker has resolved it to a guest, "" otherwise.
// Handlers name the guest a request asks for before looking it up, so an RPC refused as not found, invalid or
// not permitted, and not bound to a session (whose guest is always a real one), carries caller-chosen text of
// any size there: as a label each would be a new series, and any principal could grow the broker's memory.
func metricsGuest(c *auth.Caller, code codes.Code) string {
	if c.Session == "" {
		switch code {
		case codes.NotFound, codes.InvalidArgument, codes.PermissionDenied, codes.Unauthenticated:
			return ""
		}
	}
	return c.Guest
}

func unaryLog(log *slog.Logger, m *metrics.Metrics) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		start := time.Now()
		resp, err := handler(ctx, req)
		logRPC(ctx, log, m, info.FullMethod, start, err)
		return resp, err
	}
}

func streamLog(log *slog.Logger, m *metrics.Metrics) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		start := time.Now()
		err := handler(srv, ss)
		logRPC(ss.Context(), log, m, info.FullMethod, start, err)
		return err
	}
}
