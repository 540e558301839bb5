package wirecodec_test

import (
	"bytes"
	"errors"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/wirecodec"
)

// countingPool is a buffer pool that counts the buffers not yet given back.
type countingPool struct{ out int }

func (p *countingPool) Get(n int) *[]byte { p.out++; b := make([]byte, n); return &b }
func (p *countingPool) Put(*[]byte)       { p.out-- }

// A Raw received by the codec keeps grpc's buffers (its own reference), skips a prefix across buffer
// boundaries without copying, sends them again with PassCodec, and gives every buffer back once freed.
func TestRaw(t *testing.T) {
	pool := &countingPool{}
	msg := protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), bytes.Repeat([]byte("abcdefgh"), 1000))
	var in mem.BufferSlice
	for off := 0; off < len(msg); off += 3000 { // pieces of 3000 bytes (pooled: above grpc's threshold)
		in = append(in, mem.Copy(msg[off:min(off+3000, len(msg))], pool))
	}
	var r wirecodec.Raw
	if err := (wirecodec.Codec{}).Unmarshal(in, &r); err != nil {
		t.Fatal(err)
	}
	in.Free() // what grpc does after Unmarshal
	if r.Len() != len(msg) || pool.out != len(in) {
		t.Fatalf("Raw holds %d bytes and %d pooled buffers are out; want %d and %d", r.Len(), pool.out, len(msg), len(in))
	}
	var buf [8]byte
	num, off, n, ok := wirecodec.Field(r.Head(buf[:]))
	if !ok || num != 2 || off+n != len(msg) {
		t.Fatalf("Field = %d %d %d %v; want field 2 spanning the message", num, off, n, ok)
	}
	for _, skip := range []int{off, 2997} { // within the first buffer, then across into the second
		r.Skip(skip)
		msg = msg[skip:]
		if got := bytes.Join(r.Pieces(), nil); !bytes.Equal(got, msg) {
			t.Fatalf("after Skip(%d): %d bytes, want the %d after it", skip, len(got), len(msg))
		}
	}
	out, err := (wirecodec.PassCodec{}).Marshal(&r)
	if err != nil || !bytes.Equal(out.Materialize(), msg) {
		t.Fatalf("Marshal: %v; want the bytes as they are", err)
	}
	out.Free() // what grpc does once written
	// Wrapped as field 1 of an outer message: the field header, then the same buffers.
	out, err = (wirecodec.Codec{}).Marshal(r.Wrap(1))
	want := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), msg)
	if err != nil || !bytes.Equal(out.Materialize(), want) {
		t.Fatalf("Marshal of Wrap(1): %v; want the bytes as field 1", err)
	}
	out.Free()
	r.Free()
	if pool.out != 0 || r.Len() != 0 {
		t.Errorf("%d pooled buffers not given back after Free (Raw holds %d bytes)", pool.out, r.Len())
	}
}

// Decode checks like the codec: invalid UTF-8 in a string is a BadRequest naming the field.
func TestRawDecode(t *testing.T) {
	msg := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "bad \xff")
	r := wirecodec.Raw{Data: mem.BufferSlice{mem.SliceBuffer(msg)}}
	var br *errdefs.BadRequest
	if err := r.Decode(new(agentv1.WriteClipboardRequest)); !errors.As(err, &br) || br.Violations[0].Field != "owner" {
		t.Errorf("Decode = %v; want a BadRequest naming owner", err)
	}
}
