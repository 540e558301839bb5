package a11y

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// TestErrorHygiene drives the real broker and agent with a real GTK app into the errors a caller must be able
// to act on, and checks each says what to do through its reason and ErrorInfo metadata, with the application's
// text only in metadata marked untrusted: an action the element does not offer (the app's action names are
// not in the message), a ref its snapshot never had (NOT_FOUND, not STALE_REF), a superseded snapshot (cause
// superseded), an agent-side bad field named with the broker's `request.` prefix, ReleaseControl of a guest
// nobody holds (an ErrorInfo reason, CONTROL_NOT_HELD), and SnapshotApp of an app that quit (TARGET_GONE, as
// for element actions). Each of these failed before (message text, STALE_REF, no cause, no prefix, a bare
// status, NOT_FOUND).
func TestErrorHygiene(t *testing.T) {
	testenv.NeedCommands(t, python)
	s, agent := startAgent(t)
	app := start(t, s, python, filepath.Join(agenttest.RepoRoot(t), "guest/internal/atspi/testdata/a11yapp.py"), "hygieneapp")
	app.waitLine(t, "ready", 20*time.Second)
	b := brokertest.Start(t, agent)
	conn, err := grpc.NewClient(b.URI, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	computer := brokerv1.NewComputerServiceClient(conn)
	ctx := ctxT(t, 90*time.Second)
	sess, err := brokerv1.NewSessionServiceClient(conn).CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: b.Guest, Mode: brokerv1.SessionMode_SESSION_MODE_ACT})
	if err != nil {
		t.Fatal(err)
	}
	sid, id := sess.GetSession().GetId(), appID(app.pid)
	waitOnBus(t, id, func(ctx2 context.Context) ([]*agentv1.App, error) {
		r, err := computer.ListApps(ctx2, &brokerv1.ListAppsRequest{SessionId: sid})
		return r.GetResponse().GetApps(), err
	})
	snapshot := func() *agentv1.Snapshot {
		t.Helper()
		r, err := computer.SnapshotApp(ctx, &brokerv1.SnapshotAppRequest{SessionId: sid, Request: &agentv1.SnapshotAppRequest{AppId: id}})
		if err != nil {
			t.Fatalf("SnapshotApp: %v", err)
		}
		return r.GetResponse().GetSnapshot()
	}
	act := func(r *agentv1.ActRequest) error {
		_, err := computer.Act(ctx, &brokerv1.ActRequest{SessionId: sid, Request: r})
		return errgrpc.FromError(err)
	}
	md := errgrpc.Metadata

	s1 := snapshot()
	button := find(t, s1, "push button", "Press me", false)
	el := func(snap *agentv1.Snapshot, ref string) *agentv1.ElementRef {
		return &agentv1.ElementRef{SnapshotId: snap.GetSnapshotId(), Ref: ref}
	}

	// An action the element does not offer: the app's action names only in untrusted metadata.
	err = act(&agentv1.ActRequest{Action: &agentv1.ActRequest_ElementDoAction{ElementDoAction: &agentv1.ElementDoAction{Element: el(s1, button.GetRef()), Action: "explode"}}})
	avail := md(err)["untrusted_available_actions"]
	if !errors.Is(err, errdefs.ErrUnsupportedAction) || len(button.GetActions()) == 0 || !strings.Contains(avail, `"`+button.GetActions()[0]+`"`) {
		t.Errorf("do_action explode: %v, untrusted_available_actions %q; want UNSUPPORTED_ACTION listing %v there", err, avail, button.GetActions())
	}
	for _, a := range button.GetActions() {
		if strings.Contains(strings.ToLower(err.Error()), strings.ToLower(a)) {
			t.Errorf("the message %q holds the app's action name %q", err, a)
		}
	}

	// A ref the snapshot never had.
	err = act(&agentv1.ActRequest{Action: &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{Element: el(s1, "e99999")}}})
	if !errors.Is(err, errdefs.ErrNotFound) || md(err)[errgrpc.MetaCause] != errgrpc.CauseNoSuchRef {
		t.Errorf("ref never in the snapshot: %v (metadata %v), want NOT_FOUND cause %s", err, md(err), errgrpc.CauseNoSuchRef)
	}

	// A superseded snapshot says so in its cause.
	snapshot()
	err = act(&agentv1.ActRequest{Action: &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{Element: el(s1, button.GetRef())}}})
	if !errors.Is(err, errdefs.ErrSnapshotSuperseded) || md(err)[errgrpc.MetaCause] != errgrpc.CauseSuperseded {
		t.Errorf("superseded snapshot: %v (metadata %v), want SNAPSHOT_SUPERSEDED cause %s", err, md(err), errgrpc.CauseSuperseded)
	}
	if app.printed("button clicked") {
		t.Error("the app was clicked by a refused request")
	}

	// The agent refuses a point outside the screen (the broker cannot know the screen): the field has the
	// broker's request. prefix.
	err = act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{At: &agentv1.Point{X: 100000, Y: 5}}}})
	var br *errdefs.BadRequest
	if !errors.As(err, &br) || len(br.Violations) != 1 || br.Violations[0].Field != "request.action.click.at" {
		t.Errorf("click outside the screen: %v, want INVALID_ARGUMENT naming request.action.click.at", err)
	}

	// ReleaseControl of a guest nobody holds carries an ErrorInfo reason.
	_, err = brokerv1.NewControlServiceClient(conn).ReleaseControl(ctx, &brokerv1.ReleaseControlRequest{Guest: b.Guest})
	if got := reason(err); got != "CONTROL_NOT_HELD" {
		t.Errorf("release when not held: %v (%s), want CONTROL_NOT_HELD", err, got)
	}

	// An app that quit is TARGET_GONE for SnapshotApp too.
	if err := syscall.Kill(int(app.pid), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Once the bus no longer lists it (before, SnapshotApp then said NOT_FOUND).
	deadline := time.Now().Add(10 * time.Second)
	for {
		r, err := computer.ListApps(ctx, &brokerv1.ListAppsRequest{SessionId: sid})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(r.GetResponse().GetApps(), func(a *agentv1.App) bool { return a.GetAppId() == id }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still on the bus 10s after it was killed", id)
		}
		time.Sleep(50 * time.Millisecond)
	}
	_, err = computer.SnapshotApp(ctx, &brokerv1.SnapshotAppRequest{SessionId: sid, Request: &agentv1.SnapshotAppRequest{AppId: id}})
	if got := reason(err); got != "TARGET_GONE" {
		t.Errorf("SnapshotApp of an app that quit: %v (%s), want TARGET_GONE", err, got)
	}
}
