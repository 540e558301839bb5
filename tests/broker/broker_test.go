package broker_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/agenttest"
)

func act(r *agentv1.ActRequest, session string) *brokerv1.ActRequest {
	return &brokerv1.ActRequest{SessionId: session, Request: r}
}

func clickAt(x, y int32) *agentv1.ActRequest {
	return &agentv1.ActRequest{Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{At: &agentv1.Point{X: x, Y: y}, Button: agentv1.MouseButton_MOUSE_BUTTON_LEFT}}}
}

// TestTakeover: while a human holds the guest, every mutation is refused (and audited) and nothing moves
// on X; observations are served; after release an old generation is refused.
func TestTakeover(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb", "openbox", "xdotool")
	a := agenttest.Start(t, agenttest.Options{})
	b := startBroker(t, map[string]string{"vm1": "unix://" + a.Socket})
	ctx := context.Background()
	cc := brokerv1.NewComputerServiceClient(b.Conn)
	s := b.session(t, "vm1")
	if _, err := cc.Act(ctx, act(&agentv1.ActRequest{Action: &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{To: &agentv1.Point{X: 10, Y: 10}}}}, s)); err != nil {
		t.Fatal(err)
	}
	ctl := brokerv1.NewControlServiceClient(b.Conn)
	if _, err := ctl.AcquireControl(ctx, &brokerv1.AcquireControlRequest{Guest: "vm1", Reason: "human at the console"}); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		_, err := cc.Act(ctx, act(&agentv1.ActRequest{Action: &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{To: &agentv1.Point{X: 300 + int32(i), Y: 300}}}}, s))
		if !errors.Is(errgrpc.FromError(err), errdefs.ErrControlHeld) {
			t.Fatalf("mutation %d while held: %v", i, err)
		}
	}
	out, err := a.Desktop.Command("xdotool", "getmouselocation").Output()
	if err != nil || !strings.HasPrefix(string(out), "x:10 y:10 ") {
		t.Errorf("pointer moved while control was held: %s %v", out, err)
	}
	if _, err := cc.CaptureScreenshot(ctx, &brokerv1.CaptureScreenshotRequest{SessionId: s}); err != nil {
		t.Errorf("screenshot while held: %v", err)
	}
	rel, err := ctl.ReleaseControl(ctx, &brokerv1.ReleaseControlRequest{Guest: "vm1"})
	if err != nil {
		t.Fatal(err)
	}
	old := clickAt(5, 5)
	old.Target = &agentv1.Target{Generation: rel.GetGeneration() - 1}
	if _, err := cc.Act(ctx, act(old, s)); !errors.Is(errgrpc.FromError(err), errdefs.ErrGenerationChanged) {
		t.Errorf("old generation after release: %v", err)
	}
	recs, err := brokerv1.NewAuditServiceClient(b.Conn).ListAuditRecords(ctx, &brokerv1.ListAuditRecordsRequest{Guest: "vm1", SessionId: s, PageSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	held := 0
	for _, r := range recs.GetRecords() {
		if r.GetReason() == "CONTROL_HELD" {
			held++
		}
	}
	if held != 20 {
		t.Errorf("audit log has %d CONTROL_HELD refusals, want 20", held)
	}
}

// TestAgentKilledMidHoldKey: the agent dies while holding a key; when it comes back on the same endpoint the
// broker reconnects and releases everything, so no key is left down on the X server.
func TestAgentKilledMidHoldKey(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb", "openbox", "python3")
	dir, err := os.MkdirTemp("", "gbk")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "agent.sock")
	extra := []string{"-listen", "unix://" + sock}
	a := agenttest.Start(t, agenttest.Options{ExtraArgs: extra})
	b := startBroker(t, map[string]string{"vm1": "unix://" + sock})
	s := b.session(t, "vm1")
	cc := brokerv1.NewComputerServiceClient(b.Conn)
	errc := make(chan error, 1)
	go func() {
		_, err := cc.Act(context.Background(), act(&agentv1.ActRequest{Action: &agentv1.ActRequest_HoldKey{HoldKey: &agentv1.HoldKey{Combo: "shift", DurationMs: 20000}}}, s))
		errc <- err
	}()
	// keysDown lists the keycodes down on the X server (XQueryKeymap; `xinput query-state` cannot name the
	// master keyboard under Xvfb).
	keysDown := func() []string {
		out, err := a.Desktop.Command("python3", "-c", queryKeymap).Output()
		if err != nil {
			t.Fatalf("query keymap: %v", err)
		}
		return strings.Fields(string(out))
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(keysDown()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("hold_key never pressed a key")
		}
		time.Sleep(20 * time.Millisecond)
	}
	a.Kill()
	select {
	case err := <-errc:
		if !errors.Is(errgrpc.FromError(err), errdefs.ErrUnavailable) {
			t.Errorf("hold_key on a killed agent: %v, want UNAVAILABLE", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("hold_key call did not end when the agent died")
	}
	if len(keysDown()) == 0 {
		t.Log("note: the X server released the key when the agent's connection closed")
	}
	os.Remove(sock)
	agenttest.Start(t, agenttest.Options{Desktop: a.Desktop, ExtraArgs: extra})
	g := b.waitGuest(t, "vm1", brokerv1.GuestState_GUEST_STATE_READY, 15*time.Second)
	if g.GetGeneration() < 2 {
		t.Errorf("broker generation after agent restart = %d, want bumped", g.GetGeneration())
	}
	time.Sleep(200 * time.Millisecond)
	if down := keysDown(); len(down) != 0 {
		t.Errorf("keys still down after reconnect: %v", down)
	}
}

// TestTwoSessionsOwnDefaults: two sessions with different window defaults type into their own windows;
// each xterm's shell writes what it received to its own file.
func TestTwoSessionsOwnDefaults(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb", "openbox", "xterm", "xdotool")
	a := agenttest.Start(t, agenttest.Options{})
	b := startBroker(t, map[string]string{"vm1": "unix://" + a.Socket})
	dir := t.TempDir()
	for _, n := range []string{"alpha", "beta"} {
		a.Desktop.StartProgram(t, a.Desktop.Command("xterm", "-T", "win-"+n, "-geometry", "40x5", "-e", "sh", "-c", "read line; echo \"$line\" > "+filepath.Join(dir, n)+"; sleep 30"))
	}
	ctx := context.Background()
	cc := brokerv1.NewComputerServiceClient(b.Conn)
	sc := brokerv1.NewSessionServiceClient(b.Conn)
	sessions := map[string]string{}
	for _, n := range []string{"alpha", "beta"} {
		a.Desktop.WaitWindow(t, "win-"+n, 10*time.Second)
		sessions[n] = b.session(t, "vm1")
	}
	wins, err := cc.ListWindows(ctx, &brokerv1.ListWindowsRequest{SessionId: sessions["alpha"]})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wins.GetResponse().GetWindows() {
		for n, s := range sessions {
			if w.GetTitle() == "win-"+n {
				_, err := sc.SetSessionDefaults(ctx, &brokerv1.SetSessionDefaultsRequest{SessionId: s, DefaultTarget: &agentv1.Target{Kind: &agentv1.Target_Window{Window: &agentv1.WindowTarget{WindowId: w.GetId()}}}})
				if err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// Interleave the two sessions.
	for _, step := range []struct{ who, text string }{{"alpha", "from-"}, {"beta", "from-"}, {"alpha", "alpha\n"}, {"beta", "beta\n"}} {
		resp, err := cc.Act(ctx, act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: step.text}}}, sessions[step.who]))
		if err != nil {
			t.Fatalf("%s types: %v", step.who, err)
		}
		if src := resp.GetResponse().GetTarget().GetSource(); src != agentv1.TargetSource_TARGET_SOURCE_SESSION {
			t.Errorf("%s: source %v, want SESSION", step.who, src)
		}
	}
	for _, n := range []string{"alpha", "beta"} {
		var got []byte
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if got, _ = os.ReadFile(filepath.Join(dir, n)); len(got) > 0 {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if want := "from-" + n + "\n"; string(got) != want {
			t.Errorf("window %s received %q, want %q", n, got, want)
		}
	}
}

// queryKeymap prints the keycodes that are down, read with XQueryKeymap through libX11.
const queryKeymap = `
import ctypes as C
x = C.cdll.LoadLibrary("libX11.so.6")
x.XOpenDisplay.restype = C.c_void_p
d = x.XOpenDisplay(None)
k = (C.c_ubyte * 32)()
x.XQueryKeymap(C.c_void_p(d), k)
print(" ".join(str(i * 8 + b) for i in range(32) for b in range(8) if k[i] >> b & 1))
`
