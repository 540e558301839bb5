// Package errgrpc translates Glovebox error classes (package errdefs) to gRPC status errors carrying
// google.rpc.ErrorInfo (and google.rpc.BadRequest for invalid arguments) on the server side, and back to
// errors that errors.Is the class on the client side. It is the one place where that mapping lives.
package errgrpc

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// Domain is google.rpc.ErrorInfo.domain of every Glovebox error.
const Domain = "glovebox.dev"

// reasonPrefix is stripped from agentv1.ErrorReason names to form ErrorInfo.reason.
const reasonPrefix = "ERROR_REASON_"

// codeOf maps each reason to its gRPC code. The code is what generic gRPC tooling sees; callers branch on
// the reason.
//
// CAPABILITY_UNAVAILABLE is FAILED_PRECONDITION, not UNAVAILABLE: the backend is missing on this guest
// (no X display, no AT-SPI bus), so retrying the same call will fail the same way until the guest is
// changed, and gRPC clients and proxies treat UNAVAILABLE as "retry". UNIMPLEMENTED stays reserved for
// RPCs the agent does not implement at all and for UNSUPPORTED_ACTION.
//
// TARGET_AMBIGUOUS is FAILED_PRECONDITION; the candidates travel in ErrorInfo.metadata (see WithMetadata).
var codeOf = map[agentv1.ErrorReason]codes.Code{
	agentv1.ErrorReason_ERROR_REASON_INVALID_ARGUMENT:       codes.InvalidArgument,
	agentv1.ErrorReason_ERROR_REASON_STALE_REF:              codes.FailedPrecondition,
	agentv1.ErrorReason_ERROR_REASON_SNAPSHOT_SUPERSEDED:    codes.FailedPrecondition,
	agentv1.ErrorReason_ERROR_REASON_TARGET_GONE:            codes.NotFound,
	agentv1.ErrorReason_ERROR_REASON_TARGET_AMBIGUOUS:       codes.FailedPrecondition,
	agentv1.ErrorReason_ERROR_REASON_CONTROL_HELD:           codes.FailedPrecondition,
	agentv1.ErrorReason_ERROR_REASON_READ_ONLY_SESSION:      codes.FailedPrecondition,
	agentv1.ErrorReason_ERROR_REASON_CAPABILITY_UNAVAILABLE: codes.FailedPrecondition,
	agentv1.ErrorReason_ERROR_REASON_UNSUPPORTED_ACTION:     codes.Unimplemented,
	agentv1.ErrorReason_ERROR_REASON_POLICY_DENIED:          codes.PermissionDenied,
	agentv1.ErrorReason_ERROR_REASON_CONFIRMATION_REQUIRED:  codes.FailedPrecondition,
	agentv1.ErrorReason_ERROR_REASON_NOT_FOUND:              codes.NotFound,
	agentv1.ErrorReason_ERROR_REASON_GENERATION_CHANGED:     codes.FailedPrecondition,
	agentv1.ErrorReason_ERROR_REASON_TIMEOUT:                codes.DeadlineExceeded,
	agentv1.ErrorReason_ERROR_REASON_UNAVAILABLE:            codes.Unavailable,
	agentv1.ErrorReason_ERROR_REASON_INTERRUPTED:            codes.Aborted,
	agentv1.ErrorReason_ERROR_REASON_PERMISSION_DENIED:      codes.PermissionDenied,
	agentv1.ErrorReason_ERROR_REASON_RESOURCE_EXHAUSTED:     codes.ResourceExhausted,
	agentv1.ErrorReason_ERROR_REASON_DUPLICATE_REQUEST:      codes.Aborted,
	agentv1.ErrorReason_ERROR_REASON_INTERNAL:               codes.Internal,
	agentv1.ErrorReason_ERROR_REASON_TARGET_COVERED:         codes.FailedPrecondition,
	agentv1.ErrorReason_ERROR_REASON_VALUE_MISMATCH:         codes.FailedPrecondition,
	agentv1.ErrorReason_ERROR_REASON_CONTROL_NOT_HELD:       codes.FailedPrecondition,
}

// Code returns the gRPC code for a reason; unknown reasons are Internal.
func Code(r agentv1.ErrorReason) codes.Code {
	if c, ok := codeOf[r]; ok {
		return c
	}
	return codes.Internal
}

// ReasonString is the ErrorInfo.reason for r: the enum value name without "ERROR_REASON_" ("STALE_REF").
func ReasonString(r agentv1.ErrorReason) string {
	return strings.TrimPrefix(r.String(), reasonPrefix)
}

