package broker

import (
	"context"
	"time"

	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/actions"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// Full method names of the accessibility surface, as recorded in the audit log.
const (
	RPCListApps       = "/glovebox.broker.v1.ComputerService/ListApps"
	RPCGetApp         = "/glovebox.broker.v1.ComputerService/GetApp"
	RPCSnapshotApp    = "/glovebox.broker.v1.ComputerService/SnapshotApp"
	RPCSnapshotWindow = "/glovebox.broker.v1.ComputerService/SnapshotWindow"
)

// sessionApp is the session's default app, nil when its default target is not an app.
func sessionApp(s *session) *agentv1.AppTarget {
	return s.defaultTarget().GetApp()
}

// elementRef is the element an element action names, nil for any other action.
func elementRef(r *agentv1.ActRequest) *agentv1.ElementRef {
	ref, _ := actions.ElementOf(r)
	return ref
}

// freezeElement freezes an element action's target and reports whether r is one. An app target is kept
// (EXPLICIT); no target takes the session's default app (SESSION, so the agent refuses a ref of another app);
// with no default app the target stays empty and the ref alone names the app (EXPLICIT). A session default
// that is not an app does not apply: an element action takes an app target or none. The frozen target names
// the app, snapshot and element, so the intent record already shows what is about to be acted on.
func (b *Broker) freezeElement(cl *call, r *agentv1.ActRequest) (bool, error) {
	ref := elementRef(r)
	if ref == nil {
		return false, nil
	}
	gen, agentGen, err := cl.s.guest.checkGeneration(r)
	if err != nil {
		return true, err
	}
	t := &agentv1.Target{}
	if r.GetTarget() != nil {
		t = proto.CloneOf(r.GetTarget())
	}
	src := agentv1.TargetSource_TARGET_SOURCE_EXPLICIT
	if t.GetKind() == nil {
		if app := sessionApp(cl.s); app != nil {
			t.Kind, src = &agentv1.Target_App{App: app}, agentv1.TargetSource_TARGET_SOURCE_SESSION
		}
	}
	t.Generation = agentGen
	r.Target = t
	cl.target = &agentv1.FrozenTarget{AppId: t.GetApp().GetAppId(), SnapshotId: ref.GetSnapshotId(),
		ElementRef: ref.GetRef(), Source: src, Generation: gen}
	return true, nil
}

// readApp fills a read's missing app (and window, when the request names neither) from the session's default
// app and sets the call's target.
func readApp(cl *call, appID, windowID *string) {
	src := agentv1.TargetSource_TARGET_SOURCE_EXPLICIT
	if *appID == "" {
		if app := sessionApp(cl.s); app != nil {
			*appID, src = app.GetAppId(), agentv1.TargetSource_TARGET_SOURCE_SESSION
			if windowID != nil && *windowID == "" {
				*windowID = app.GetWindowId()
			}
		}
	}
	gen, _ := cl.s.guest.generations()
	cl.target = &agentv1.FrozenTarget{AppId: *appID, Source: src, Generation: gen}
}

// stampSnapshot gives a snapshot the broker's generation (the one callers send back, as with every other
// target), binds its id to that generation (the generation read before the guest was asked, so a snapshot
// taken across a hand-over belongs to the older one) and records the id in the call's frozen target.
func stampSnapshot(cl *call, s *agentv1.Snapshot) {
	if s == nil {
		return
	}
	cl.s.guest.snapshots.handOut(s.GetSnapshotId(), cl.target.GetGeneration())
	s.Generation = cl.target.GetGeneration()
	if s.GetTarget() != nil {
		s.Target.Generation = cl.target.GetGeneration()
	}
	cl.target.SnapshotId = s.GetSnapshotId()
}

// ListApps lists the applications on the guest's AT-SPI bus (an observation).
func (b *Broker) ListApps(ctx context.Context, r *brokerv1.ListAppsRequest) (*brokerv1.ListAppsResponse, error) {
	resp, seq, err := run(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.ListAppsRequest, *agentv1.ListAppsResponse]{
		rpc: RPCListApps,
		send: func(ctx context.Context, c guestClients, req *agentv1.ListAppsRequest) (*agentv1.ListAppsResponse, error) {
			return c.Accessibility.ListApps(ctx, req)
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.ListAppsResponse{Response: resp, AuditSeq: seq}, nil
}

// GetApp finds an application: an observation, or a mutation (observe-only refused, control, policy, rate
// limit, durable intent and outcome) when request.launch may start a program.
func (b *Broker) GetApp(ctx context.Context, r *brokerv1.GetAppRequest) (*brokerv1.GetAppResponse, error) {
	var launch *call
	var replayed bool
	resp, seq, err := run(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.GetAppRequest, *agentv1.GetAppResponse]{
		rpc:       RPCGetApp,
		requestID: r.GetRequestId(),
		replayed:  &replayed,
		prepare: func(_ *call, req *agentv1.GetAppRequest) []errdefs.Violation {
			if !req.GetLaunch() {
				return nil // request_id is only read for a launch
			}
			return requestIDViolation(r.GetRequestId())
		},
		check: validate.GetApp,
		mutation: func(cl *call, req *agentv1.GetAppRequest) (mutation, bool) {
			if !req.GetLaunch() {
				return mutation{}, false
			}
			launch = cl
			gen, _ := cl.s.guest.generations()
			cl.target = &agentv1.FrozenTarget{Source: agentv1.TargetSource_TARGET_SOURCE_EXPLICIT, Generation: gen}
			// The agent waits up to launch_timeout_ms (0: 10 s) for the launched app to reach the bus.
			wait := req.GetLaunchTimeoutMs()
			if wait == 0 {
				wait = 10000
			}
			return mutation{extra: time.Duration(wait) * time.Millisecond}, true
		},
		send: func(ctx context.Context, c guestClients, req *agentv1.GetAppRequest) (*agentv1.GetAppResponse, error) {
			return c.Accessibility.GetApp(ctx, req)
		},
		answered: func(cl *call, resp *agentv1.GetAppResponse) {
			if cl.target != nil {
				cl.target.AppId = resp.GetApp().GetAppId()
				resp.Target = reportTarget(cl, resp.GetTarget())
			}
		},
	})
	if err != nil {
		return nil, err
	}
	var timing *brokerv1.MutationTiming
	if launch != nil {
		timing = launch.timing
	}
	return &brokerv1.GetAppResponse{Response: resp, AuditSeq: seq, Timing: timing, Replayed: replayed}, nil
}

// SnapshotApp snapshots an application (an observation); no app_id: the session's default app.
func (b *Broker) SnapshotApp(ctx context.Context, r *brokerv1.SnapshotAppRequest) (*brokerv1.SnapshotAppResponse, error) {
	resp, seq, err := run(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.SnapshotAppRequest, *agentv1.SnapshotAppResponse]{
		rpc: RPCSnapshotApp,
		prepare: func(cl *call, req *agentv1.SnapshotAppRequest) []errdefs.Violation {
			readApp(cl, &req.AppId, nil)
			return nil
		},
		check: validate.SnapshotApp,
		snapshots: func(req *agentv1.SnapshotAppRequest) []actions.SnapshotRef {
			return optionSnapshots("options", req.GetOptions())
		},
		send: func(ctx context.Context, c guestClients, req *agentv1.SnapshotAppRequest) (*agentv1.SnapshotAppResponse, error) {
			return c.Accessibility.SnapshotApp(ctx, req)
		},
		answered: func(cl *call, resp *agentv1.SnapshotAppResponse) { stampSnapshot(cl, resp.GetSnapshot()) },
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.SnapshotAppResponse{Response: resp, AuditSeq: seq}, nil
}

// SnapshotWindow snapshots one window of an application (an observation); no app_id: the session's default
// app (and its window when the request names none).
func (b *Broker) SnapshotWindow(ctx context.Context, r *brokerv1.SnapshotWindowRequest) (*brokerv1.SnapshotWindowResponse, error) {
	resp, seq, err := run(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.SnapshotWindowRequest, *agentv1.SnapshotWindowResponse]{
		rpc: RPCSnapshotWindow,
		prepare: func(cl *call, req *agentv1.SnapshotWindowRequest) []errdefs.Violation {
			readApp(cl, &req.AppId, &req.WindowId)
			return nil
		},
		check: validate.SnapshotWindow,
		snapshots: func(req *agentv1.SnapshotWindowRequest) []actions.SnapshotRef {
			return optionSnapshots("options", req.GetOptions())
		},
		send: func(ctx context.Context, c guestClients, req *agentv1.SnapshotWindowRequest) (*agentv1.SnapshotWindowResponse, error) {
			return c.Accessibility.SnapshotWindow(ctx, req)
		},
		answered: func(cl *call, resp *agentv1.SnapshotWindowResponse) { stampSnapshot(cl, resp.GetSnapshot()) },
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.SnapshotWindowResponse{Response: resp, AuditSeq: seq}, nil
}

// defaultApp checks a session default that is an app (statically: the app may come and go).
func defaultApp(t *agentv1.AppTarget) error {
	var v errdefs.Violations
	validate.AppID(&v, "default_target.app.app_id", t.GetAppId(), true)
	return v.Err()
}
