package wirecodec

import (
	"context"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"glovebox.dev/shared/errdefs"
)

// MarkField is the number of the unknown field in which Codec marks a repaired message with its
// violations: the largest valid field number, which no Glovebox message uses (a test checks) and which
// protobuf reserves for no one.
const MarkField protowire.Number = protowire.MaxValidNumber

// mark appends the violations to m's unknown fields as field MarkField holding a google.rpc.BadRequest.
func mark(m proto.Message, found []errdefs.Violation) {
	br := &errdetails.BadRequest{}
	for _, v := range found {
		br.FieldViolations = append(br.FieldViolations, &errdetails.BadRequest_FieldViolation{Field: v.Field, Description: v.Description})
	}
	payload, err := proto.Marshal(br)
	if err != nil {
		// Field paths and descriptions are valid UTF-8 built here; Marshal cannot refuse them.
		payload = nil
	}
	r := m.ProtoReflect()
	u := append([]byte(nil), r.GetUnknown()...)
	u = protowire.AppendTag(u, MarkField, protowire.BytesType)
	u = protowire.AppendBytes(u, payload)
	r.SetUnknown(u)
}

// unmark removes every field MarkField from m's unknown fields and returns the last one's value, or nil.
func unmark(m proto.Message) (payload []byte, found bool) {
	r := m.ProtoReflect()
	u := r.GetUnknown()
	if len(u) == 0 {
		return nil, false
	}
	var rest []byte
	for b := u; len(b) > 0; {
		tag, val, num, typ, next, err := next(b)
		if err != nil {
			return nil, false // unreachable: the decoder stored these bytes as well-formed fields
		}
		b = next
		if num != MarkField {
			rest = append(append(rest, tag...), val...)
			continue
		}
		found = true
		payload = nil
		if typ == protowire.BytesType {
			payload, _ = protowire.ConsumeBytes(val)
		}
	}
	if found {
		r.SetUnknown(rest)
	}
	return payload, found
}

// check removes the mark from req and returns the *errdefs.BadRequest it holds, or nil when req has none.
func check(req any) error {
	m := messageOf(req)
	if m == nil {
		return nil
	}
	payload, found := unmark(m)
	if !found {
		return nil
	}
	var br errdetails.BadRequest
	if err := proto.Unmarshal(payload, &br); err != nil || len(br.GetFieldViolations()) == 0 {
		// Only Codec writes marks; a broken one still must not let the repaired message through.
		return &errdefs.BadRequest{Violations: []errdefs.Violation{{Description: "string fields must be valid UTF-8"}}}
	}
	out := &errdefs.BadRequest{}
	for _, v := range br.GetFieldViolations() {
		out.Violations = append(out.Violations, errdefs.Violation{Field: v.GetField(), Description: v.GetDescription()})
	}
	return out
}

// UnaryServerInterceptor fails a request that Codec marked with invalid UTF-8 with an *errdefs.BadRequest
// naming each bad field, without calling the handler. Chain it inside the interceptor that converts
// errdefs classes to status.
func UnaryServerInterceptor() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if err := check(req); err != nil {
			return nil, err
		}
		return handler(ctx, req)
	}
}

// StreamServerInterceptor makes RecvMsg of a streaming RPC fail with an *errdefs.BadRequest naming each bad
// field when Codec marked the received message with invalid UTF-8, so the handler never uses it. Chain it
// inside the interceptor that converts errdefs classes to status.
func StreamServerInterceptor() grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		return handler(srv, checkedStream{ss})
	}
}

// checkedStream checks every message it receives for Codec's mark.
type checkedStream struct{ grpc.ServerStream }

// RecvMsg receives m and fails when Codec marked it.
func (s checkedStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	return check(m)
}
