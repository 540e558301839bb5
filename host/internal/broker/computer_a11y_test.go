package broker

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// The fake agent's snapshots are named "<app_id>.s<n>", so an element action tells its app like the real agent.

func (a *fakeAgent) readA11y(r proto.Message) {
	a.mu.Lock()
	a.a11y = append(a.a11y, proto.CloneOf(r))
	a.mu.Unlock()
}

func (a *fakeAgent) a11yReads() []proto.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]proto.Message(nil), a.a11y...)
}

func (a *fakeAgent) ListApps(ctx context.Context, r *agentv1.ListAppsRequest) (*agentv1.ListAppsResponse, error) {
	a.readA11y(r)
	return &agentv1.ListAppsResponse{Apps: []*agentv1.App{{AppId: "app:42", Name: "gedit", Pid: 42}}}, nil
}

func (a *fakeAgent) GetApp(ctx context.Context, r *agentv1.GetAppRequest) (*agentv1.GetAppResponse, error) {
	a.readA11y(r)
	return &agentv1.GetAppResponse{App: &agentv1.App{AppId: "app:42", Name: r.GetName(), Pid: 42}, Launched: r.GetLaunch(), Accessible: true, Pid: 42}, nil
}

func (a *fakeAgent) SnapshotApp(ctx context.Context, r *agentv1.SnapshotAppRequest) (*agentv1.SnapshotAppResponse, error) {
	a.readA11y(r)
	t := &agentv1.Target{Kind: &agentv1.Target_App{App: &agentv1.AppTarget{AppId: r.GetAppId()}}, Generation: 1000}
	a.mu.Lock()
	elems := a.elements
	a.mu.Unlock()
	return &agentv1.SnapshotAppResponse{Snapshot: &agentv1.Snapshot{SnapshotId: r.GetAppId() + ".s1", Target: t, Generation: 1000, Complete: true, Elements: elems}}, nil
}

func (a *fakeAgent) SnapshotWindow(ctx context.Context, r *agentv1.SnapshotWindowRequest) (*agentv1.SnapshotWindowResponse, error) {
	a.readA11y(r)
	t := &agentv1.Target{Kind: &agentv1.Target_App{App: &agentv1.AppTarget{AppId: r.GetAppId(), WindowId: r.GetWindowId()}}, Generation: 1000}
	return &agentv1.SnapshotWindowResponse{Snapshot: &agentv1.Snapshot{SnapshotId: r.GetAppId() + ".s2", Target: t, Generation: 1000, Complete: true}}, nil
}

// elementFrozen fills an element action's frozen ids as the real agent does: the snapshot's app, refusing a
// target naming another app.
func elementFrozen(r *agentv1.ActRequest, ft *agentv1.FrozenTarget) error {
	ref := elementRef(r)
	if ref == nil {
		return nil
	}
	app, _, _ := strings.Cut(ref.GetSnapshotId(), ".s")
	if t := r.GetTarget().GetApp(); t != nil && t.GetAppId() != app {
		return errdefs.ErrStaleRef
	}
	ft.Source, ft.DisplayId = agentv1.TargetSource_TARGET_SOURCE_EXPLICIT, ""
	ft.AppId, ft.SnapshotId, ft.ElementRef = app, ref.GetSnapshotId(), ref.GetRef()
	return nil
}

func appTarget(app, window string) *agentv1.Target {
	return &agentv1.Target{Kind: &agentv1.Target_App{App: &agentv1.AppTarget{AppId: app, WindowId: window}}}
}

func elementClick(snapshot, ref string) *agentv1.ActRequest {
	return &agentv1.ActRequest{Action: &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{
		Element: &agentv1.ElementRef{SnapshotId: snapshot, Ref: ref}}}}
}

const testWindow = "/org/a11y/atspi/accessible/1"

