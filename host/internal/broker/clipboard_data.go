package broker

import (
	"context"
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// Full method names of the clipboard's MIME and paste surface, as recorded in the audit log.
const (
	RPCListClipboardTargets = "/glovebox.broker.v1.ComputerService/ListClipboardTargets"
	RPCReadClipboardData    = "/glovebox.broker.v1.ComputerService/ReadClipboardData"
	RPCWriteClipboardData   = "/glovebox.broker.v1.ComputerService/WriteClipboardData"
	RPCPasteText            = "/glovebox.broker.v1.ComputerService/PasteText"
)

// ListClipboardTargets lists the targets the clipboard's owner offers (an observation).
func (b *Broker) ListClipboardTargets(ctx context.Context, r *brokerv1.ListClipboardTargetsRequest) (*brokerv1.ListClipboardTargetsResponse, error) {
	resp, seq, err := run(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.ListClipboardTargetsRequest, *agentv1.ListClipboardTargetsResponse]{
		rpc:   RPCListClipboardTargets,
		check: validate.ListClipboardTargets,
		send: func(ctx context.Context, c guestClients, req *agentv1.ListClipboardTargetsRequest) (*agentv1.ListClipboardTargetsResponse, error) {
			return c.Clipboard.ListClipboardTargets(ctx, req)
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.ListClipboardTargetsResponse{Response: resp, AuditSeq: seq}, nil
}

// ReadClipboardData reads the clipboard as one MIME target (an observation). The audit record holds the
// type, whether it was offered and the length, never the bytes.
func (b *Broker) ReadClipboardData(ctx context.Context, r *brokerv1.ReadClipboardDataRequest) (*brokerv1.ReadClipboardDataResponse, error) {
	resp, seq, err := run(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.ReadClipboardDataRequest, *agentv1.ReadClipboardDataResponse]{
		rpc:   RPCReadClipboardData,
		check: validate.ReadClipboardData,
		send: func(ctx context.Context, c guestClients, req *agentv1.ReadClipboardDataRequest) (*agentv1.ReadClipboardDataResponse, error) {
			return c.Clipboard.ReadClipboardData(ctx, req)
		},
		answered: func(cl *call, resp *agentv1.ReadClipboardDataResponse) {
			cl.extraArgs = map[string]*structpb.Value{"response": structpb.NewStructValue(b.args(resp))}
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.ReadClipboardDataResponse{Response: resp, AuditSeq: seq}, nil
}

// WriteClipboardData writes an image or a file list to the clipboard (a mutation). The audit records hold
// the type and length, never the bytes.
func (b *Broker) WriteClipboardData(ctx context.Context, r *brokerv1.WriteClipboardDataRequest) (*brokerv1.WriteClipboardDataResponse, error) {
	resp, seq, err := run(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.WriteClipboardDataRequest, *agentv1.WriteClipboardDataResponse]{
		rpc: RPCWriteClipboardData,
		prepare: func(cl *call, wr *agentv1.WriteClipboardDataRequest) []errdefs.Violation {
			bad := ownerViolation(wr.GetOwner(), cl.s.id)
			wr.Owner = cl.s.id
			cl.extraArgs = map[string]*structpb.Value{"length": structpb.NewNumberValue(float64(len(wr.GetData())))}
			return bad
		},
		check:    validate.WriteClipboardData,
		mutation: func(*call, *agentv1.WriteClipboardDataRequest) (mutation, bool) { return mutation{}, true },
		send: func(ctx context.Context, c guestClients, wr *agentv1.WriteClipboardDataRequest) (*agentv1.WriteClipboardDataResponse, error) {
			return c.Clipboard.WriteClipboardData(ctx, wr)
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.WriteClipboardDataResponse{Response: resp, AuditSeq: seq}, nil
}

// PasteText pastes text into a window (a mutation in the guest's input queue). r.confirm lets text that
// looks like a secret through the policy gate. The window falls back to the session's default window.
func (b *Broker) PasteText(ctx context.Context, r *brokerv1.PasteTextRequest) (*brokerv1.PasteTextResponse, error) {
	var target *agentv1.FrozenTarget
	resp, seq, err := run(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.PasteTextRequest, *agentv1.PasteTextResponse]{
		rpc: RPCPasteText,
		prepare: func(cl *call, pr *agentv1.PasteTextRequest) []errdefs.Violation {
			bad := ownerViolation(pr.GetOwner(), cl.s.id)
			pr.Owner = cl.s.id
			if r.GetConfirm() {
				cl.extraArgs = map[string]*structpb.Value{"confirm": structpb.NewBoolValue(true)}
			}
			return bad
		},
		check: validate.PasteText,
		mutation: func(cl *call, pr *agentv1.PasteTextRequest) (mutation, bool) {
			m := mutation{extra: time.Duration(max(pr.GetWaitMs(), 2000)) * time.Millisecond}
			if !r.GetConfirm() {
				m.gate = b.gates.CheckText("request.text", pr.GetText())
			}
			m.freeze = func() error {
				ar := &agentv1.ActRequest{}
				if id := pr.GetWindowId(); id != 0 {
					ar.Target = &agentv1.Target{Kind: &agentv1.Target_Window{Window: &agentv1.WindowTarget{WindowId: id}}}
				}
				t, err := b.freeze(cl, ar, true)
				pr.WindowId = t.GetWindow().GetWindowId()
				target = cl.target
				return err
			}
			return m, true
		},
		send: func(ctx context.Context, c guestClients, pr *agentv1.PasteTextRequest) (*agentv1.PasteTextResponse, error) {
			return c.Clipboard.PasteText(ctx, pr)
		},
		answered: func(cl *call, resp *agentv1.PasteTextResponse) {
			if cl.target.GetWindowId() == 0 {
				cl.target.WindowId = resp.GetWindowId()
			}
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.PasteTextResponse{Response: resp, Target: target, AuditSeq: seq}, nil
}
