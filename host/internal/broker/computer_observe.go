package broker

import (
	"context"

	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/validate"
)

// RPCObserve is the one-call observation's full method name, as recorded in the audit log.
const RPCObserve = "/glovebox.broker.v1.ComputerService/Observe"

// Observe answers a one-call observation of the session's guest (an observation: served while a human holds
// control and in observe-only sessions, never queued behind mutations). A request without a target takes the
// session's default app, tab or window (source SESSION); with neither it observes the active window (ACTIVE).
func (b *Broker) Observe(ctx context.Context, r *brokerv1.ObserveRequest) (*brokerv1.ObserveResponse, error) {
	cl, err := b.begin(ctx, RPCObserve, r.GetSessionId())
	if err != nil {
		return nil, err
	}
	req := orEmpty(r.GetRequest(), &agentv1.ObserveRequest{})
	observeTarget(cl, req)
	cl.args = req
	if err := checkRequest(validate.Observe(req)); err != nil {
		return nil, b.refuse(ctx, cl, err)
	}
	var resp *agentv1.ObserveResponse
	seq, err := b.observe(ctx, cl, func(ctx context.Context, c guestClients) error {
		var err error
		resp, err = c.Observe.Observe(ctx, req)
		if err == nil {
			if w := resp.GetWindow(); w != nil && cl.target.GetWindowId() == 0 && req.GetTarget().GetTab() == nil {
				cl.target.WindowId, cl.target.WindowTitle = w.GetId(), w.GetTitle()
			}
			stampSnapshot(cl, resp.GetSnapshot())
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.ObserveResponse{Response: resp, Target: cl.target, AuditSeq: seq}, nil
}

// observeTarget fills an Observe request's missing target from the session's default (an app, a tab or a
// window; a display default leaves it to the active window) and sets the call's frozen target.
func observeTarget(cl *call, req *agentv1.ObserveRequest) {
	src := agentv1.TargetSource_TARGET_SOURCE_EXPLICIT
	if req.GetTarget().GetKind() == nil {
		src = agentv1.TargetSource_TARGET_SOURCE_ACTIVE
		if d := cl.s.defaultTarget(); d != nil && d.GetDisplay() == nil && d.GetKind() != nil {
			if req.Target == nil {
				req.Target = &agentv1.Target{}
			}
			req.Target.Kind = proto.CloneOf(d).Kind
			src = agentv1.TargetSource_TARGET_SOURCE_SESSION
		}
	}
	gen, _ := cl.s.guest.generations()
	t := req.GetTarget()
	cl.target = &agentv1.FrozenTarget{WindowId: t.GetWindow().GetWindowId(), AppId: t.GetApp().GetAppId(),
		BrowserId: t.GetTab().GetBrowserId(), TabId: t.GetTab().GetTabId(), Source: src, Generation: gen}
}
