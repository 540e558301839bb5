package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"testing"

	"glovebox.dev/guest/internal/files"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// BenchmarkDropFiles drops 64 MiB into the agent's file service over a unix socket (no desktop needed).
func BenchmarkDropFiles(b *testing.B) {
	home := b.TempDir()
	if d, err := os.MkdirTemp("/dev/shm", "gbx-"); err == nil {
		home = d
		defer os.RemoveAll(d)
	}
	st, err := files.New(files.Config{Home: home})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	fc := agentv1.NewFilesServiceClient(dialServices(b, New(Options{Generation: 1}, Backends{Files: st})))
	data := make([]byte, 64<<20)
	rand.NewChaCha8([32]byte{1}).Read(data)
	sum := sha256.Sum256(data)
	h := &agentv1.DropFilesHeader{Files: []*agentv1.DropFile{{Name: "x", Size: int64(len(data)), Sha256: hex.EncodeToString(sum[:])}}}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		s, err := fc.DropFiles(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		s.Send(&agentv1.DropFilesRequest{Frame: &agentv1.DropFilesRequest_Header{Header: h}})
		for off := 0; off < len(data); off += 1 << 20 {
			if err := s.Send(&agentv1.DropFilesRequest{Frame: &agentv1.DropFilesRequest_Chunk{Chunk: &agentv1.FileChunk{Data: data[off : off+1<<20]}}}); err != nil {
				b.Fatal(err)
			}
		}
		resp, err := s.CloseAndRecv()
		if err != nil {
			b.Fatal(err)
		}
		os.Remove(resp.GetFiles()[0].GetPath())
	}
}