// ParseReason is the inverse of ReasonString; it returns ERROR_REASON_UNSPECIFIED for an unknown string.
func ParseReason(s string) agentv1.ErrorReason {
	if s == "" {
		return agentv1.ErrorReason_ERROR_REASON_UNSPECIFIED
	}
	return agentv1.ErrorReason(agentv1.ErrorReason_value[reasonPrefix+s])
}

// metadataError attaches ErrorInfo.metadata to an error; see WithMetadata.
type metadataError struct {
	err error
	md  map[string]string
}

func (e *metadataError) Error() string { return e.err.Error() }
func (e *metadataError) Unwrap() error { return e.err }

// WithMetadata returns err carrying md, which ToStatus puts into ErrorInfo.metadata (for example the
// candidates of TARGET_AMBIGUOUS). Keys and values must not hold untrusted text meant for the message.
func WithMetadata(err error, md map[string]string) error {
	if err == nil {
		return nil
	}
	return &metadataError{err: err, md: md}
}

// Metadata returns the ErrorInfo.metadata carried by err (set by WithMetadata on the server, at any depth
// of wrapping, merged with the outer value winning, or decoded by FromError on the client), or nil.
func Metadata(err error) map[string]string {
	var out map[string]string
	add := func(md map[string]string) {
		if out == nil {
			out = make(map[string]string, len(md))
		}
		for k, v := range md {
			if _, ok := out[k]; !ok {
				out[k] = v
			}
		}
	}
	var walk func(error)
	walk = func(e error) {
		for e != nil {
			switch x := e.(type) {
			case *metadataError:
				add(x.md)
			case *remoteError:
				add(x.md)
				return
			}
			switch u := e.(type) {
			case interface{ Unwrap() error }:
				e = u.Unwrap()
			case interface{ Unwrap() []error }:
				for _, inner := range u.Unwrap() {
					walk(inner)
				}
				return
			default:
				return
			}
		}
	}
	walk(err)
	return out
}

// ToStatus turns err into a gRPC status: nil is OK; an error that already is a status error passes through;
// context.Canceled is CANCELED; context.DeadlineExceeded is DEADLINE_EXCEEDED with reason TIMEOUT; an errdefs
// class maps to its code and reason; anything else is INTERNAL with reason INTERNAL. A *errdefs.BadRequest
// adds a google.rpc.BadRequest with one FieldViolation per violation. Bytes that are not UTF-8 in the message
// and the details become U+FFFD, so the details always travel.
func ToStatus(err error) *status.Status {
	if err == nil {
		return status.New(codes.OK, "")
	}
	if s, ok := status.FromError(err); ok {
		if utf8.ValidString(s.Message()) {
			return s
		}
		p := s.Proto()
		p.Message = validUTF8(p.Message)
		return status.FromProto(p)
	}
	reason := errdefs.Reason(err)
	code := Code(reason)
	switch {
	case reason != agentv1.ErrorReason_ERROR_REASON_UNSPECIFIED:
	case errors.Is(err, context.Canceled):
		return status.New(codes.Canceled, err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		reason, code = agentv1.ErrorReason_ERROR_REASON_TIMEOUT, codes.DeadlineExceeded
	default:
		reason, code = agentv1.ErrorReason_ERROR_REASON_INTERNAL, codes.Internal
	}
	s := status.New(code, validUTF8(err.Error()))
	var md map[string]string
	if m := Metadata(err); m != nil {
		md = make(map[string]string, len(m))
		for k, v := range m {
			md[validUTF8(k)] = validUTF8(v)
		}
	}
	info := &errdetails.ErrorInfo{Reason: ReasonString(reason), Domain: Domain, Metadata: md}
	details := []protoadapt.MessageV1{info}
	var br *errdefs.BadRequest
	if errors.As(err, &br) {
		fv := make([]*errdetails.BadRequest_FieldViolation, len(br.Violations))
		for i, v := range br.Violations {
			fv[i] = &errdetails.BadRequest_FieldViolation{Field: validUTF8(v.Field), Description: validUTF8(v.Description)}
		}
		details = append(details, &errdetails.BadRequest{FieldViolations: fv})
	}
	if ws, derr := s.WithDetails(details...); derr == nil {
		return ws
	}
	return s
}

// validUTF8 replaces the bytes of s that are not UTF-8 (a name cut mid-rune, a Latin-1 window title) with
// U+FFFD: a status whose message or details hold them cannot be marshalled, and gRPC then sends it without
// its details, losing the reason, the metadata and the violations.
func validUTF8(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

// Error is ToStatus(err).Err(): nil for nil, a status error otherwise.
func Error(err error) error {
	if err == nil {
		return nil
	}
	return ToStatus(err).Err()
}
