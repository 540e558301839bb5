package broker_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/wirecodec"
)

// TestDropChunkEncodings drops files whose chunk messages are encoded in the ways protobuf allows besides
// the usual one, sent as hand-built wire bytes: the broker passes the usual form on undecoded and must
// decode the others (an unknown field beside the request, the request field split in two) or leave them to
// the agent (the chunk's fields in reverse order, an unknown field in the chunk); every file is read back
// from the drop directory with its sha256. A chunk message with a session_id is refused naming the field.
func TestDropChunkEncodings(t *testing.T) {
	f := startFiles(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	data := make([]byte, 3<<20+12345) // several chunks, the last one short
	for i := range data {
		data[i] = byte(i * 7)
	}
	sum := sha256.Sum256(data)
	chunk := func(file int32, b []byte) []byte {
		m, _ := proto.Marshal(&agentv1.FileChunk{File: file, Data: b})
		return m
	}
	field := func(num protowire.Number, b []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), b)
	}
	unknown := protowire.AppendVarint(protowire.AppendTag(nil, 999, protowire.VarintType), 5)
	for _, c := range []struct {
		name   string
		encode func(c []byte) []byte // the broker message for one chunk, given the FileChunk's bytes
		chunk  func(b []byte) []byte // the FileChunk's bytes for data b
	}{
		{"usual", func(c []byte) []byte { return field(2, field(2, c)) }, func(b []byte) []byte { return chunk(0, b) }},
		{"unknown-outer", func(c []byte) []byte { return append(field(2, field(2, c)), unknown...) }, func(b []byte) []byte { return chunk(0, b) }},
		{"split-request", func(c []byte) []byte {
			// Two occurrences of request: protobuf merges them (the second one's chunk replaces nothing,
			// it merges into the first).
			return append(field(2, nil), field(2, field(2, c))...)
		}, func(b []byte) []byte { return chunk(0, b) }},
		{"reversed-chunk", func(c []byte) []byte { return field(2, field(2, c)) }, func(b []byte) []byte {
			return append(field(2, b), protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 0)...)
		}},
		{"unknown-in-chunk", func(c []byte) []byte { return field(2, field(2, c)) }, func(b []byte) []byte { return append(chunk(0, b), unknown...) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := "wire-" + c.name + ".bin"
			st, err := f.files.DropFiles(ctx, grpc.ForceCodecV2(wirecodec.PassCodec{}))
			if err != nil {
				t.Fatal(err)
			}
			h := &agentv1.DropFilesHeader{Files: []*agentv1.DropFile{{Name: name, Size: int64(len(data)), Sha256: hex.EncodeToString(sum[:])}}}
			if err := st.Send(&brokerv1.DropFilesRequest{SessionId: f.session, Request: &agentv1.DropFilesRequest{Frame: &agentv1.DropFilesRequest_Header{Header: h}}}); err != nil {
				t.Fatal(err)
			}
			for off := 0; off < len(data); off += 1 << 20 {
				raw := &wirecodec.Raw{Data: mem.BufferSlice{mem.SliceBuffer(c.encode(c.chunk(data[off:min(off+1<<20, len(data))])))}}
				if err := st.SendMsg(raw); err != nil && !errors.Is(err, io.EOF) {
					t.Fatal(err)
				}
			}
			resp, err := st.CloseAndRecv()
			if err != nil {
				t.Fatalf("drop: %v", err)
			}
			path := filepath.Join(f.home, "Drops", name)
			if got := fileSHA(t, path); got != hex.EncodeToString(sum[:]) || resp.GetResponse().GetFiles()[0].GetPath() != path {
				t.Errorf("%s: sha256 %s, response %v; want %x", path, got, resp.GetResponse(), sum)
			}
		})
	}

	// A chunk whose content is not protobuf (passed on by the broker, decoded by the agent) is refused as
	// INVALID_ARGUMENT; nothing is kept.
	st, err := f.files.DropFiles(ctx, grpc.ForceCodecV2(wirecodec.PassCodec{}))
	if err != nil {
		t.Fatal(err)
	}
	bad := &agentv1.DropFilesHeader{Files: []*agentv1.DropFile{{Name: "garbled.bin", Size: 10, Sha256: hex.EncodeToString(sum[:])}}}
	st.Send(&brokerv1.DropFilesRequest{SessionId: f.session, Request: &agentv1.DropFilesRequest{Frame: &agentv1.DropFilesRequest_Header{Header: bad}}})
	st.SendMsg(&wirecodec.Raw{Data: mem.BufferSlice{mem.SliceBuffer(field(2, field(2, []byte{0x08, 0xff, 0xff})))}})
	_, err = st.CloseAndRecv()
	if !errors.Is(errgrpc.FromError(err), errdefs.ErrInvalidArgument) || !strings.Contains(err.Error(), "chunk") {
		t.Errorf("garbled chunk: %v; want INVALID_ARGUMENT naming the chunk", err)
	}
	if _, err := os.Stat(filepath.Join(f.home, "Drops", "garbled.bin")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("garbled.bin: %v; want it absent", err)
	}

	// A session_id after the first message is refused, naming the field; nothing is kept.
	st, err = f.files.DropFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h := &agentv1.DropFilesHeader{Files: []*agentv1.DropFile{{Name: "refused.bin", Size: 10, Sha256: hex.EncodeToString(sum[:])}}}
	st.Send(&brokerv1.DropFilesRequest{SessionId: f.session, Request: &agentv1.DropFilesRequest{Frame: &agentv1.DropFilesRequest_Header{Header: h}}})
	st.Send(&brokerv1.DropFilesRequest{SessionId: f.session, Request: &agentv1.DropFilesRequest{Frame: &agentv1.DropFilesRequest_Chunk{Chunk: &agentv1.FileChunk{Data: data[:10]}}}})
	_, err = st.CloseAndRecv()
	if !errors.Is(errgrpc.FromError(err), errdefs.ErrInvalidArgument) || !strings.Contains(err.Error(), "request.chunk") {
		t.Errorf("chunk with a session_id: %v; want INVALID_ARGUMENT naming request.chunk", err)
	}
	if _, err := os.Stat(filepath.Join(f.home, "Drops", "refused.bin")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("refused.bin: %v; want it absent", err)
	}
}
