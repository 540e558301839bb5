package a11y

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// TestFencingByDefault: refs of an app snapshot and of a window snapshot taken through the real broker before
// a human took control and gave it back are refused with GENERATION_CHANGED although the caller echoes no
// generation, and the GTK app's own output shows no click; a fresh snapshot's ref clicks. (Before, the broker
// skipped the check when target.generation was 0 and the old ref clicked.)
func TestFencingByDefault(t *testing.T) {
	testenv.NeedCommands(t, python)
	s, agent := startAgent(t)
	app := start(t, s, python, filepath.Join(agenttest.RepoRoot(t), "guest/internal/atspi/testdata/a11yapp.py"), "fenceapp")
	app.waitLine(t, "ready", 20*time.Second)
	b := brokertest.Start(t, agent)
	conn, err := grpc.NewClient(b.URI, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	computer, control := brokerv1.NewComputerServiceClient(conn), brokerv1.NewControlServiceClient(conn)
	ctx := ctxT(t, 90*time.Second)
	sess, err := brokerv1.NewSessionServiceClient(conn).CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: b.Guest, Mode: brokerv1.SessionMode_SESSION_MODE_ACT})
	if err != nil {
		t.Fatal(err)
	}
	sid, id := sess.GetSession().GetId(), appID(app.pid)
	var window string
	waitOnBus(t, id, func(ctx context.Context) ([]*agentv1.App, error) {
		r, err := computer.ListApps(ctx, &brokerv1.ListAppsRequest{SessionId: sid})
		for _, a := range r.GetResponse().GetApps() {
			if a.GetAppId() == id && len(a.GetWindows()) > 0 {
				window = a.GetWindows()[0].GetWindowId()
			}
		}
		return r.GetResponse().GetApps(), err
	})
	appSnap := func() *agentv1.Snapshot {
		t.Helper()
		r, err := computer.SnapshotApp(ctx, &brokerv1.SnapshotAppRequest{SessionId: sid, Request: &agentv1.SnapshotAppRequest{AppId: id}})
		if err != nil {
			t.Fatalf("SnapshotApp: %v", err)
		}
		return r.GetResponse().GetSnapshot()
	}
	windowSnap := func() *agentv1.Snapshot {
		t.Helper()
		r, err := computer.SnapshotWindow(ctx, &brokerv1.SnapshotWindowRequest{SessionId: sid, Request: &agentv1.SnapshotWindowRequest{AppId: id, WindowId: window}})
		if err != nil {
			t.Fatalf("SnapshotWindow %s: %v", window, err)
		}
		return r.GetResponse().GetSnapshot()
	}
	click := func(snap *agentv1.Snapshot) error {
		el := find(t, snap, "push button", "Press me", false)
		_, err := computer.Act(ctx, &brokerv1.ActRequest{SessionId: sid, Request: &agentv1.ActRequest{Action: &agentv1.ActRequest_ElementClick{
			ElementClick: &agentv1.ElementClick{Element: &agentv1.ElementRef{SnapshotId: snap.GetSnapshotId(), Ref: el.GetRef()}}}}})
		return err
	}

	for _, tc := range []struct {
		name string
		snap func() *agentv1.Snapshot
	}{{"app snapshot", appSnap}, {"window snapshot", windowSnap}} {
		old := tc.snap()
		if _, err := control.AcquireControl(ctx, &brokerv1.AcquireControlRequest{Guest: b.Guest, Reason: "a human looks"}); err != nil {
			t.Fatal(err)
		}
		released, err := control.ReleaseControl(ctx, &brokerv1.ReleaseControlRequest{Guest: b.Guest})
		if err != nil {
			t.Fatal(err)
		}
		// One generation number per guest on the broker API (before, Guest.agent.generation was the agent's
		// own counter, its start time).
		g, err := brokerv1.NewGuestServiceClient(conn).GetGuest(ctx, &brokerv1.GetGuestRequest{Name: b.Guest})
		if err != nil {
			t.Fatal(err)
		}
		if gen := released.GetGeneration(); g.GetGuest().GetGeneration() != gen || g.GetGuest().GetAgent().GetGeneration() != gen {
			t.Errorf("after release to generation %d: Guest.generation %d, Guest.agent.generation %d; want one number", gen, g.GetGuest().GetGeneration(), g.GetGuest().GetAgent().GetGeneration())
		}
		app.mu.Lock()
		app.lines = nil
		app.mu.Unlock()
		err = click(old)
		if got := reason(err); got != "GENERATION_CHANGED" || errgrpc.Metadata(errgrpc.FromError(err))[errgrpc.MetaCause] != errgrpc.CauseGenerationChanged {
			t.Errorf("%s: click with a ref from before the hand-over: %v (%s), want GENERATION_CHANGED with cause %s", tc.name, err, got, errgrpc.CauseGenerationChanged)
		}
		// The app handles its events in order: the fresh click's line comes after any line of the refused one.
		if err := click(tc.snap()); err != nil {
			t.Fatalf("%s: click with a fresh snapshot's ref: %v", tc.name, err)
		}
		app.waitLine(t, "button clicked", 5*time.Second)
		app.mu.Lock()
		n := strings.Count(strings.Join(app.lines, "\n"), "button clicked")
		app.mu.Unlock()
		if n != 1 {
			t.Errorf("%s: the app printed %d clicks, want 1 (the fresh snapshot's)", tc.name, n)
		}
	}
}
