package broker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"glovebox.dev/host/internal/config"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// Full method names of the file surface, as recorded in the audit log.
const (
	RPCDropFiles = "/glovebox.broker.v1.FilesService/DropFiles"
	RPCReadFile  = "/glovebox.broker.v1.FilesService/ReadFile"
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

// DropFiles forwards a drop (a mutation, outside the input queue) chunk by chunk from recv to the guest:
// the header is validated against the principal's caps and audited (names, sizes, keyed hashes of the
// sha256s) before the guest is asked; the outcome records the saved names and guest paths.
func (b *Broker) DropFiles(ctx context.Context, recv func() (*brokerv1.DropFilesRequest, error)) (*brokerv1.DropFilesResponse, error) {
	first, err := recv()
	if errors.Is(err, io.EOF) {
		return nil, &errdefs.BadRequest{Violations: []errdefs.Violation{{Field: "request.header", Description: "required as the first message"}}}
	}
	if err != nil {
		return nil, err
	}
	cl, err := b.begin(ctx, RPCDropFiles, first.GetSessionId())
	if err != nil {
		return nil, err
	}
	h := &agentv1.DropFilesHeader{}
	if first.GetRequest().GetHeader() != nil {
		h = proto.CloneOf(first.GetRequest().GetHeader())
	}
	bad := ownerViolation(h.GetOwner(), cl.s.id)
	h.Owner = cl.s.id
	cl.args = h
	lim, _, denied := fileLimits(cl.c.Principal.Files)
	if first.GetRequest().GetHeader() == nil {
		bad = append(bad, errdefs.Violation{Field: "request.header", Description: "required as the first message"})
	}
	if err := checkRequest(validate.DropFilesHeader(h, lim), bad...); err != nil {
		return nil, b.refuse(ctx, cl, err)
	}
	var gate error
	if denied {
		gate = b.filesDenied(cl)
	}
	var total int64
	for _, f := range h.GetFiles() {
		total += f.GetSize()
	}
	var resp *agentv1.DropFilesResponse
	seq, err := b.mutate(ctx, cl, mutation{
		gate:   gate,
		direct: true,
		extra:  transferTime(total),
		send: func(ctx context.Context, c guestClients) error {
			var err error
			resp, err = forwardDrop(ctx, c, h, recv)
			if err == nil {
				cl.extraArgs = map[string]*structpb.Value{"response": structpb.NewStructValue(b.args(resp))}
			}
			// The agent's bad fields (files[1].sha256) are named as in the broker's request.
			return checkRequest(cl.s.guest.conn.Translate(ctx, err))
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.DropFilesResponse{Response: resp, AuditSeq: seq}, nil
}

// forwardDrop streams the header and then every chunk from recv to the guest, one message at a time. A
// caller's stream that breaks cancels the guest's, so the agent keeps nothing of the drop.
func forwardDrop(ctx context.Context, c guestClients, h *agentv1.DropFilesHeader, recv func() (*brokerv1.DropFilesRequest, error)) (*agentv1.DropFilesResponse, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := c.Files.DropFiles(ctx)
	if err != nil {
		return nil, err
	}
	if err := st.Send(&agentv1.DropFilesRequest{Frame: &agentv1.DropFilesRequest_Header{Header: h}}); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	for {
		m, err := recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("drop stream: %w", errors.Join(errdefs.ErrInterrupted, err))
		}
		if m.GetSessionId() != "" || m.GetRequest().GetChunk() == nil {
			return nil, &errdefs.BadRequest{Violations: []errdefs.Violation{{Field: "request.chunk",
				Description: "every message after the first holds a chunk only (no session_id, no header)"}}}
		}
		if err := st.Send(m.GetRequest()); err != nil {
			if errors.Is(err, io.EOF) {
				break // the agent answered early (a refusal): CloseAndRecv has it
			}
			return nil, err
		}
	}
	return st.CloseAndRecv()
}

// ReadFile forwards a read (an observation) from the guest to send, message by message; max_bytes is
// lowered to the principal's cap. The audit record (path, size, keyed hash of the sha256) is written once
// the guest's stream ended, and its sequence number rides on the last message.
func (b *Broker) ReadFile(ctx context.Context, r *brokerv1.ReadFileRequest, send func(*brokerv1.ReadFileResponse) error) error {
	cl, err := b.begin(ctx, RPCReadFile, r.GetSessionId())
	if err != nil {
		return err
	}
	req := &agentv1.ReadFileRequest{}
	if r.GetRequest() != nil {
		req = proto.CloneOf(r.GetRequest())
	}
	cl.args = req
	if err := checkRequest(validate.ReadFile(req)); err != nil {
		return b.refuse(ctx, cl, err)
	}
	_, capBytes, denied := fileLimits(cl.c.Principal.Files)
	if denied {
		return b.refuse(ctx, cl, b.filesDenied(cl))
	}
	if req.GetMaxBytes() == 0 || req.GetMaxBytes() > capBytes {
		req.MaxBytes = capBytes
	}
	var last *agentv1.ReadFileResponse
	seq, err := b.observeFor(ctx, cl, transferTime(req.GetMaxBytes()), func(ctx context.Context, c guestClients) error {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		st, err := c.Files.ReadFile(ctx, req)
		if err != nil {
			return checkRequest(cl.s.guest.conn.Translate(ctx, err))
		}
		summary := &agentv1.ReadFileResponse{}
		for {
			m, err := st.Recv()
			if errors.Is(err, io.EOF) {
				cl.extraArgs = map[string]*structpb.Value{"response": structpb.NewStructValue(b.args(summary))}
				return nil
			}
			if err != nil {
				return checkRequest(cl.s.guest.conn.Translate(ctx, err))
			}
			if m.GetInfo() != nil {
				summary.Info = m.GetInfo()
			}
			if m.GetSha256() != "" {
				summary.Sha256 = m.GetSha256()
			}
			if last != nil {
				if err := send(&brokerv1.ReadFileResponse{Response: last}); err != nil {
					return fmt.Errorf("send: %w", errors.Join(errdefs.ErrInterrupted, err))
				}
			}
			last = m
		}
	})
	if err != nil {
		return err
	}
	if last == nil {
		last = &agentv1.ReadFileResponse{}
	}
	return send(&brokerv1.ReadFileResponse{Response: last, AuditSeq: seq})
}
