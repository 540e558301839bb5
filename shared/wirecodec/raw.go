package wirecodec

import (
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// Raw is a message kept as its wire bytes, for a stream that passes large messages on or writes them out
// without decoding them (the chunks of file drops and reads): Codec.Unmarshal into a *Raw keeps the
// buffers grpc-go received the message in (no copy, nothing decoded, nothing checked), and Codec.Marshal
// and PassCodec.Marshal of a *Raw send them as they are. The holder frees Data (Free) when done; until then
// the buffers are not reused.
//
// Receiving into a *Raw skips everything Codec checks (UTF-8, list and string bounds): the holder either
// parses the few fields it needs from the wire itself, refusing what it does not understand, or decodes
// the message with Decode, which checks like Codec.
type Raw struct {
	Data mem.BufferSlice
}

// Free releases the buffers; r is empty after it.
func (r *Raw) Free() {
	r.Data.Free()
	r.Data = nil
}

// Len is the message's size in bytes.
func (r *Raw) Len() int { return r.Data.Len() }

// Head copies the first bytes of the message into buf and returns them (fewer when the message is shorter),
// to parse a few leading fields without joining the buffers.
func (r *Raw) Head(buf []byte) []byte { return buf[:r.Data.CopyTo(buf)] }

// Skip drops the message's first n bytes (at most its length), keeping a view of the rest: what is left
// is then the wire bytes of a field's content, to pass on or write out.
func (r *Raw) Skip(n int) {
	out := r.Data[:0]
	for _, b := range r.Data {
		switch l := b.Len(); {
		case n >= l:
			n -= l
			b.Free()
		case n > 0:
			out = append(out, b.Slice(n, l))
			b.Free()
			n = 0
		default:
			out = append(out, b)
		}
	}
	clear(r.Data[len(out):])
	r.Data = out
}

// Pieces are the message's bytes as the received buffers (no copy), valid until r is freed.
func (r *Raw) Pieces() [][]byte {
	out := make([][]byte, len(r.Data))
	for i, b := range r.Data {
		out[i] = b.ReadOnlyData()
	}
	return out
}

// Wrap returns a message that holds r's message as its field num (length-delimited), to send: it shares
// r's buffers (r still owns them and is freed as usual; the returned Raw is sent and never freed).
func (r *Raw) Wrap(num protowire.Number) *Raw {
	head := protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.BytesType), uint64(r.Len()))
	return &Raw{Data: append(mem.BufferSlice{mem.SliceBuffer(head)}, r.Data...)}
}

// Decode decodes the message into m as Codec does for a request, and fails with the *errdefs.BadRequest
// StreamServerInterceptor would give for it (invalid UTF-8, oversized lists and strings, malformed data).
func (r *Raw) Decode(m proto.Message) error {
	if err := (Codec{}).Unmarshal(r.Data, m); err != nil {
		return err
	}
	return check(m)
}

// Field parses the tag and length of a length-delimited field at the start of b: the field number, the
// offset of its content and its length; ok is false when b does not start with a complete length-delimited
// field header. It is the one wire rule a holder of a Raw needs to find a field it passes on.
func Field(b []byte) (num protowire.Number, off, n int, ok bool) {
	num, typ, tn := protowire.ConsumeTag(b)
	if tn < 0 || typ != protowire.BytesType {
		return 0, 0, 0, false
	}
	l, ln := protowire.ConsumeVarint(b[tn:])
	if ln < 0 || l > uint64(1<<31) {
		return 0, 0, 0, false
	}
	return num, tn + ln, int(l), true
}

// PassCodec is grpc-go's proto codec, except that a *Raw is sent (Marshal) and received (Unmarshal) as its
// wire bytes. A client gives it to one call with grpc.ForceCodecV2 to pass on messages it received as Raw.
// The zero value is ready to use.
type PassCodec struct{}

var _ encoding.CodecV2 = PassCodec{}

// Name is "proto": the content subtype is unchanged.
func (PassCodec) Name() string { return defaultCodec.Name() }

// Marshal sends a *Raw's buffers (taking a reference of its own: the caller still frees the Raw) and
// encodes anything else as grpc-go's proto codec.
func (PassCodec) Marshal(v any) (mem.BufferSlice, error) {
	if r, ok := v.(*Raw); ok {
		return r.marshal()
	}
	return defaultCodec.Marshal(v)
}

// Unmarshal keeps the buffers in a *Raw and decodes anything else as grpc-go's proto codec.
func (PassCodec) Unmarshal(data mem.BufferSlice, v any) error {
	if r, ok := v.(*Raw); ok {
		r.keep(data)
		return nil
	}
	return defaultCodec.Unmarshal(data, v)
}

// keep makes r hold data, with a reference of its own (grpc-go frees data after Unmarshal).
func (r *Raw) keep(data mem.BufferSlice) {
	r.Free()
	data.Ref()
	r.Data = data
}

// marshal returns r's buffers with a new reference, which grpc-go frees once they are written.
func (r *Raw) marshal() (mem.BufferSlice, error) {
	r.Data.Ref()
	return r.Data, nil
}
