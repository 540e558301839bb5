package a11y

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/desktop"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// TestRecordingReplayElementSteps records an element click on a real GTK button through the broker, then
// replays it with `glovebox recording replay` on new instances of the app: a bigger window, moved elsewhere on
// the screen (xdotool; its geometry read back with xwininfo), whose button moved into a frame (found by role
// and name, "resolved differently", and the app's own output shows the click), and one whose button was
// renamed (the replay stops at the step with "not found", nothing clicked).
func TestRecordingReplayElementSteps(t *testing.T) {
	testenv.NeedCommands(t, python, "xdotool", "xwininfo")
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
	recorded := windowGeometry(t, s.Desktop, windowOf(t, s.Desktop, app.pid))
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
	to := [2]int{420, 150}
	if abs(recorded.x-to[0]) < 200 {
		to[0] = 20
	}
	win := windowOf(t, s.Desktop, moved.pid)
	moveCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if out, err := s.Desktop.CommandContext(moveCtx, "xdotool", "windowmove", "--sync", win, strconv.Itoa(to[0]), strconv.Itoa(to[1])).CombinedOutput(); err != nil {
		t.Fatalf("xdotool windowmove: %v %s", err, out)
	}
	if g := windowGeometry(t, s.Desktop, win); abs(g.x-recorded.x) < 100 || g.w < recorded.w+300 || g.h < recorded.h+200 {
		t.Fatalf("the replayed window is at %+v, the recorded one was at %+v: want it moved and bigger", g, recorded)
	} else {
		t.Logf("recorded window %+v, replayed window %+v", recorded, g)
	}
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

// geometry is a window's position on the root and its size, as xwininfo reads them.
type geometry struct{ x, y, w, h int }

// windowOf waits up to 10 s for a visible window of pid and returns its id.
func windowOf(t *testing.T, d *desktop.Desktop, pid int32) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, _ := d.Command("xdotool", "search", "--onlyvisible", "--pid", strconv.Itoa(int(pid))).Output()
		if f := strings.Fields(string(out)); len(f) > 0 {
			return f[len(f)-1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no visible window of pid %d within 10s", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// windowGeometry reads win's absolute position and size with xwininfo.
func windowGeometry(t *testing.T, d *desktop.Desktop, win string) geometry {
	t.Helper()
	out, err := d.Command("xwininfo", "-id", win).Output()
	if err != nil {
		t.Fatalf("xwininfo -id %s: %v", win, err)
	}
	var g geometry
	for _, line := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if !ok || err != nil {
			continue
		}
		switch k {
		case "Absolute upper-left X":
			g.x = n
		case "Absolute upper-left Y":
			g.y = n
		case "Width":
			g.w = n
		case "Height":
			g.h = n
		}
	}
	return g
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