// TestElementSessionDefault: an element action without a target takes the session's default app (source
// SESSION), an explicit app target stays (EXPLICIT), a default that is not an app does not apply; the intent
// and outcome records name the app, snapshot and element.
func TestElementSessionDefault(t *testing.T) {
	tb, a := oneGuest(t)
	ctx := tb.as("agent")
	withApp, withWindow, none := tb.session(t, "agent", "g1"), tb.session(t, "agent", "g1"), tb.session(t, "agent", "g1")
	for s, def := range map[string]*agentv1.Target{withApp: appTarget("app:42", ""), withWindow: windowTarget(0x400001)} {
		if _, err := tb.SetSessionDefaults(ctx, &brokerv1.SetSessionDefaultsRequest{SessionId: s, DefaultTarget: def}); err != nil {
			t.Fatal(err)
		}
	}
	// The refs come from snapshots handed out by this broker (any other is refused, see TestFencingByDefault).
	for _, app := range []string{"app:42", "app:7"} {
		if _, err := tb.SnapshotApp(ctx, &brokerv1.SnapshotAppRequest{SessionId: none, Request: &agentv1.SnapshotAppRequest{AppId: app}}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name       string
		session    string
		req        *agentv1.ActRequest
		wantApp    string // the agent request's target app ("" = no target)
		wantSource agentv1.TargetSource
		wantReason string
	}{
		{"default app", withApp, elementClick("app:42.s1", "e7"), "app:42", agentv1.TargetSource_TARGET_SOURCE_SESSION, ""},
		{"default app, ref of another app", withApp, elementClick("app:7.s1", "e7"), "app:42", 0, "STALE_REF"},
		{"explicit app", withApp, withTarget(elementClick("app:7.s1", "e3"), appTarget("app:7", "")), "app:7", agentv1.TargetSource_TARGET_SOURCE_EXPLICIT, ""},
		{"window default ignored", withWindow, elementClick("app:7.s1", "e3"), "", agentv1.TargetSource_TARGET_SOURCE_EXPLICIT, ""},
		{"no default", none, elementClick("app:7.s1", "e3"), "", agentv1.TargetSource_TARGET_SOURCE_EXPLICIT, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before, recs := len(a.received()), len(tb.audit.records("g1"))
			resp, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: tc.session, Request: tc.req})
			if got := reason(err); got != tc.wantReason && !(tc.wantReason == "" && err == nil) {
				t.Fatalf("err = %v (%s), want %q", err, got, tc.wantReason)
			}
			got := a.received()[before]
			if _, isWindow := got.GetTarget().GetKind().(*agentv1.Target_Window); isWindow || got.GetTarget().GetApp().GetAppId() != tc.wantApp {
				t.Errorf("agent's target %v, want app %q", got.GetTarget(), tc.wantApp)
			}
			ref := elementRef(tc.req)
			wantApp, _, _ := strings.Cut(ref.GetSnapshotId(), ".s")
			if tc.wantReason != "" {
				wantApp = tc.wantApp
			}
			added := tb.audit.records("g1")[recs:]
			if len(added) != 2 {
				t.Fatalf("audit records %v, want intent and outcome", added)
			}
			for _, rec := range added {
				ft := rec.GetTarget()
				if phase := rec.GetPhase(); phase == brokerv1.AuditPhase_AUDIT_PHASE_INTENT && ft.GetAppId() != tc.wantApp ||
					phase == brokerv1.AuditPhase_AUDIT_PHASE_OUTCOME && ft.GetAppId() != wantApp ||
					ft.GetSnapshotId() != ref.GetSnapshotId() || ft.GetElementRef() != ref.GetRef() {
					t.Errorf("%v record's target %v", rec.GetPhase(), ft)
				}
			}
			if tc.wantReason != "" {
				return
			}
			if src := resp.GetResponse().GetTarget().GetSource(); src != tc.wantSource {
				t.Errorf("source %v, want %v", src, tc.wantSource)
			}
			if ft := resp.GetResponse().GetTarget(); ft.GetAppId() != wantApp || ft.GetSnapshotId() != ref.GetSnapshotId() {
				t.Errorf("response target %v", ft)
			}
		})
	}
}

