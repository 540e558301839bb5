package broker

import (
	"context"
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/types/known/structpb"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/actions"
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

// Act performs one action through the session (a mutation; wait and wait_for are observations).
func (b *Broker) Act(ctx context.Context, r *brokerv1.ActRequest) (*brokerv1.ActResponse, error) {
	var opened *call
	var replayed bool
	resp, seq, err := run(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.ActRequest, *agentv1.ActResponse]{
		rpc:       RPCAct,
		requestID: r.GetRequest().GetRequestId(),
		replayed:  &replayed,
		prepare: func(cl *call, ar *agentv1.ActRequest) []errdefs.Violation {
			opened = cl
			bad := ownerViolation(ar.GetOwner(), cl.s.id)
			ar.Owner = cl.s.id
			pageTarget(cl.s, ar)
			return bad
		},
		check: validate.ActRequest,
		mutation: func(cl *call, ar *agentv1.ActRequest) (mutation, bool) {
			return mutation{
				gate:   b.gates.CheckAct(ar),
				freeze: func() error { return b.freezeAct(cl, ar) },
				extra:  actDuration(ar),
				// wait and wait_for change nothing: another session's input must not wait behind them, and a
				// human holding control does not stop them.
				observation: actions.Observes(ar),
			}, true
		},
		send: func(ctx context.Context, c guestClients, ar *agentv1.ActRequest) (*agentv1.ActResponse, error) {
			return c.Act.Act(ctx, ar)
		},
		answered: func(cl *call, resp *agentv1.ActResponse) {
			resp.Target = reportTarget(cl, resp.GetTarget())
			cl.target = resp.Target
			cl.s.noteAction(cl.rpc, b.now(), resp.GetHeld(), true)
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.ActResponse{Response: resp, AuditSeq: seq, Timing: opened.timing, Replayed: replayed}, nil
}

// freezeAct freezes an action's target: an element action's app, else the tab of a page action or the
// desktop target of a desktop action (freeze).
func (b *Broker) freezeAct(cl *call, ar *agentv1.ActRequest) error {
	if ok, err := b.freezeElement(cl, ar); ok {
		return err
	}
	t, err := b.freeze(cl, ar, actions.Of(ar) != actions.Page)
	ar.Target = t
	return err
}

// WriteClipboard writes the guest's clipboard (a mutation). r.confirm lets text that looks like a secret
// through the policy gate; the audit records say it was set (args.confirm).
func (b *Broker) WriteClipboard(ctx context.Context, r *brokerv1.WriteClipboardRequest) (*brokerv1.WriteClipboardResponse, error) {
	var opened *call
	var replayed bool
	var scope []byte
	if r.GetConfirm() {
		scope = []byte("confirm")
	}
	resp, seq, err := run(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.WriteClipboardRequest, *agentv1.WriteClipboardResponse]{
		rpc:       RPCWriteClipboard,
		requestID: r.GetRequestId(),
		scope:     scope,
		replayed:  &replayed,
		prepare: func(cl *call, wr *agentv1.WriteClipboardRequest) []errdefs.Violation {
			opened = cl
			gen, _ := cl.s.guest.generations()
			cl.target = &agentv1.FrozenTarget{Source: agentv1.TargetSource_TARGET_SOURCE_EXPLICIT, Generation: gen}
			bad := append(ownerViolation(wr.GetOwner(), cl.s.id), requestIDViolation(r.GetRequestId())...)
			wr.Owner = cl.s.id
			if r.GetConfirm() {
				cl.extraArgs = map[string]*structpb.Value{"confirm": structpb.NewBoolValue(true)}
			}
			return bad
		},
		check: validate.WriteClipboard,
		mutation: func(_ *call, wr *agentv1.WriteClipboardRequest) (mutation, bool) {
			var m mutation
			if !r.GetConfirm() {
				m.gate = b.gates.CheckText("request.text", wr.GetText())
			}
			return m, true
		},
		send: func(ctx context.Context, c guestClients, wr *agentv1.WriteClipboardRequest) (*agentv1.WriteClipboardResponse, error) {
			return c.Clipboard.WriteClipboard(ctx, wr)
		},
		answered: func(cl *call, resp *agentv1.WriteClipboardResponse) {
			resp.Target = reportTarget(cl, resp.GetTarget())
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.WriteClipboardResponse{Response: resp, AuditSeq: seq, Timing: opened.timing, Replayed: replayed}, nil
}

// CaptureScreenshot takes a screenshot (an observation); options.display_id falls back to the session's
// default display.
func (b *Broker) CaptureScreenshot(ctx context.Context, r *brokerv1.CaptureScreenshotRequest) (*brokerv1.CaptureScreenshotResponse, error) {
	var target *agentv1.FrozenTarget
	resp, seq, err := run(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.CaptureScreenshotRequest, *agentv1.CaptureScreenshotResponse]{
		rpc: RPCCaptureScreenshot,
		prepare: func(cl *call, req *agentv1.CaptureScreenshotRequest) []errdefs.Violation {
			screenshotTarget(cl, req)
			target = cl.target
			return nil
		},
		check: validate.CaptureScreenshot,
		send: func(ctx context.Context, c guestClients, req *agentv1.CaptureScreenshotRequest) (*agentv1.CaptureScreenshotResponse, error) {
			return c.Observe.CaptureScreenshot(ctx, req)
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.CaptureScreenshotResponse{Response: resp, Target: target, AuditSeq: seq}, nil
}

// screenshotTarget fills a screenshot's missing display from the session's default display and sets the
// call's target.
func screenshotTarget(cl *call, req *agentv1.CaptureScreenshotRequest) {
	gen, _ := cl.s.guest.generations()
	cl.target = &agentv1.FrozenTarget{DisplayId: req.GetOptions().GetDisplayId(), Source: agentv1.TargetSource_TARGET_SOURCE_EXPLICIT, Generation: gen}
	if cl.target.DisplayId != "" {
		return
	}
	cl.target.Source = agentv1.TargetSource_TARGET_SOURCE_ACTIVE
	if d := cl.s.defaultTarget().GetDisplay(); d != nil && d.GetDisplayId() != "" {
		if req.Options == nil {
			req.Options = &agentv1.ScreenshotOptions{}
		}
		req.Options.DisplayId = d.GetDisplayId()
		cl.target.DisplayId, cl.target.Source = d.GetDisplayId(), agentv1.TargetSource_TARGET_SOURCE_SESSION
	}
}

// GetCursorPosition returns the pointer position (an observation).
func (b *Broker) GetCursorPosition(ctx context.Context, r *brokerv1.GetCursorPositionRequest) (*brokerv1.GetCursorPositionResponse, error) {
	resp, seq, err := run(ctx, b, r.GetSessionId(), (*agentv1.GetCursorPositionRequest)(nil), op[*agentv1.GetCursorPositionRequest, *agentv1.GetCursorPositionResponse]{
		rpc: RPCGetCursorPosition,
		send: func(ctx context.Context, c guestClients, req *agentv1.GetCursorPositionRequest) (*agentv1.GetCursorPositionResponse, error) {
			return c.Observe.GetCursorPosition(ctx, req)
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.GetCursorPositionResponse{Response: resp, AuditSeq: seq}, nil
}

// ListWindows lists the guest's windows (an observation).
func (b *Broker) ListWindows(ctx context.Context, r *brokerv1.ListWindowsRequest) (*brokerv1.ListWindowsResponse, error) {
	resp, seq, err := run(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.ListWindowsRequest, *agentv1.ListWindowsResponse]{
		rpc:   RPCListWindows,
		check: validate.ListWindows,
		send: func(ctx context.Context, c guestClients, req *agentv1.ListWindowsRequest) (*agentv1.ListWindowsResponse, error) {
			return c.Observe.ListWindows(ctx, req)
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.ListWindowsResponse{Response: resp, AuditSeq: seq}, nil
}

// ReadClipboard reads the guest's clipboard (an observation). The audit record holds the text's length and
// keyed hash only.
func (b *Broker) ReadClipboard(ctx context.Context, r *brokerv1.ReadClipboardRequest) (*brokerv1.ReadClipboardResponse, error) {
	resp, seq, err := run(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.ReadClipboardRequest, *agentv1.ReadClipboardResponse]{
		rpc:   RPCReadClipboard,
		check: validate.ReadClipboard,
		send: func(ctx context.Context, c guestClients, req *agentv1.ReadClipboardRequest) (*agentv1.ReadClipboardResponse, error) {
			return c.Clipboard.ReadClipboard(ctx, req)
		},
		answered: func(cl *call, resp *agentv1.ReadClipboardResponse) {
			cl.extraArgs = map[string]*structpb.Value{"response": structpb.NewStructValue(b.args(resp))}
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.ReadClipboardResponse{Response: resp, AuditSeq: seq}, nil
}

// WatchScreen streams frames (an observation) to send until ctx ends or the guest stream does. It is
// audited when it starts (INTENT) and when it ends (OUTCOME).
func (b *Broker) WatchScreen(ctx context.Context, r *brokerv1.WatchScreenRequest, send func(*agentv1.WatchScreenResponse) error) error {
	cl, req, err := open(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.WatchScreenRequest, *agentv1.WatchScreenResponse]{
		rpc: RPCWatchScreen, check: validate.WatchScreen,
	})
	if err != nil {
		return err
	}
	if err := cl.s.guest.screenHidden(); err != nil {
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
	return requestPaths(err)
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
