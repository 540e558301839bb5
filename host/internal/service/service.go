// Package service holds glovebox-broker's gRPC services: thin facades that unwrap requests, call the
// broker, and wrap responses. Errors are translated once, by the errgrpc interceptor installed by Options;
// the RPC log line and metrics come from Interceptors.
package service

import (
	"context"
	"log/slog"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	"glovebox.dev/host/internal/auth"
	"glovebox.dev/host/internal/broker"
	"glovebox.dev/host/internal/metrics"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errgrpc"
)

// MaxMessageBytes bounds every request and response (screenshots of large displays).
const MaxMessageBytes = 32 << 20

// Register registers the broker's services on s. audit may be nil (AuditService then answers UNAVAILABLE).
func Register(s *grpc.Server, b *broker.Broker, audit AuditReader) {
	brokerv1.RegisterGuestServiceServer(s, &Guests{b: b})
	brokerv1.RegisterSessionServiceServer(s, &Sessions{b: b})
	brokerv1.RegisterComputerServiceServer(s, &Computer{b: b})
	brokerv1.RegisterControlServiceServer(s, &Control{b: b})
	brokerv1.RegisterAuditServiceServer(s, &Audit{b: b, log: audit})
}

// ServerOptions are the broker server's options: message limits, and the interceptor chain authentication
// (principal into the context) -> RPC log line and metrics -> error translation.
func ServerOptions(log *slog.Logger, m *metrics.Metrics) []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.MaxRecvMsgSize(MaxMessageBytes), grpc.MaxSendMsgSize(MaxMessageBytes),
		grpc.ChainUnaryInterceptor(auth.UnaryServerInterceptor(), unaryLog(log, m), errgrpc.UnaryServerInterceptor()),
		grpc.ChainStreamInterceptor(auth.StreamServerInterceptor(), streamLog(log, m), errgrpc.StreamServerInterceptor()),
	}
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
			guest = c.Guest
			attrs = append(attrs, slog.String("guest", c.Guest))
		}
	}
	level := slog.LevelInfo
	if err != nil {
		attrs = append(attrs, slog.String("error", status.Convert(err).Message()))
	}
	log.LogAttrs(ctx, level, "rpc", attrs...)
	m.RPC(method, code.String(), guest, d)
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
