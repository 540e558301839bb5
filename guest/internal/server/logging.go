package server

import (
	"context"
	"log/slog"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	"glovebox.dev/shared/validate"
)

// owned is implemented by requests that carry an owner (ActRequest, WriteClipboardRequest).
type owned interface{ GetOwner() string }

// logUnary logs one line per unary RPC: method, code, duration and owner (when valid). Requests and responses are never
// logged: they carry typed text, clipboard contents and image bytes.
func logUnary(log *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		start := time.Now()
		resp, err := h(ctx, req)
		attrs := []slog.Attr{
			slog.String("rpc", info.FullMethod),
			slog.String("code", status.Code(err).String()),
			slog.Duration("duration", time.Since(start)),
		}
		// Only an owner that passed validation: a refused one may be any text of any size.
		if o, ok := req.(owned); ok && validate.ValidID(o.GetOwner()) {
			attrs = append(attrs, slog.String("owner", o.GetOwner()))
		}
		logRPC(ctx, log, err, attrs)
		return resp, err
	}
}

// logStream logs one line when a streaming RPC ends.
func logStream(log *slog.Logger) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
		start := time.Now()
		err := h(srv, ss)
		logRPC(ss.Context(), log, err, []slog.Attr{
			slog.String("rpc", info.FullMethod),
			slog.String("code", status.Code(err).String()),
			slog.Duration("duration", time.Since(start)),
		})
		return err
	}
}

func logRPC(ctx context.Context, log *slog.Logger, err error, attrs []slog.Attr) {
	level := slog.LevelInfo
	if err != nil {
		// The status message is Glovebox's own text (field names, bounds, ids), never request content.
		attrs = append(attrs, slog.String("error", status.Convert(err).Message()))
		level = slog.LevelWarn
	}
	log.LogAttrs(ctx, level, "rpc", attrs...)
}
