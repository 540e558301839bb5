package broker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/structpb"

	"glovebox.dev/host/internal/config"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
	"glovebox.dev/shared/wirecodec"
)

// Full method names of the file surface, as recorded in the audit log.
const (
	RPCDropFiles     = "/glovebox.broker.v1.FilesService/DropFiles"
	RPCReadFile      = "/glovebox.broker.v1.FilesService/ReadFile"
	RPCListDownloads = "/glovebox.broker.v1.FilesService/ListDownloads"
)

// transferRate is the slowest transfer a guest call's deadline allows for (bytes per second): a 512 MiB drop
// gets 32 s beyond the configured guest timeout.
const transferRate = 16 << 20

// transferTime is how long moving n bytes may legitimately take.
func transferTime(n int64) time.Duration { return time.Duration(n) * time.Second / transferRate }

// fileLimits are the caps of p (nil: the agent's), and whether transfers are denied.
func fileLimits(p *config.FilesPolicy) (lim validate.DropLimits, read int64, denied bool) {
	lim, read = validate.AgentDropLimits, validate.MaxFileBytes
	if p == nil {
		return lim, read, false
	}
	if p.MaxFileBytes > 0 {
		lim.FileBytes = p.MaxFileBytes
	}
	if p.MaxDropBytes > 0 {
		lim.DropBytes = p.MaxDropBytes
	}
	if p.MaxReadBytes > 0 {
		read = p.MaxReadBytes
	}
	return lim, read, p.Deny
}

func (b *Broker) filesDenied(cl *call) error {
	return fmt.Errorf("principal %s may not transfer files: %w", cl.c.Principal.Name, errdefs.ErrPolicyDenied)
}

// DropStream is the caller's side of a drop (grpc.ClientStreamingServer gives it): Recv decodes the first
// message; the chunks after it are received with RecvMsg into a *wirecodec.Raw and passed on undecoded.
type DropStream interface {
	Recv() (*brokerv1.DropFilesRequest, error)
	RecvMsg(m any) error
}

