// Package wirecodec makes a request whose string fields hold invalid UTF-8 fail like every other bad
// request: INVALID_ARGUMENT with a google.rpc.BadRequest naming each bad field, and nothing done. The same
// goes for wire data that cannot be decoded at all (truncated, nested past the decoder's limit), and for
// what no valid request holds, found on the wire before anything is decoded (lists.go: a list of more than
// MaxListElements, a string over validate.StringBound), so that a hostile request costs its sender more than
// the server.
//
// grpc-go's default codec refuses such a request while decoding, before any interceptor runs, and grpc-go
// turns every decoding error into INTERNAL ("grpc: error unmarshalling request"). Codec decodes like the
// default codec; when decoding fails, it walks the wire bytes with the message's descriptor, finds every
// string field that is not valid UTF-8, decodes a copy with those strings repaired (U+FFFD), and marks the
// decoded message with the violations. UnaryServerInterceptor and StreamServerInterceptor find the mark
// and fail the RPC with an *errdefs.BadRequest before the handler sees the message.
//
// The mark lives inside the message, as an unknown field (number MarkField) holding a google.rpc.BadRequest,
// not in a table beside it: a message that never reaches the interceptor (an outer interceptor refused the
// call, the handler was never run) takes its mark with it when it is collected, so nothing can leak and
// nothing needs a bound, and a stream's messages need no bookkeeping by message identity. Codec removes
// any field MarkField a client sent from every message it decodes, so a mark is always the codec's own.
//
// A server installs all three, the interceptors after (inside) the one that turns errdefs classes into
// status, so the BadRequest is converted and logged like any other:
//
//	grpc.NewServer(
//		grpc.ForceServerCodecV2(wirecodec.Codec{}),
//		grpc.ChainUnaryInterceptor(logging, errgrpc.UnaryServerInterceptor(), wirecodec.UnaryServerInterceptor()),
//		grpc.ChainStreamInterceptor(logging, errgrpc.StreamServerInterceptor(), wirecodec.StreamServerInterceptor()),
//	)
package wirecodec

import (
	"fmt"

	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/reflect/protoreflect"

	"glovebox.dev/shared/errdefs"
)

// defaultCodec is grpc-go's proto codec, which marshals for Codec.
var defaultCodec = encoding.GetCodecV2(grpcproto.Name)

// Codec is grpc-go's proto codec, except that a message refused for invalid UTF-8 in string fields is
// decoded with those strings repaired and marked with the violations for the interceptors of this package.
// It is named "proto" so it replaces the default codec of a server given grpc.ForceServerCodecV2(Codec{}).
// The zero value is ready to use.
type Codec struct{}

var _ encoding.CodecV2 = Codec{}

// Name is "proto", the content subtype of the codec it replaces.
func (Codec) Name() string { return grpcproto.Name }

// Marshal encodes v exactly as grpc-go's proto codec does; a *Raw is sent as it is.
func (Codec) Marshal(v any) (mem.BufferSlice, error) { return PassCodec{}.Marshal(v) }

// Unmarshal decodes data into v as grpc-go's proto codec does. When that fails and the cause is string
// fields with invalid UTF-8, v holds the message with those strings repaired and the mark naming them
// (see the package comment), and Unmarshal succeeds. Any other decoding failure leaves v empty but for a
// mark naming the top-level field that cannot be decoded, so it too is INVALID_ARGUMENT. A *Raw keeps the
// wire bytes, undecoded and unchecked.
func (Codec) Unmarshal(data mem.BufferSlice, v any) error {
	if r, ok := v.(*Raw); ok {
		r.keep(data)
		return nil
	}
	m := messageOf(v)
	if m == nil {
		return fmt.Errorf("failed to unmarshal, message is %T, want proto.Message", v)
	}
	if data.Len() >= largeRequest {
		defer noteLarge()
	}
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	b := buf.ReadOnlyData()
	md := m.ProtoReflect().Descriptor()
	if long := oversized(b, md, "", 0); len(long) > 0 {
		// Decoded without what is over its bound, so that nothing big is ever allocated for it.
		if proto.Unmarshal(cutLists(b, md, 0), m) != nil {
			proto.Reset(m)
			if viol, bad := malformed(b, md); bad {
				long = append(long, viol)
			}
		}
		unmark(m)
		mark(m, long)
		return nil
	}
	err := proto.Unmarshal(b, m)
	if err == nil {
		unmark(m) // a mark is only ever the codec's own
		return nil
	}
	// Malformed wire data (truncated, a bad tag, nested past the decoder's recursion limit) is a bad request
	// like any other, not an INTERNAL "cannot parse"; it is found without copying b.
	viol, bad := malformed(b, md)
	var fixed []byte
	var found []errdefs.Violation
	if !bad {
		var werr error
		fixed, found, werr = repair(b, md)
		bad = werr != nil || len(found) == 0 || proto.Unmarshal(fixed, m) != nil
		viol.Field = "message"
	}
	if bad {
		proto.Reset(m)
		mark(m, []errdefs.Violation{viol})
		return nil
	}
	unmark(m)
	mark(m, found)
	return nil
}

// malformed names the top-level field of b (a message of type md) whose wire data cannot be decoded, or the
// message itself when its tags cannot; bad is false when every field decodes (the fault is invalid UTF-8).
func malformed(b []byte, md protoreflect.MessageDescriptor) (v errdefs.Violation, bad bool) {
	field := "message"
scan:
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			break
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		fd := md.Fields().ByNumber(num)
		bad := m < 0
		if !bad && fd != nil && fd.Message() != nil && typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(b[n : n+m])
			bad = !wireOK(v, fd.Message(), 1)
		}
		if bad {
			switch {
			case fd != nil:
				field = string(fd.Name())
			default:
				field = fmt.Sprintf("field %d", num)
			}
			break scan
		}
		b = b[n+m:]
	}
	bad = len(b) > 0
	return errdefs.Violation{Field: field, Description: fmt.Sprintf("cannot be decoded: malformed protobuf (truncated, a bad tag, or nested more than %d deep)", maxDepth)}, bad
}

// wireOK reports whether b, a message of type md at depth, is well-formed wire data all the way down (tags,
// lengths, groups, nesting within maxDepth); string contents are not looked at.
func wireOK(b []byte, md protoreflect.MessageDescriptor, depth int) bool {
	if depth > maxDepth {
		return false
	}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return false
		}
		if fd := md.Fields().ByNumber(num); fd != nil && fd.Message() != nil && !fd.IsMap() && typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(b[n : n+m])
			if !wireOK(v, fd.Message(), depth+1) {
				return false
			}
		}
		b = b[n+m:]
	}
	return true
}

// messageOf is v as a proto.Message, as grpc-go's proto codec accepts it.
func messageOf(v any) proto.Message {
	switch v := v.(type) {
	case protoadapt.MessageV1:
		return protoadapt.MessageV2Of(v)
	case protoadapt.MessageV2:
		return v
	}
	return nil
}
