package errgrpc

import (
	"context"

	"google.golang.org/grpc"
)

// UnaryServerInterceptor translates the error of every unary handler once, with ToStatus.
func UnaryServerInterceptor() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		resp, err := handler(ctx, req)
		if err != nil {
			return nil, ToStatus(err).Err()
		}
		return resp, nil
	}
}

// StreamServerInterceptor translates the error of every streaming handler once, with ToStatus.
func StreamServerInterceptor() grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		if err := handler(srv, ss); err != nil {
			return ToStatus(err).Err()
		}
		return nil
	}
}
