package a11y

import (
	"bytes"
	"context"
	"os"
	"os/exec"
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
	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// TestRecordingReplayElementSteps records an element click on a real GTK button through the broker, then
// replays it with `glovebox recording replay` on new instances of the app: a bigger window whose button
// moved into a frame (found by role and name, "resolved differently", and the app's own output shows the
// click), and one whose button was renamed (the replay stops at the step with "not found", nothing clicked).
func TestRecordingReplayElementSteps(t *testing.T) {
	testenv.NeedCommands(t, python)
	s, agent := startAgent(t)
	script := filepath.Join(agenttest.RepoRoot(t), "tests/a11y/testdata/recapp.py")
	b := brokertest.StartConfig(t, agent, func(cfg map[string]any) {
		cfg["recording"] = map[string]any{"principals": []string{"tester"}}
	})
	conn, err := grpc.NewClient(b.URI, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	computer, sessions := brokerv1.NewComputerServiceClient(conn), brokerv1.NewSessionServiceClient(conn)
	ctx := ctxT(t, 120*time.Second)
	sess, err := sessions.CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: b.Guest})
	if err != nil {
		t.Fatal(err)
	}
	sid := sess.GetSession().GetId()
	listApps := func(ctx context.Context) ([]*agentv1.App, error) {
		r, err := computer.ListApps(ctx, &brokerv1.ListAppsRequest{SessionId: sid})
		return r.GetResponse().GetApps(), err
	}
	launch := func(args ...string) *program {
		p := start(t, s, python, append([]string{script}, args...)...)
		p.waitLine(t, "ready", 20*time.Second)
		waitOnBus(t, appID(p.pid), listApps)
		return p
	}
	stop := func(p *program) {
		_ = syscall.Kill(int(p.pid), syscall.SIGKILL)
		deadline := time.Now().Add(20 * time.Second)
		for {
			apps, err := listApps(ctx)
			if err == nil && !slices.ContainsFunc(apps, func(a *agentv1.App) bool { return a.GetAppId() == appID(p.pid) }) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s still on the bus 20s after SIGKILL", appID(p.pid))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	// Record: the button clicked by ref of a snapshot the session read.
	app := launch("Save", "300", "200")
	if _, err := listApps(ctx); err != nil {
		t.Fatal(err)
	}
	snap, err := computer.SnapshotApp(ctx, &brokerv1.SnapshotAppRequest{SessionId: sid, Request: &agentv1.SnapshotAppRequest{AppId: appID(app.pid)}})
	if err != nil {
		t.Fatal(err)
	}
	button := find(t, snap.GetResponse().GetSnapshot(), "push button", "Save", false)
	if _, err := computer.Act(ctx, &brokerv1.ActRequest{SessionId: sid, Request: &agentv1.ActRequest{Action: &agentv1.ActRequest_ElementClick{
		ElementClick: &agentv1.ElementClick{Element: &agentv1.ElementRef{SnapshotId: snap.GetResponse().GetSnapshot().GetSnapshotId(), Ref: button.GetRef()}}}}}); err != nil {
		t.Fatal(err)
	}
	app.waitLine(t, "clicked: Save", 10*time.Second)
	if _, err := sessions.DeleteSession(ctx, &brokerv1.DeleteSessionRequest{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	recDir := filepath.Join(filepath.Dir(b.AuditDir), "recordings")
	entries, err := os.ReadDir(recDir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("recordings: %d, %v", len(entries), err)
	}
	id := entries[0].Name()
	// The session is closed: a new one lists the apps to tell when one left the bus.
	sess, err = sessions.CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: b.Guest})
	if err != nil {
		t.Fatal(err)
	}
	sid = sess.GetSession().GetId()
	stop(app)

	replay := func() (int, string) {
		t.Helper()
		cmd := exec.Command(brokertest.Binary(t, "glovebox"), "recording", "replay", id, "-guest", b.Guest)
		cmd.Env = append(os.Environ(), "GLOVEBOX_BROKER="+b.URI)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, out.String() + errOut.String()
	}

	// A bigger window, the button moved into a frame: found by role and name, clicked.
	moved := launch("Save", "800", "600", "framed")
	code, out := replay()
	if code != 0 || !strings.Contains(out, "step 0 element_click: resolved differently") {
		t.Fatalf("replay on the moved layout: exit %d\n%s", code, out)
	}
	moved.waitLine(t, "clicked: Save", 10*time.Second)
	stop(moved)

	// The button renamed: the replay stops at the step, "not found", and nothing is clicked.
	renamed := launch("Store", "300", "200")
	code, out = replay()
	if code != 1 || !strings.Contains(out, "step 0 element_click: not found") {
		t.Fatalf("replay on the renamed button: exit %d\n%s", code, out)
	}
	if renamed.printed("clicked: Store") {
		t.Error("the renamed button was clicked")
	}
}
