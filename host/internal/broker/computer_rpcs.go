package broker

import (
	"context"
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// Full method names of the computer surface, as recorded in the audit log.
const (
	RPCCaptureScreenshot = "/glovebox.broker.v1.ComputerService/CaptureScreenshot"
	RPCGetCursorPosition = "/glovebox.broker.v1.ComputerService/GetCursorPosition"
	RPCListWindows       = "/glovebox.broker.v1.ComputerService/ListWindows"
	RPCWatchScreen       = "/glovebox.broker.v1.ComputerService/WatchScreen"
	RPCAct               = "/glovebox.broker.v1.ComputerService/Act"
	RPCReadClipboard     = "/glovebox.broker.v1.ComputerService/ReadClipboard"
	RPCWriteClipboard    = "/glovebox.broker.v1.ComputerService/WriteClipboard"
)

// ownerViolation checks that a wrapped request's owner is empty or the session's id.
func ownerViolation(owner, session string) []errdefs.Violation {
	if owner == "" || owner == session {
		return nil
	}
	return []errdefs.Violation{{Field: "request.owner", Description: "must be empty or the session id"}}
}

// Act performs one action through the session (a mutation).
func (b *Broker) Act(ctx context.Context, r *brokerv1.ActRequest) (*brokerv1.ActResponse, error) {
	cl, err := b.begin(ctx, RPCAct, r.GetSessionId())
	if err != nil {
		return nil, err
	}
	ar := &agentv1.ActRequest{}
	if r.GetRequest() != nil {
		ar = proto.CloneOf(r.GetRequest())
	}
	bad := ownerViolation(ar.GetOwner(), cl.s.id)
	ar.Owner = cl.s.id
	pageTarget(cl.s, ar)
	cl.args = ar
	if err := checkRequest(validate.ActRequest(ar), bad...); err != nil {
		return nil, b.refuse(ctx, cl, err)
	}
	var resp *agentv1.ActResponse
	seq, err := b.mutate(ctx, cl, mutation{
		gate: b.gates.CheckAct(ar),
		freeze: func() error {
			if ok, err := b.freezeElement(cl, ar); ok {
				return err
			}
			m, _ := tabField(ar)
			t, err := b.freeze(cl, ar.GetTarget(), m == nil && ar.GetNewTab() == nil)
			ar.Target = t
			return err
		},
		extra: actDuration(ar),
		send: func(ctx context.Context, c guestClients) error {
			var err error
			resp, err = c.Act.Act(ctx, ar)
			if err == nil {
				resp.Target = reportTarget(cl, resp.GetTarget())
				cl.target = resp.Target
			}
			return err
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.ActResponse{Response: resp, AuditSeq: seq}, nil
}

// WriteClipboard writes the guest's clipboard (a mutation). r.confirm lets text that looks like a secret
// through the policy gate; the audit records say it was set (args.confirm).
func (b *Broker) WriteClipboard(ctx context.Context, r *brokerv1.WriteClipboardRequest) (*brokerv1.WriteClipboardResponse, error) {
	cl, err := b.begin(ctx, RPCWriteClipboard, r.GetSessionId())
	if err != nil {
		return nil, err
	}
	wr := &agentv1.WriteClipboardRequest{}
	if r.GetRequest() != nil {
		wr = proto.CloneOf(r.GetRequest())
	}
	bad := ownerViolation(wr.GetOwner(), cl.s.id)
	wr.Owner = cl.s.id
	cl.args = wr
	if r.GetConfirm() {
		cl.extraArgs = map[string]*structpb.Value{"confirm": structpb.NewBoolValue(true)}
	}
	if err := checkRequest(validate.WriteClipboard(wr), bad...); err != nil {
		return nil, b.refuse(ctx, cl, err)
	}
	var gate error
	if !r.GetConfirm() {
		gate = b.gates.CheckText("request.text", wr.GetText())
	}
	var resp *agentv1.WriteClipboardResponse
	seq, err := b.mutate(ctx, cl, mutation{
		gate: gate,
		send: func(ctx context.Context, c guestClients) error {
			var err error
			resp, err = c.Clipboard.WriteClipboard(ctx, wr)
			return err
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.WriteClipboardResponse{Response: resp, AuditSeq: seq}, nil
}

// CaptureScreenshot takes a screenshot (an observation); options.display_id falls back to the session's
// default display.
func (b *Broker) CaptureScreenshot(ctx context.Context, r *brokerv1.CaptureScreenshotRequest) (*brokerv1.CaptureScreenshotResponse, error) {
	cl, err := b.begin(ctx, RPCCaptureScreenshot, r.GetSessionId())
	if err != nil {
		return nil, err
	}
	req := &agentv1.CaptureScreenshotRequest{}
	if r.GetRequest() != nil {
		req = proto.CloneOf(r.GetRequest())
	}
	cl.args = req
	if err := checkRequest(validate.CaptureScreenshot(req)); err != nil {
		return nil, b.refuse(ctx, cl, err)
	}
	gen, _ := cl.s.guest.generations()
	cl.target = &agentv1.FrozenTarget{DisplayId: req.GetOptions().GetDisplayId(), Source: agentv1.TargetSource_TARGET_SOURCE_EXPLICIT, Generation: gen}
	if cl.target.DisplayId == "" {
		cl.target.Source = agentv1.TargetSource_TARGET_SOURCE_ACTIVE
		if d := cl.s.defaultTarget().GetDisplay(); d != nil && d.GetDisplayId() != "" {
			if req.Options == nil {
				req.Options = &agentv1.ScreenshotOptions{}
			}
			req.Options.DisplayId = d.GetDisplayId()
			cl.target.DisplayId, cl.target.Source = d.GetDisplayId(), agentv1.TargetSource_TARGET_SOURCE_SESSION
		}
	}
	var resp *agentv1.CaptureScreenshotResponse
	seq, err := b.observe(ctx, cl, func(ctx context.Context, c guestClients) error {
		var err error
		resp, err = c.Observe.CaptureScreenshot(ctx, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.CaptureScreenshotResponse{Response: resp, Target: cl.target, AuditSeq: seq}, nil
}

// GetCursorPosition returns the pointer position (an observation).
func (b *Broker) GetCursorPosition(ctx context.Context, r *brokerv1.GetCursorPositionRequest) (*brokerv1.GetCursorPositionResponse, error) {
	cl, err := b.begin(ctx, RPCGetCursorPosition, r.GetSessionId())
	if err != nil {
		return nil, err
	}
	req := &agentv1.GetCursorPositionRequest{}
	cl.args = req
	var resp *agentv1.GetCursorPositionResponse
	seq, err := b.observe(ctx, cl, func(ctx context.Context, c guestClients) error {
		var err error
		resp, err = c.Observe.GetCursorPosition(ctx, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.GetCursorPositionResponse{Response: resp, AuditSeq: seq}, nil
}

// ListWindows lists the guest's windows (an observation).
func (b *Broker) ListWindows(ctx context.Context, r *brokerv1.ListWindowsRequest) (*brokerv1.ListWindowsResponse, error) {
	cl, err := b.begin(ctx, RPCListWindows, r.GetSessionId())
	if err != nil {
		return nil, err
	}
	req := &agentv1.ListWindowsRequest{}
	if r.GetRequest() != nil {
		req = proto.CloneOf(r.GetRequest())
	}
	cl.args = req
	if err := checkRequest(validate.ListWindows(req)); err != nil {
		return nil, b.refuse(ctx, cl, err)
	}
	var resp *agentv1.ListWindowsResponse
	seq, err := b.observe(ctx, cl, func(ctx context.Context, c guestClients) error {
		var err error
		resp, err = c.Observe.ListWindows(ctx, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.ListWindowsResponse{Response: resp, AuditSeq: seq}, nil
}

// ReadClipboard reads the guest's clipboard (an observation). The audit record holds the text's length and
// keyed hash only.
func (b *Broker) ReadClipboard(ctx context.Context, r *brokerv1.ReadClipboardRequest) (*brokerv1.ReadClipboardResponse, error) {
	cl, err := b.begin(ctx, RPCReadClipboard, r.GetSessionId())
	if err != nil {
		return nil, err
	}
	req := &agentv1.ReadClipboardRequest{}
	if r.GetRequest() != nil {
		req = proto.CloneOf(r.GetRequest())
	}
	cl.args = req
	if err := checkRequest(validate.ReadClipboard(req)); err != nil {
		return nil, b.refuse(ctx, cl, err)
	}
	var resp *agentv1.ReadClipboardResponse
	seq, err := b.observe(ctx, cl, func(ctx context.Context, c guestClients) error {
		var err error
		resp, err = c.Clipboard.ReadClipboard(ctx, req)
		if err == nil {
			cl.extraArgs = map[string]*structpb.Value{"response": structpb.NewStructValue(b.args(resp))}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.ReadClipboardResponse{Response: resp, AuditSeq: seq}, nil
}

// WatchScreen streams frames (an observation) to send until ctx ends or the guest stream does. It is
// audited when it starts (INTENT) and when it ends (OUTCOME).
func (b *Broker) WatchScreen(ctx context.Context, r *brokerv1.WatchScreenRequest, send func(*agentv1.WatchScreenResponse) error) error {
	cl, err := b.begin(ctx, RPCWatchScreen, r.GetSessionId())
	if err != nil {
		return err
	}
	req := &agentv1.WatchScreenRequest{}
	if r.GetRequest() != nil {
		req = proto.CloneOf(r.GetRequest())
	}
	cl.args = req
	if err := checkRequest(validate.WatchScreen(req)); err != nil {
		return b.refuse(ctx, cl, err)
	}
	clients, err := cl.s.guest.conn.Stream()
	if err != nil {
		return b.refuse(ctx, cl, err)
	}
	intent, err := b.appendAudit(ctx, b.record(cl, brokerv1.AuditPhase_AUDIT_PHASE_INTENT, nil))
	if err != nil {
		return err
	}
	err = b.watch(ctx, cl, clients, req, send)
	rec := b.record(cl, brokerv1.AuditPhase_AUDIT_PHASE_OUTCOME, err)
	rec.IntentSeq = intent
	if _, aerr := b.appendAudit(ctx, rec); err == nil {
		err = aerr
	}
	return err
}

func (b *Broker) watch(ctx context.Context, cl *call, clients guestClients, req *agentv1.WatchScreenRequest, send func(*agentv1.WatchScreenResponse) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	conn := cl.s.guest.conn
	st, err := clients.Observe.WatchScreen(ctx, req)
	if err != nil {
		return conn.Translate(ctx, err)
	}
	for {
		frame, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return conn.Translate(ctx, err)
		}
		cl.s.mu.Lock()
		cl.s.lastUsed = b.now()
		cl.s.mu.Unlock()
		if err := send(frame); err != nil {
			return fmt.Errorf("send frame: %w", err)
		}
	}
}
