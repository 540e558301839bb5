package errgrpc

import (
	"context"
	"errors"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"glovebox.dev/shared/errdefs"
)

// remoteError is a status error received from a Glovebox server, decoded by FromError.
type remoteError struct {
	st    *status.Status
	class error
	md    map[string]string
	bad   *errdefs.BadRequest
}

// Error is the status message, which the server built from its own wrapped error.
func (e *remoteError) Error() string { return e.st.Message() }

// Unwrap exposes the class (errors.Is) and, for INVALID_ARGUMENT, the violations (errors.As *BadRequest).
func (e *remoteError) Unwrap() []error {
	if e.bad != nil {
		return []error{e.class, e.bad}
	}
	return []error{e.class}
}

// GRPCStatus keeps the original status, so status.FromError and a relaying server (the broker) pass it on
// unchanged, details included.
func (e *remoteError) GRPCStatus() *status.Status { return e.st }

// fallbackClass classifies a status without a Glovebox ErrorInfo (errors made by gRPC itself: transport
// failures, deadlines, unknown methods) by its code.
var fallbackClass = map[codes.Code]error{
	codes.Canceled:          context.Canceled,
	codes.DeadlineExceeded:  errdefs.ErrTimeout,
	codes.InvalidArgument:   errdefs.ErrInvalidArgument,
	codes.NotFound:          errdefs.ErrNotFound,
	codes.PermissionDenied:  errdefs.ErrPermissionDenied,
	codes.Unauthenticated:   errdefs.ErrPermissionDenied,
	codes.ResourceExhausted: errdefs.ErrResourceExhausted,
	codes.Unimplemented:     errdefs.ErrUnsupportedAction,
	codes.Unavailable:       errdefs.ErrUnavailable,
	codes.Aborted:           errdefs.ErrInterrupted,
}

// FromError turns a status error received by a client back into an error that errors.Is the errdefs class
// of its ErrorInfo reason (or, without a Glovebox ErrorInfo, the class closest to its code), keeps the
// message, and for INVALID_ARGUMENT exposes the field violations as *errdefs.BadRequest through errors.As.
// nil stays nil and an error that is not a status error is returned unchanged.
func FromError(err error) error {
	if err == nil {
		return nil
	}
	var already *remoteError
	if errors.As(err, &already) {
		return err
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	re := &remoteError{st: st}
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			if d.GetDomain() != Domain {
				continue
			}
			if c := errdefs.FromReason(ParseReason(d.GetReason())); c != nil {
				re.class = c
			}
			re.md = d.GetMetadata()
		case *errdetails.BadRequest:
			bad := &errdefs.BadRequest{}
			for _, v := range d.GetFieldViolations() {
				bad.Violations = append(bad.Violations, errdefs.Violation{Field: v.GetField(), Description: v.GetDescription()})
			}
			re.bad = bad
		}
	}
	if re.class == nil {
		re.class = fallbackClass[st.Code()]
		if re.class == nil {
			re.class = errdefs.ErrInternal
		}
	}
	if re.bad != nil && !errors.Is(re.class, errdefs.ErrInvalidArgument) {
		re.bad = nil
	}
	return re
}

// UnaryClientInterceptor applies FromError to the error of every unary call.
func UnaryClientInterceptor() grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		return FromError(invoker(ctx, method, req, reply, cc, opts...))
	}
}

// StreamClientInterceptor applies FromError to the error of opening a stream and of every Send/Recv.
func StreamClientInterceptor() grpc.StreamClientInterceptor {
	return func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		cs, err := streamer(ctx, desc, cc, method, opts...)
		if err != nil {
			return nil, FromError(err)
		}
		return &clientStream{ClientStream: cs}, nil
	}
}

type clientStream struct {
	grpc.ClientStream
}

func (s *clientStream) SendMsg(m any) error { return fromStreamError(s.ClientStream.SendMsg(m)) }
func (s *clientStream) RecvMsg(m any) error { return fromStreamError(s.ClientStream.RecvMsg(m)) }
func (s *clientStream) CloseSend() error    { return FromError(s.ClientStream.CloseSend()) }

// fromStreamError keeps io.EOF as is: it is how a stream says it ended.
func fromStreamError(err error) error {
	if _, ok := status.FromError(err); !ok {
		return err
	}
	return FromError(err)
}
