package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
	"glovebox.dev/shared/wirecodec"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protowire"
)

// Files is the file backend (guest/internal/files): drops into the drop directory and reads under the home
// directory. Requests reaching it have been validated.
type Files interface {
	// Drop receives the files h declares from next (a chunk's file index and bytes, the bytes in pieces
	// valid until the next call; io.EOF after the last chunk); offer, when the target is
	// DESKTOP_CLIPBOARD, puts the saved files on the clipboard (nil: no clipboard backend).
	// place, when the target is PAGE, gives the saved files to a page element (nil: no browser backend).
	Drop(ctx context.Context, h *agentv1.DropFilesHeader, next func() (file int32, data [][]byte, err error),
		offer func(ctx context.Context, text string, targets map[string][]byte) error,
		place func(ctx context.Context, p *agentv1.PageDrop, paths []string) error) (*agentv1.DropFilesResponse, error)
	// Open opens a regular file under the home directory of at most maxBytes (0: the agent's cap).
	Open(path string, maxBytes int64) (io.ReadCloser, *agentv1.ReadFileInfo, error)
	// Downloads lists the browser download directory.
	Downloads() (*agentv1.ListDownloadsResponse, error)
}

// BrowserFiles is implemented by a browser backend that can give files to a page element.
type BrowserFiles interface {
	PlaceFiles(ctx context.Context, p *agentv1.PageDrop, paths []string) error
}

// ClipboardOffer is implemented by a clipboard backend that can own a selection with extra targets.
type ClipboardOffer interface {
	Offer(ctx context.Context, text string, targets map[string][]byte) error
}

// filesService serves FilesService.
type filesService struct {
	agentv1.UnimplementedFilesServiceServer
	s *Services
}

func newFilesService(s *Services) *filesService { return &filesService{s: s} }

func (f *filesService) backend() (Files, error) {
	if f.s.b().Files == nil {
		return nil, fmt.Errorf("files: no home directory: %w", errdefs.ErrCapabilityUnavailable)
	}
	return f.s.b().Files, nil
}

// DropFiles receives a drop: the header, validated completely before anything is written, then chunks.
func (f *filesService) DropFiles(st grpc.ClientStreamingServer[agentv1.DropFilesRequest, agentv1.DropFilesResponse]) error {
	first, err := st.Recv()
	if err != nil {
		return fmt.Errorf("drop header: %w", recvErr(err))
	}
	h := first.GetHeader()
	if err := validate.DropFilesHeader(h, validate.AgentDropLimits); err != nil {
		return err
	}
	b, err := f.backend()
	if err != nil {
		return err
	}
	var offer func(ctx context.Context, text string, targets map[string][]byte) error
	if cb := f.s.b().Clipboard; cb != nil {
		if c, ok := unwrapClipboard(cb).(ClipboardOffer); ok {
			offer = c.Offer
		}
	}
	// Chunks are received as their wire bytes and written out from grpc's buffers (chunkOf).
	var raw wirecodec.Raw
	defer raw.Free()
	next := func() (int32, [][]byte, error) {
		raw.Free()
		if err := st.RecvMsg(&raw); err != nil {
			return 0, nil, recvErr(err)
		}
		return chunkOf(&raw)
	}
	var place func(ctx context.Context, p *agentv1.PageDrop, paths []string) error
	if br := f.s.b().Browser; br != nil {
		if pf, ok := unwrapBrowser(br).(BrowserFiles); ok {
			// A drop event is input: it takes its turn in the input queue, like Act.
			place = func(ctx context.Context, p *agentv1.PageDrop, paths []string) error {
				if err := f.s.inputQueue.lock(ctx); err != nil {
					return fmt.Errorf("queued: %w: %w", errdefs.ErrInterrupted, err)
				}
				defer f.s.inputQueue.unlock()
				return pf.PlaceFiles(ctx, p, paths)
			}
		}
	}
	resp, err := b.Drop(st.Context(), h, next, offer, place)
	if err != nil {
		return fmt.Errorf("drop: %w", err)
	}
	return st.SendAndClose(resp)
}