// DropFiles forwards a drop (a mutation, outside the input queue) chunk by chunk from st to the guest:
// the header is validated against the principal's caps and audited (names, sizes, keyed hashes of the
// sha256s) before the guest is asked; the outcome records the saved names and guest paths.
func (b *Broker) DropFiles(ctx context.Context, st DropStream) (*brokerv1.DropFilesResponse, error) {
	first, err := st.Recv()
	if errors.Is(err, io.EOF) {
		return nil, &errdefs.BadRequest{Violations: []errdefs.Violation{{Field: "request.header", Description: "required as the first message"}}}
	}
	if err != nil {
		return nil, err
	}
	header := first.GetRequest().GetHeader()
	resp, seq, err := run(ctx, b, first.GetSessionId(), header, op[*agentv1.DropFilesHeader, *agentv1.DropFilesResponse]{
		rpc: RPCDropFiles,
		prepare: func(cl *call, h *agentv1.DropFilesHeader) []errdefs.Violation {
			bad := ownerViolation(h.GetOwner(), cl.s.id)
			h.Owner = cl.s.id
			if header == nil {
				bad = append(bad, errdefs.Violation{Field: "request.header", Description: "required as the first message"})
			}
			return bad
		},
		check: func(h *agentv1.DropFilesHeader) error {
			// The principal's caps are checked in mutation (they need the call); the agent's here.
			return validate.DropFilesHeader(h, validate.AgentDropLimits)
		},
		mutation: func(cl *call, h *agentv1.DropFilesHeader) (mutation, bool) {
			lim, _, denied := fileLimits(cl.c.Principal.Files)
			// Outside the input queue, except into a page: a drop event is input, ordered with the
			// session's other actions.
			m := mutation{direct: h.GetTarget() != agentv1.DropTarget_DROP_TARGET_PAGE}
			var total int64
			for _, f := range h.GetFiles() {
				total += f.GetSize()
			}
			m.extra = transferTime(total)
			if tab := h.GetPage().GetTab(); tab != nil {
				gen, _ := cl.s.guest.generations()
				cl.target = &agentv1.FrozenTarget{BrowserId: tab.GetBrowserId(), TabId: tab.GetTabId(),
					Source: agentv1.TargetSource_TARGET_SOURCE_EXPLICIT, Generation: gen}
			}
			switch {
			case denied:
				m.gate = b.filesDenied(cl)
			default:
				m.gate = checkRequest(validate.DropFilesHeader(h, lim))
			}
			return m, true
		},
		send: func(ctx context.Context, c guestClients, h *agentv1.DropFilesHeader) (*agentv1.DropFilesResponse, error) {
			return forwardDrop(ctx, c, h, st)
		},
		answered: func(cl *call, resp *agentv1.DropFilesResponse) {
			cl.extraArgs = map[string]*structpb.Value{"response": structpb.NewStructValue(b.args(resp))}
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.DropFilesResponse{Response: resp, AuditSeq: seq}, nil
}

// forwardDrop streams the header and then every chunk from st to the guest, one message at a time. A
// caller's stream that breaks cancels the guest's, so the agent keeps nothing of the drop.
//
// The chunks are passed on as the caller's wire bytes (wirecodec.Raw), neither decoded nor encoded again:
// what is forwarded is the content of the message's request field, when that is all the message holds and
// it holds a chunk (chunkFrame); the agent decodes and checks the chunk itself. Any other encoding is
// decoded and checked here and encoded again.
func forwardDrop(ctx context.Context, c guestClients, h *agentv1.DropFilesHeader, in DropStream) (*agentv1.DropFilesResponse, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := c.Files.DropFiles(ctx, grpc.ForceCodecV2(wirecodec.PassCodec{}))
	if err != nil {
		return nil, err
	}
	if err := st.Send(&agentv1.DropFilesRequest{Frame: &agentv1.DropFilesRequest_Header{Header: h}}); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	var raw wirecodec.Raw
	defer raw.Free()
	for {
		raw.Free()
		err := in.RecvMsg(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("drop stream: %w", errors.Join(errdefs.ErrInterrupted, err))
		}
		var out any = &raw
		if !chunkFrame(&raw) {
			m, err := decodeChunk(&raw)
			if err != nil {
				return nil, err
			}
			out = m
		}
		if err := st.SendMsg(out); err != nil {
			if errors.Is(err, io.EOF) {
				break // the agent answered early (a refusal): CloseAndRecv has it
			}
			return nil, err
		}
	}
	return st.CloseAndRecv()
}

// Field numbers of the drop's chunk messages, as the wire has them.
var (
	requestField = (&brokerv1.DropFilesRequest{}).ProtoReflect().Descriptor().Fields().ByName("request").Number()
	chunkField   = (&agentv1.DropFilesRequest{}).ProtoReflect().Descriptor().Fields().ByName("chunk").Number()
)

// chunkFrame reports whether raw, a brokerv1.DropFilesRequest, is exactly one request field that is exactly
// one chunk field (as protobuf encoders write a chunk message), and then leaves raw holding the request
// field's content: the agent message, to pass on.
func chunkFrame(raw *wirecodec.Raw) bool {
	var buf [24]byte
	head := raw.Head(buf[:])
	num, off, n, ok := wirecodec.Field(head)
	if !ok || num != requestField || off+n != raw.Len() {
		return false
	}
	num, coff, cn, ok := wirecodec.Field(head[off:])
	if !ok || num != chunkField || coff+cn != n {
		return false
	}
	raw.Skip(off)
	return true
}

// decodeChunk decodes and checks a chunk message in any other encoding.
func decodeChunk(raw *wirecodec.Raw) (*agentv1.DropFilesRequest, error) {
	var m brokerv1.DropFilesRequest
	if err := raw.Decode(&m); err != nil {
		return nil, err
	}
	if m.GetSessionId() != "" || m.GetRequest().GetChunk() == nil {
		return nil, &errdefs.BadRequest{Violations: []errdefs.Violation{{Field: "request.chunk",
			Description: "every message after the first holds a chunk only (no session_id, no header)"}}}
	}
	return m.GetRequest(), nil
}

// ReadStream is the caller's side of a read (grpc.ServerStreamingServer gives it): Send for the messages
// the broker builds, SendMsg for the data messages passed on as the guest's wire bytes (a *wirecodec.Raw).
type ReadStream interface {
	Send(*brokerv1.ReadFileResponse) error
	SendMsg(m any) error
}

// ReadFile forwards a read (an observation) from the guest to st, message by message; max_bytes is
// lowered to the principal's cap. The audit record (path, size, keyed hash of the sha256) is written once
// the guest's stream ended, and its sequence number rides on the last message, held back until then.
func (b *Broker) ReadFile(ctx context.Context, r *brokerv1.ReadFileRequest, st ReadStream) error {
	var info *agentv1.ReadFileInfo
	last, seq, err := run(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.ReadFileRequest, *agentv1.ReadFileResponse]{
		rpc:   RPCReadFile,
		check: validate.ReadFile,
		gate: func(cl *call, req *agentv1.ReadFileRequest) error {
			_, capBytes, denied := fileLimits(cl.c.Principal.Files)
			if denied {
				return b.filesDenied(cl)
			}
			if req.GetMaxBytes() == 0 || req.GetMaxBytes() > capBytes {
				req.MaxBytes = capBytes
			}
			return nil
		},
		extra: func(req *agentv1.ReadFileRequest) time.Duration { return transferTime(req.GetMaxBytes()) },
		send: func(ctx context.Context, c guestClients, req *agentv1.ReadFileRequest) (*agentv1.ReadFileResponse, error) {
			return forwardRead(ctx, c, req, &info, st)
		},
		answered: func(cl *call, last *agentv1.ReadFileResponse) {
			// The record names the file, its size and the keyed hash of its sha256 (the first and last
			// messages' fields), never the bytes.
			summary := &agentv1.ReadFileResponse{Info: info, Sha256: last.GetSha256()}
			cl.extraArgs = map[string]*structpb.Value{"response": structpb.NewStructValue(b.args(summary))}
		},
	})
	if err != nil {
		return err
	}
	return st.Send(&brokerv1.ReadFileResponse{Response: last, AuditSeq: seq})
}

// forwardRead passes the guest's messages to out, holding the last one back and returning it decoded; info
// is set from the first message. The messages are received as wire bytes: one that is just the data field
// goes out as a response field holding those bytes, neither decoded nor encoded again; the others (info,
// sha256) are decoded.
func forwardRead(ctx context.Context, c guestClients, req *agentv1.ReadFileRequest, info **agentv1.ReadFileInfo, out ReadStream) (*agentv1.ReadFileResponse, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := c.Files.ReadFile(ctx, req, grpc.ForceCodecV2(wirecodec.PassCodec{}))
	if err != nil {
		return nil, err
	}
	var held, cur wirecodec.Raw
	defer held.Free()
	defer cur.Free()
	holding := false
	for {
		cur.Free()
		err := st.RecvMsg(&cur)
		if errors.Is(err, io.EOF) {
			if !holding {
				return nil, fmt.Errorf("guest sent no message: %w", errdefs.ErrUnavailable)
			}
			return decodeRead(&held)
		}
		if err != nil {
			return nil, err
		}
		if holding {
			if err := sendRead(out, &held, info); err != nil {
				return nil, fmt.Errorf("send: %w", errors.Join(errdefs.ErrInterrupted, err))
			}
		}
		held, cur, holding = cur, held, true
	}
}

// Field numbers of a read's messages, as the wire has them.
var (
	readDataField     = (&agentv1.ReadFileResponse{}).ProtoReflect().Descriptor().Fields().ByName("data").Number()
	readResponseField = (&brokerv1.ReadFileResponse{}).ProtoReflect().Descriptor().Fields().ByName("response").Number()
)

// sendRead sends one guest message of a read to out: a data-only message wrapped as it is, any other
// decoded (info is kept) and wrapped.
func sendRead(out ReadStream, raw *wirecodec.Raw, info **agentv1.ReadFileInfo) error {
	var buf [16]byte
	if num, off, n, ok := wirecodec.Field(raw.Head(buf[:])); ok && num == readDataField && off+n == raw.Len() {
		return out.SendMsg(raw.Wrap(readResponseField))
	}
	m, err := decodeRead(raw)
	if err != nil {
		return err
	}
	if m.GetInfo() != nil {
		*info = m.GetInfo()
	}
	return out.Send(&brokerv1.ReadFileResponse{Response: m})
}

// decodeRead decodes a guest message of a read; one that does not decode is the guest's fault.
func decodeRead(raw *wirecodec.Raw) (*agentv1.ReadFileResponse, error) {
	var m agentv1.ReadFileResponse
	if err := (wirecodec.PassCodec{}).Unmarshal(raw.Data, &m); err != nil {
		return nil, fmt.Errorf("guest message: %w", errors.Join(errdefs.ErrUnavailable, err))
	}
	return &m, nil
}

// ListDownloads lists the guest's browser download directory (an observation, refused when the policy
// forbids file transfer).
func (b *Broker) ListDownloads(ctx context.Context, r *brokerv1.ListDownloadsRequest) (*brokerv1.ListDownloadsResponse, error) {
	resp, seq, err := run(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.ListDownloadsRequest, *agentv1.ListDownloadsResponse]{
		rpc: RPCListDownloads,
		gate: func(cl *call, _ *agentv1.ListDownloadsRequest) error {
			if _, _, denied := fileLimits(cl.c.Principal.Files); denied {
				return b.filesDenied(cl)
			}
			return nil
		},
		send: func(ctx context.Context, c guestClients, req *agentv1.ListDownloadsRequest) (*agentv1.ListDownloadsResponse, error) {
			return c.Files.ListDownloads(ctx, req)
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.ListDownloadsResponse{Response: resp, AuditSeq: seq}, nil
}