func withTarget(r *agentv1.ActRequest, t *agentv1.Target) *agentv1.ActRequest {
	r.Target = t
	return r
}

// TestSnapshotSessionDefault: snapshots naming no app take the session's default app (and its window), the
// observation's record names the app and the snapshot taken, and the snapshot carries the broker's generation.
func TestSnapshotSessionDefault(t *testing.T) {
	tb, a := oneGuest(t)
	ctx := tb.as("agent")
	s, none := tb.session(t, "agent", "g1"), tb.session(t, "agent", "g1")
	if _, err := tb.SetSessionDefaults(ctx, &brokerv1.SetSessionDefaultsRequest{SessionId: s, DefaultTarget: appTarget("app:42", testWindow)}); err != nil {
		t.Fatal(err)
	}
	gen, _ := tb.guests["g1"].generations()
	type result struct {
		snap *agentv1.Snapshot
		err  error
	}
	snapApp := func(s string, r *agentv1.SnapshotAppRequest) result {
		resp, err := tb.SnapshotApp(ctx, &brokerv1.SnapshotAppRequest{SessionId: s, Request: r})
		return result{resp.GetResponse().GetSnapshot(), err}
	}
	snapWin := func(s string, r *agentv1.SnapshotWindowRequest) result {
		resp, err := tb.SnapshotWindow(ctx, &brokerv1.SnapshotWindowRequest{SessionId: s, Request: r})
		return result{resp.GetResponse().GetSnapshot(), err}
	}
	tests := []struct {
		name       string
		do         func() result
		wantSent   proto.Message
		wantTarget *agentv1.FrozenTarget
	}{
		{"app from default", func() result { return snapApp(s, nil) },
			&agentv1.SnapshotAppRequest{AppId: "app:42"},
			&agentv1.FrozenTarget{AppId: "app:42", SnapshotId: "app:42.s1", Source: agentv1.TargetSource_TARGET_SOURCE_SESSION, Generation: gen}},
		{"explicit app", func() result { return snapApp(s, &agentv1.SnapshotAppRequest{AppId: "app:7"}) },
			&agentv1.SnapshotAppRequest{AppId: "app:7"},
			&agentv1.FrozenTarget{AppId: "app:7", SnapshotId: "app:7.s1", Source: agentv1.TargetSource_TARGET_SOURCE_EXPLICIT, Generation: gen}},
		{"window from default", func() result { return snapWin(s, nil) },
			&agentv1.SnapshotWindowRequest{AppId: "app:42", WindowId: testWindow},
			&agentv1.FrozenTarget{AppId: "app:42", SnapshotId: "app:42.s2", Source: agentv1.TargetSource_TARGET_SOURCE_SESSION, Generation: gen}},
		{"window named, app from default", func() result {
			return snapWin(s, &agentv1.SnapshotWindowRequest{WindowId: "/org/a11y/atspi/accessible/9"})
		},
			&agentv1.SnapshotWindowRequest{AppId: "app:42", WindowId: "/org/a11y/atspi/accessible/9"},
			&agentv1.FrozenTarget{AppId: "app:42", SnapshotId: "app:42.s2", Source: agentv1.TargetSource_TARGET_SOURCE_SESSION, Generation: gen}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recs := len(tb.audit.records("g1"))
			got := tc.do()
			if got.err != nil {
				t.Fatal(got.err)
			}
			reads := a.a11yReads()
			if diff := cmp.Diff(tc.wantSent, reads[len(reads)-1], protocmp.Transform()); diff != "" {
				t.Errorf("agent request (-want +got):\n%s", diff)
			}
			if got.snap.GetGeneration() != gen || got.snap.GetTarget().GetGeneration() != gen {
				t.Errorf("snapshot generation %d/%d, want the broker's %d", got.snap.GetGeneration(), got.snap.GetTarget().GetGeneration(), gen)
			}
			added := tb.audit.records("g1")[recs:]
			if len(added) != 1 || added[0].GetPhase() != brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE {
				t.Fatalf("audit records %v, want one COMPLETE", added)
			}
			if diff := cmp.Diff(tc.wantTarget, added[0].GetTarget(), protocmp.Transform()); diff != "" {
				t.Errorf("audited target (-want +got):\n%s", diff)
			}
		})
	}

	before := len(a.a11yReads())
	_, err := tb.SnapshotApp(ctx, &brokerv1.SnapshotAppRequest{SessionId: none})
	if reason(err) != "INVALID_ARGUMENT" || !strings.Contains(err.Error(), "request.app_id") {
		t.Errorf("no app and no default: %v, want INVALID_ARGUMENT naming request.app_id", err)
	}
	if n := len(a.a11yReads()) - before; n != 0 {
		t.Errorf("agent received %d reads for a refused snapshot", n)
	}
	_, err = tb.SetSessionDefaults(ctx, &brokerv1.SetSessionDefaultsRequest{SessionId: none, DefaultTarget: appTarget("gedit", "")})
	if reason(err) != "INVALID_ARGUMENT" {
		t.Errorf("default app id %q: %v, want INVALID_ARGUMENT", "gedit", err)
	}
}

