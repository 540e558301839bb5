package broker

import (
	"context"

	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/actions"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// RPCObserve is the one-call observation's full method name, as recorded in the audit log.
const RPCObserve = "/glovebox.broker.v1.ComputerService/Observe"

// Observe answers a one-call observation of the session's guest (an observation: served while a human holds
// control and in observe-only sessions, never queued behind mutations). A request without a target takes the
// session's default app, tab or window (source SESSION); with neither it observes the active window (ACTIVE).
func (b *Broker) Observe(ctx context.Context, r *brokerv1.ObserveRequest) (*brokerv1.ObserveResponse, error) {
	var target *agentv1.FrozenTarget
	resp, seq, err := run(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.ObserveRequest, *agentv1.ObserveResponse]{
		rpc: RPCObserve,
		prepare: func(cl *call, req *agentv1.ObserveRequest) []errdefs.Violation {
			observeTarget(cl, req)
			target = cl.target
			return nil
		},
		check: validate.Observe,
		snapshots: func(req *agentv1.ObserveRequest) []actions.SnapshotRef {
			return optionSnapshots("snapshot", req.GetSnapshot())
		},
		send: func(ctx context.Context, c guestClients, req *agentv1.ObserveRequest) (*agentv1.ObserveResponse, error) {
			return c.Observe.Observe(ctx, req)
		},
		answered: func(cl *call, resp *agentv1.ObserveResponse) {
			if w := resp.GetWindow(); w != nil && cl.target.GetWindowId() == 0 && cl.target.GetTabId() == "" {
				cl.target.WindowId, cl.target.WindowTitle = w.GetId(), w.GetTitle()
			}
			stampSnapshot(cl, resp.GetSnapshot())
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.ObserveResponse{Response: resp, Target: target, AuditSeq: seq}, nil
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

// optionSnapshots are the snapshot ids a snapshot's options name (under field): the cursor's snapshot and the
// subtree's. They are fenced like an action's (op.snapshots): a page or subtree of a snapshot taken before a
// hand-over would hand out refs that are refused.
func optionSnapshots(field string, o *agentv1.SnapshotOptions) []actions.SnapshotRef {
	var refs []actions.SnapshotRef
	if id, _, ok := validate.ParseCursor(o.GetCursor()); ok {
		refs = append(refs, actions.SnapshotRef{Field: field + ".cursor", ID: id})
	}
	if id := o.GetSubtree().GetSnapshotId(); id != "" {
		refs = append(refs, actions.SnapshotRef{Field: field + ".subtree", ID: id})
	}
	return refs
}