// Field numbers of a drop's chunk messages, as the wire has them.
var (
	chunkField     = (&agentv1.DropFilesRequest{}).ProtoReflect().Descriptor().Fields().ByName("chunk").Number()
	chunkFileField = (&agentv1.FileChunk{}).ProtoReflect().Descriptor().Fields().ByName("file").Number()
	chunkDataField = (&agentv1.FileChunk{}).ProtoReflect().Descriptor().Fields().ByName("data").Number()
)

// chunkOf returns the file index and the data of raw, a DropFilesRequest after the header. A message that
// is exactly a chunk field holding the file field (or none: file 0) and then the data field, as protobuf
// encoders write it, is read from the wire: the data stays in raw's buffers. Any other encoding is decoded
// and checked like every request.
func chunkOf(raw *wirecodec.Raw) (int32, [][]byte, error) {
	var buf [32]byte
	head := raw.Head(buf[:])
	if num, off, n, ok := wirecodec.Field(head); ok && num == chunkField && off+n == raw.Len() {
		rest, file := head[off:], int32(0)
		if num, typ, tn := protowire.ConsumeTag(rest); tn > 0 && num == chunkFileField && typ == protowire.VarintType {
			v, vn := protowire.ConsumeVarint(rest[tn:])
			if vn > 0 {
				file, rest = int32(v), rest[tn+vn:]
			}
		}
		if num, doff, dn, ok := wirecodec.Field(rest); ok && num == chunkDataField {
			if at := len(head) - len(rest) + doff; at+dn == raw.Len() {
				raw.Skip(at)
				return file, raw.Pieces(), nil
			}
		}
	}
	var m agentv1.DropFilesRequest
	if err := raw.Decode(&m); err != nil {
		return 0, nil, err
	}
	if m.GetChunk() == nil {
		return 0, nil, &errdefs.BadRequest{Violations: []errdefs.Violation{{Field: "chunk", Description: "required after the header"}}}
	}
	return m.GetChunk().GetFile(), [][]byte{m.GetChunk().GetData()}, nil
}

// recvErr passes io.EOF through and makes a broken stream UNAVAILABLE.
func recvErr(err error) error {
	if errors.Is(err, io.EOF) {
		return io.EOF
	}
	return fmt.Errorf("receive: %w", errors.Join(errdefs.ErrUnavailable, err))
}

// ReadFile streams one file: info, chunks of at most 1 MiB, then the sha256 of what was sent.
func (f *filesService) ReadFile(req *agentv1.ReadFileRequest, st grpc.ServerStreamingServer[agentv1.ReadFileResponse]) error {
	if err := validate.ReadFile(req); err != nil {
		return err
	}
	b, err := f.backend()
	if err != nil {
		return err
	}
	r, info, err := b.Open(req.GetPath(), req.GetMaxBytes())
	if err != nil {
		return err
	}
	defer r.Close()
	if err := st.Send(&agentv1.ReadFileResponse{Info: info}); err != nil {
		return err
	}
	sum := sha256.New()
	buf := make([]byte, validate.MaxChunkBytes)
	var sent int64
	for sent < info.GetSize() {
		n, err := io.ReadFull(r, buf[:min(int64(len(buf)), info.GetSize()-sent)])
		if err != nil {
			return fmt.Errorf("read after %d of %d bytes (the file changed?): %w", sent, info.GetSize(), errors.Join(errdefs.ErrUnavailable, err))
		}
		sum.Write(buf[:n])
		if err := st.Send(&agentv1.ReadFileResponse{Data: buf[:n]}); err != nil {
			return err
		}
		sent += int64(n)
	}
	f.s.log.Info("file read", "bytes", sent)
	return st.Send(&agentv1.ReadFileResponse{Sha256: hex.EncodeToString(sum.Sum(nil))})
}

// ListDownloads lists the browser download directory.
func (f *filesService) ListDownloads(ctx context.Context, _ *agentv1.ListDownloadsRequest) (*agentv1.ListDownloadsResponse, error) {
	b, err := f.backend()
	if err != nil {
		return nil, err
	}
	return b.Downloads()
}

// unwrapBrowser returns the implementation behind AdaptBrowser, to ask it for optional interfaces.
func unwrapBrowser(b Browser) any {
	if a, ok := b.(adaptedBrowser); ok {
		return a.BrowserIO
	}
	return b
}