// TestGetAppLaunch: GetApp is an observation (one COMPLETE record, allowed observe-only and under a human's
// control); with launch it is a mutation: refused observe-only and under control, else an intent and an outcome.
func TestGetAppLaunch(t *testing.T) {
	tb, a := oneGuest(t)
	ctx := tb.as("agent")
	s := tb.session(t, "agent", "g1")
	watch, err := tb.CreateSession(tb.as("watcher"), &brokerv1.CreateSessionRequest{Guest: "g1"})
	if err != nil {
		t.Fatal(err)
	}
	find := &agentv1.GetAppRequest{Name: "gedit"}
	launch := &agentv1.GetAppRequest{Name: "gedit", Launch: true}
	tests := []struct {
		name       string
		ctx        context.Context
		session    string
		req        *agentv1.GetAppRequest
		control    bool
		wantReason string
		wantPhases []brokerv1.AuditPhase
	}{
		{"find", ctx, s, find, false, "", []brokerv1.AuditPhase{brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE}},
		{"find observe-only", tb.as("watcher"), watch.GetId(), find, false, "", []brokerv1.AuditPhase{brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE}},
		{"find under control", ctx, s, find, true, "", []brokerv1.AuditPhase{brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE}},
		{"launch", ctx, s, launch, false, "", []brokerv1.AuditPhase{brokerv1.AuditPhase_AUDIT_PHASE_INTENT, brokerv1.AuditPhase_AUDIT_PHASE_OUTCOME}},
		{"launch observe-only", tb.as("watcher"), watch.GetId(), launch, false, "READ_ONLY_SESSION", []brokerv1.AuditPhase{brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE}},
		{"launch under control", ctx, s, launch, true, "CONTROL_HELD", []brokerv1.AuditPhase{brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE}},
		{"launch with app_id", ctx, s, &agentv1.GetAppRequest{AppId: "app:42", Launch: true}, false, "INVALID_ARGUMENT", []brokerv1.AuditPhase{brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.control {
				if _, err := tb.AcquireControl(tb.as("human"), &brokerv1.AcquireControlRequest{Guest: "g1", Reason: "test"}); err != nil {
					t.Fatal(err)
				}
				defer func() {
					if _, err := tb.ReleaseControl(tb.as("human"), &brokerv1.ReleaseControlRequest{Guest: "g1"}); err != nil {
						t.Fatal(err)
					}
				}()
			}
			before, recs := len(a.a11yReads()), len(tb.audit.records("g1"))
			resp, err := tb.GetApp(tc.ctx, &brokerv1.GetAppRequest{SessionId: tc.session, Request: tc.req})
			if got := reason(err); got != tc.wantReason && !(tc.wantReason == "" && err == nil) {
				t.Fatalf("err = %v (%s), want %q", err, got, tc.wantReason)
			}
			if sent := len(a.a11yReads()) - before; (tc.wantReason == "") != (sent == 1) {
				t.Errorf("agent received %d GetApp", sent)
			}
			added := tb.audit.records("g1")[recs:]
			var phases []brokerv1.AuditPhase
			for _, r := range added {
				phases = append(phases, r.GetPhase())
			}
			if diff := cmp.Diff(tc.wantPhases, phases); diff != "" {
				t.Fatalf("audit phases (-want +got):\n%s", diff)
			}
			if tc.wantReason == "" && (resp.GetAuditSeq() != added[len(added)-1].GetSeq() || resp.GetResponse().GetApp().GetAppId() != "app:42") {
				t.Errorf("response %v, want app:42 and the last record's seq %d", resp, added[len(added)-1].GetSeq())
			}
			if tc.wantReason == "" && tc.req.GetLaunch() {
				if out := added[1]; out.GetIntentSeq() != added[0].GetSeq() || out.GetTarget().GetAppId() != "app:42" {
					t.Errorf("outcome record %v: want intent_seq %d and the app launched", out, added[0].GetSeq())
				}
			}
		})
	}
}

