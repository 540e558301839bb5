package broker

import (
	"context"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/validate"
)

// Full method names of the clipboard's MIME surface, as recorded in the audit log.
const (
	RPCListClipboardTargets = "/glovebox.broker.v1.ComputerService/ListClipboardTargets"
	RPCReadClipboardData    = "/glovebox.broker.v1.ComputerService/ReadClipboardData"
	RPCWriteClipboardData   = "/glovebox.broker.v1.ComputerService/WriteClipboardData"
)

// ListClipboardTargets lists the targets the clipboard's owner offers (an observation).
func (b *Broker) ListClipboardTargets(ctx context.Context, r *brokerv1.ListClipboardTargetsRequest) (*brokerv1.ListClipboardTargetsResponse, error) {
	cl, err := b.begin(ctx, RPCListClipboardTargets, r.GetSessionId())
	if err != nil {
		return nil, err
	}
	req := &agentv1.ListClipboardTargetsRequest{}
	if r.GetRequest() != nil {
		req = proto.CloneOf(r.GetRequest())
	}
	cl.args = req
	if err := checkRequest(validate.ListClipboardTargets(req)); err != nil {
		return nil, b.refuse(ctx, cl, err)
	}
	var resp *agentv1.ListClipboardTargetsResponse
	seq, err := b.observe(ctx, cl, func(ctx context.Context, c guestClients) error {
		var err error
		resp, err = c.Clipboard.ListClipboardTargets(ctx, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.ListClipboardTargetsResponse{Response: resp, AuditSeq: seq}, nil
}

// ReadClipboardData reads the clipboard as one MIME target (an observation). The audit record holds the
// type, whether it was offered and the length, never the bytes.
func (b *Broker) ReadClipboardData(ctx context.Context, r *brokerv1.ReadClipboardDataRequest) (*brokerv1.ReadClipboardDataResponse, error) {
	cl, err := b.begin(ctx, RPCReadClipboardData, r.GetSessionId())
	if err != nil {
		return nil, err
	}
	req := &agentv1.ReadClipboardDataRequest{}
	if r.GetRequest() != nil {
		req = proto.CloneOf(r.GetRequest())
	}
	cl.args = req
	if err := checkRequest(validate.ReadClipboardData(req)); err != nil {
		return nil, b.refuse(ctx, cl, err)
	}
	var resp *agentv1.ReadClipboardDataResponse
	seq, err := b.observe(ctx, cl, func(ctx context.Context, c guestClients) error {
		var err error
		resp, err = c.Clipboard.ReadClipboardData(ctx, req)
		if err == nil {
			cl.extraArgs = map[string]*structpb.Value{"response": structpb.NewStructValue(b.args(resp))}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.ReadClipboardDataResponse{Response: resp, AuditSeq: seq}, nil
}

// WriteClipboardData writes an image or a file list to the clipboard (a mutation). The audit records hold
// the type and length, never the bytes.
func (b *Broker) WriteClipboardData(ctx context.Context, r *brokerv1.WriteClipboardDataRequest) (*brokerv1.WriteClipboardDataResponse, error) {
	cl, err := b.begin(ctx, RPCWriteClipboardData, r.GetSessionId())
	if err != nil {
		return nil, err
	}
	wr := &agentv1.WriteClipboardDataRequest{}
	if r.GetRequest() != nil {
		wr = proto.CloneOf(r.GetRequest())
	}
	bad := ownerViolation(wr.GetOwner(), cl.s.id)
	wr.Owner = cl.s.id
	cl.args = wr
	cl.extraArgs = map[string]*structpb.Value{"length": structpb.NewNumberValue(float64(len(wr.GetData())))}
	if err := checkRequest(validate.WriteClipboardData(wr), bad...); err != nil {
		return nil, b.refuse(ctx, cl, err)
	}
	var resp *agentv1.WriteClipboardDataResponse
	seq, err := b.mutate(ctx, cl, mutation{
		send: func(ctx context.Context, c guestClients) error {
			var err error
			resp, err = c.Clipboard.WriteClipboardData(ctx, wr)
			return err
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.WriteClipboardDataResponse{Response: resp, AuditSeq: seq}, nil
}

// RPCPasteText is the paste's full method name, as recorded in the audit log.
const RPCPasteText = "/glovebox.broker.v1.ComputerService/PasteText"

// PasteText pastes text into a window (a mutation in the guest's input queue). r.confirm lets text that
// looks like a secret through the policy gate. The window falls back to the session's default window.
func (b *Broker) PasteText(ctx context.Context, r *brokerv1.PasteTextRequest) (*brokerv1.PasteTextResponse, error) {
	cl, err := b.begin(ctx, RPCPasteText, r.GetSessionId())
	if err != nil {
		return nil, err
	}
	pr := &agentv1.PasteTextRequest{}
	if r.GetRequest() != nil {
		pr = proto.CloneOf(r.GetRequest())
	}
	bad := ownerViolation(pr.GetOwner(), cl.s.id)
	pr.Owner = cl.s.id
	cl.args = pr
	if r.GetConfirm() {
		cl.extraArgs = map[string]*structpb.Value{"confirm": structpb.NewBoolValue(true)}
	}
	if err := checkRequest(validate.PasteText(pr), bad...); err != nil {
		return nil, b.refuse(ctx, cl, err)
	}
	var gate error
	if !r.GetConfirm() {
		gate = b.gates.CheckText("request.text", pr.GetText())
	}
	var resp *agentv1.PasteTextResponse
	seq, err := b.mutate(ctx, cl, mutation{
		gate: gate,
		freeze: func() error {
			var t *agentv1.Target
			if id := pr.GetWindowId(); id != 0 {
				t = &agentv1.Target{Kind: &agentv1.Target_Window{Window: &agentv1.WindowTarget{WindowId: id}}}
			}
			t, err := b.freeze(cl, t, true)
			pr.WindowId = t.GetWindow().GetWindowId()
			return err
		},
		extra: time.Duration(max(pr.GetWaitMs(), 2000)) * time.Millisecond,
		send: func(ctx context.Context, c guestClients) error {
			var err error
			resp, err = c.Clipboard.PasteText(ctx, pr)
			if err == nil && cl.target.GetWindowId() == 0 {
				cl.target.WindowId = resp.GetWindowId()
			}
			return err
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.PasteTextResponse{Response: resp, Target: cl.target, AuditSeq: seq}, nil
}