// TestListApps forwards the listing as an observation.
func TestListApps(t *testing.T) {
	tb, _ := oneGuest(t)
	ctx := tb.as("agent")
	s := tb.session(t, "agent", "g1")
	resp, err := tb.ListApps(ctx, &brokerv1.ListAppsRequest{SessionId: s})
	if err != nil {
		t.Fatal(err)
	}
	want := []*agentv1.App{{AppId: "app:42", Name: "gedit", Pid: 42}}
	if diff := cmp.Diff(want, resp.GetResponse().GetApps(), protocmp.Transform()); diff != "" {
		t.Errorf("apps (-want +got):\n%s", diff)
	}
	recs := tb.audit.records("g1")
	if last := recs[len(recs)-1]; last.GetRpc() != RPCListApps || last.GetSeq() != resp.GetAuditSeq() {
		t.Errorf("last audit record %v, want ListApps seq %d", last, resp.GetAuditSeq())
	}
}

// TestFencingByDefault: a snapshot handed out before control changed hands is refused with GENERATION_CHANGED
// although the caller echoes no generation, and nothing reaches the agent; a snapshot the broker never handed
// out is refused the same way; a fresh snapshot works.
func TestFencingByDefault(t *testing.T) {
	tb, a := oneGuest(t)
	ctx := tb.as("agent")
	s := tb.session(t, "agent", "g1")
	snap := func() string {
		t.Helper()
		r, err := tb.SnapshotApp(ctx, &brokerv1.SnapshotAppRequest{SessionId: s, Request: &agentv1.SnapshotAppRequest{AppId: "app:42"}})
		if err != nil {
			t.Fatal(err)
		}
		return r.GetResponse().GetSnapshot().GetSnapshotId()
	}
	old := snap()
	if _, err := tb.AcquireControl(tb.as("human"), &brokerv1.AcquireControlRequest{Guest: "g1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.ReleaseControl(tb.as("human"), &brokerv1.ReleaseControlRequest{Guest: "g1"}); err != nil {
		t.Fatal(err)
	}
	before := len(a.received())
	for _, tc := range []struct{ name, snapshot, cause string }{
		{"taken before the hand-over", old, "generation_changed"},
		{"never handed out", "app:42.s9", "snapshot_unknown"},
	} {
		_, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: elementClick(tc.snapshot, "e1")})
		if reason(err) != "GENERATION_CHANGED" || errgrpc.Metadata(err)["cause"] != tc.cause ||
			errgrpc.Metadata(err)["field"] != "request.action.element_click.element.snapshot_id" {
			t.Errorf("%s: %v (metadata %v), want GENERATION_CHANGED with cause %s naming the field", tc.name, err, errgrpc.Metadata(err), tc.cause)
		}
	}
	if got := len(a.received()); got != before {
		t.Errorf("the agent received %d refused element actions", got-before)
	}
	if _, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: elementClick(snap(), "e1")}); err != nil {
		t.Errorf("ref of a fresh snapshot: %v", err)
	}
}
