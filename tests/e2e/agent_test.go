// Package e2e tests the real glovebox-agent binary on a real Xvfb desktop, over its real transports, checking
// effects through programs the agent does not control (zenity, xclip, xinput, grpcurl).
package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/desktop"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/xstate"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestServesUnixAndTCP checks both transports answer GetInfo with the desktop backends available, and that
// the unix socket is private to its user.
func TestServesUnixAndTCP(t *testing.T) {
	a := agenttest.Start(t, agenttest.Options{})
	st, err := os.Stat(a.Socket)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != 0o600 {
		t.Errorf("unix socket mode = %o, want 600", got)
	}
	for name, conn := range map[string]*grpc.ClientConn{"unix": a.DialUnix(t), "tcp": a.DialTCP(t)} {
		info, err := agentv1.NewAgentServiceClient(conn).GetInfo(ctxT(t, 10*time.Second), &agentv1.GetInfoRequest{})
		if err != nil {
			t.Fatalf("%s: GetInfo: %v", name, err)
		}
		if info.GetProtocolVersion() != "glovebox.agent.v1" || info.GetXDisplay() != a.Desktop.Display || info.GetGeneration() == 0 {
			t.Errorf("%s: GetInfo = %v", name, info)
		}
		got := map[agentv1.Backend]agentv1.CapabilityState{}
		for _, c := range info.GetCapabilities() {
			got[c.GetBackend()] = c.GetState()
			if c.GetState() != agentv1.CapabilityState_CAPABILITY_STATE_AVAILABLE && c.GetReason() == "" {
				t.Errorf("%s: %v is %v without a reason", name, c.GetBackend(), c.GetState())
			}
		}
		// The browser backend depends on Chromium being installed (it can start the default workspace browser),
		// not on this desktop, so it is left out; this agent runs without an AT-SPI bus, so accessibility is
		// unavailable with a reason.
		delete(got, agentv1.Backend_BACKEND_BROWSER)
		want := map[agentv1.Backend]agentv1.CapabilityState{
			agentv1.Backend_BACKEND_SCREEN:        agentv1.CapabilityState_CAPABILITY_STATE_AVAILABLE,
			agentv1.Backend_BACKEND_INPUT:         agentv1.CapabilityState_CAPABILITY_STATE_AVAILABLE,
			agentv1.Backend_BACKEND_CLIPBOARD:     agentv1.CapabilityState_CAPABILITY_STATE_AVAILABLE,
			agentv1.Backend_BACKEND_ACCESSIBILITY: agentv1.CapabilityState_CAPABILITY_STATE_UNAVAILABLE,
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: capabilities (-want +got):\n%s", name, diff)
		}
		if len(info.GetDisplays()) == 0 || info.GetDisplays()[0].GetBounds().GetWidth() != int32(a.Desktop.Width) {
			t.Errorf("%s: displays = %v, want one %dx%d", name, info.GetDisplays(), a.Desktop.Width, a.Desktop.Height)
		}
	}
}

// TestGRPCurl uses grpcurl with no .proto files: reflection lists the services and health answers.
func TestGRPCurl(t *testing.T) {
	testenv.NeedCommands(t, "grpcurl")
	a := agenttest.Start(t, agenttest.Options{})
	out, err := exec.Command("grpcurl", "-plaintext", a.TCPAddr, "list").CombinedOutput()
	if err != nil {
		t.Fatalf("grpcurl list: %v\n%s", err, out)
	}
	for _, svc := range []string{"glovebox.agent.v1.AgentService", "glovebox.agent.v1.ObserveService",
		"glovebox.agent.v1.ActService", "glovebox.agent.v1.ClipboardService", "grpc.health.v1.Health"} {
		if !strings.Contains(string(out), svc) {
			t.Errorf("grpcurl list lacks %s:\n%s", svc, out)
		}
	}
	out, err = exec.Command("grpcurl", "-unix", "-plaintext", a.Socket, "grpc.health.v1.Health/Check").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "SERVING") {
		t.Errorf("grpcurl health over unix: %v\n%s", err, out)
	}
	out, err = exec.Command("grpcurl", "-plaintext", "-d", `{"owner":"t","click":{"count":7}}`, a.TCPAddr,
		"glovebox.agent.v1.ActService/Act").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "action.click.count") {
		t.Errorf("grpcurl bad click: err=%v, want an error naming action.click.count:\n%s", err, out)
	}
}

// TestTypeAndClipboardThroughBinary drives a real zenity entry and the clipboard through the binary, checking
// zenity's own output and xclip.
func TestTypeAndClipboardThroughBinary(t *testing.T) {
	testenv.NeedCommands(t, "zenity", "xclip")
	a := agenttest.Start(t, agenttest.Options{})
	conn := a.DialUnix(t)
	act := agentv1.NewActServiceClient(conn)

	var out strings.Builder
	z := a.Desktop.Command("zenity", "--entry", "--title", "e2e-entry")
	z.Stdout = &out
	a.Desktop.StartProgram(t, z)
	win := a.Desktop.WaitWindow(t, "e2e-entry", 15*time.Second)

	text := "Grüße 日本語 😀 ok"
	for _, req := range []*agentv1.ActRequest{
		{Owner: "e2e", Target: &agentv1.Target{Kind: &agentv1.Target_Window{Window: &agentv1.WindowTarget{WindowId: win}}},
			Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: text}}},
		{Owner: "e2e", Action: &agentv1.ActRequest_Key{Key: &agentv1.Key{Combo: "Return"}}},
	} {
		if _, err := act.Act(ctxT(t, 20*time.Second), req); err != nil {
			t.Fatalf("Act %v: %v", req.GetAction(), err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- z.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("zenity did not exit after Return")
	}
	if got := strings.TrimSuffix(out.String(), "\n"); got != text {
		t.Errorf("zenity read %q, want %q", got, text)
	}

	clip := agentv1.NewClipboardServiceClient(conn)
	if _, err := clip.WriteClipboard(ctxT(t, 10*time.Second), &agentv1.WriteClipboardRequest{Owner: "e2e", Text: "from agent ✓"}); err != nil {
		t.Fatal(err)
	}
	got, err := a.Desktop.Command("xclip", "-o", "-selection", "clipboard").Output()
	if err != nil || string(got) != "from agent ✓" {
		t.Errorf("xclip -o = %q, %v; want %q", got, err, "from agent ✓")
	}
}

// TestShutdownReleasesHeldKeys holds shift+a and the left button for an owner, stops the agent with SIGTERM,
// and checks on the X server (a connection of the test's own, not the agent) that nothing stays down.
func TestShutdownReleasesHeldKeys(t *testing.T) {
	a := agenttest.Start(t, agenttest.Options{})
	act := agentv1.NewActServiceClient(a.DialUnix(t))
	for _, req := range []*agentv1.ActRequest{
		{Owner: "holder", Action: &agentv1.ActRequest_KeyDown{KeyDown: &agentv1.KeyDown{Combo: "shift+a"}}},
		{Owner: "holder", Action: &agentv1.ActRequest_MouseDown{MouseDown: &agentv1.MouseDown{At: &agentv1.Point{X: 5, Y: 5}}}},
	} {
		if _, err := act.Act(ctxT(t, 10*time.Second), req); err != nil {
			t.Fatal(err)
		}
	}
	if d := down(t, a.Desktop); len(d.Keys) != 2 || len(d.Buttons) != 1 {
		t.Fatalf("after key_down shift+a and mouse_down: %v, want 2 keys and 1 button", d)
	}
	if !a.Signal(syscall.SIGTERM, 15*time.Second) {
		t.Fatal("agent did not exit within 15s of SIGTERM")
	}
	if code := a.ExitCode(); code != 0 {
		t.Errorf("agent exit code %d, want 0", code)
	}
	if d := down(t, a.Desktop); !d.Empty() {
		t.Errorf("still down after agent shutdown: %v", d)
	}
}

func down(t *testing.T, d *desktop.Desktop) xstate.Down {
	t.Helper()
	s, err := xstate.Query(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBadRequestIsRefusedWhole sends a request with several bad fields: every field is named and nothing
// happens (the pointer does not move).
func TestBadRequestIsRefusedWhole(t *testing.T) {
	testenv.NeedCommands(t, "xdotool")
	a := agenttest.Start(t, agenttest.Options{})
	before, _ := a.Desktop.Command("xdotool", "getmouselocation").Output()
	_, err := agentv1.NewActServiceClient(a.DialTCP(t)).Act(ctxT(t, 10*time.Second), &agentv1.ActRequest{
		Owner:  "bad",
		Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{At: &agentv1.Point{X: 10, Y: 10}, Count: 7, Modifiers: []string{"ctl"}}},
	})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("code = %v, want InvalidArgument (%v)", status.Code(err), err)
	}
	var br *errdefs.BadRequest
	if !errors.As(errgrpc.FromError(err), &br) {
		t.Fatalf("no BadRequest detail in %v", err)
	}
	var fields []string
	for _, v := range br.Violations {
		fields = append(fields, v.Field)
	}
	if diff := cmp.Diff([]string{"action.click.count", "action.click.modifiers[0]"}, fields); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	after, _ := a.Desktop.Command("xdotool", "getmouselocation").Output()
	if string(before) != string(after) {
		t.Errorf("pointer moved on a refused request: %q -> %q", before, after)
	}
}

// TestNoDisplay starts the agent on a display that does not exist: it still serves, reports each desktop
// backend unavailable with a reason, and refuses actions with CAPABILITY_UNAVAILABLE. (The browser backend
// talks to Chromium over CDP, not to X, so it is not a desktop backend here.)
func TestNoDisplay(t *testing.T) {
	d := desktop.Start(t, desktop.Options{NoWindowManager: true})
	a := agenttest.Start(t, agenttest.Options{Desktop: d, ExtraArgs: []string{"-display", ":4097"}})
	conn := a.DialUnix(t)
	info, err := agentv1.NewAgentServiceClient(conn).GetInfo(ctxT(t, 10*time.Second), &agentv1.GetInfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range info.GetCapabilities() {
		if c.GetBackend() == agentv1.Backend_BACKEND_BROWSER {
			continue
		}
		if c.GetState() == agentv1.CapabilityState_CAPABILITY_STATE_AVAILABLE || c.GetReason() == "" {
			t.Errorf("capability %v = %v %q, want unavailable with a reason", c.GetBackend(), c.GetState(), c.GetReason())
		}
	}
	_, err = agentv1.NewActServiceClient(conn).Act(ctxT(t, 10*time.Second), &agentv1.ActRequest{Owner: "x",
		Action: &agentv1.ActRequest_Key{Key: &agentv1.Key{Combo: "a"}}})
	if !errors.Is(errgrpc.FromError(err), errdefs.ErrCapabilityUnavailable) {
		t.Errorf("Act without display: %v, want CAPABILITY_UNAVAILABLE", err)
	}
}

// TestRefusesNonLoopbackTCP: the agent has no authentication, so it must not start on a public address
// unless told to.
func TestRefusesNonLoopbackTCP(t *testing.T) {
	bin := agenttest.Binary(t)
	out, err := exec.Command(bin, "-display", ":0", "-listen", "tcp://0.0.0.0:0").CombinedOutput()
	if err == nil {
		t.Fatalf("agent started on 0.0.0.0:\n%s", out)
	}
	if !strings.Contains(string(out), "tcp://0.0.0.0:0") || !strings.Contains(string(out), "loopback") {
		t.Errorf("error does not name the endpoint and the reason:\n%s", out)
	}
}

// TestAttachesDisplayLate starts the agent before its X server exists (as in a VM boot or a session service):
// it serves at once, reports the desktop unavailable, and attaches every desktop backend once the display
// appears, without a restart.
func TestAttachesDisplayLate(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb")
	d := desktop.Start(t, desktop.Options{NoWindowManager: true})
	display := desktop.FreeDisplay(t)
	a := agenttest.Start(t, agenttest.Options{Desktop: d, ExtraArgs: []string{"-display", display}})
	info := agentv1.NewAgentServiceClient(a.DialUnix(t))
	resp, err := info.GetInfo(ctxT(t, 10*time.Second), &agentv1.GetInfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if st := capability(resp, agentv1.Backend_BACKEND_SCREEN); st == agentv1.CapabilityState_CAPABILITY_STATE_AVAILABLE {
		t.Fatalf("screen available before the display exists")
	}

	xvfb := exec.Command("Xvfb", display, "-screen", "0", "800x600x24", "-nolisten", "tcp")
	if err := xvfb.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { xvfb.Process.Kill(); xvfb.Wait() })

	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err = info.GetInfo(ctxT(t, 10*time.Second), &agentv1.GetInfoRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if capability(resp, agentv1.Backend_BACKEND_SCREEN) == agentv1.CapabilityState_CAPABILITY_STATE_AVAILABLE &&
			capability(resp, agentv1.Backend_BACKEND_INPUT) == agentv1.CapabilityState_CAPABILITY_STATE_AVAILABLE &&
			capability(resp, agentv1.Backend_BACKEND_CLIPBOARD) == agentv1.CapabilityState_CAPABILITY_STATE_AVAILABLE {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("desktop backends not attached 15s after the display appeared: %v", resp.GetCapabilities())
		}
		time.Sleep(50 * time.Millisecond)
	}
	shot, err := agentv1.NewObserveServiceClient(a.DialUnix(t)).CaptureScreenshot(ctxT(t, 10*time.Second), &agentv1.CaptureScreenshotRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if w, h := shot.GetImage().GetWidth(), shot.GetImage().GetHeight(); w != 800 || h != 600 {
		t.Errorf("screenshot of the late display is %dx%d, want 800x600", w, h)
	}
}

func capability(info *agentv1.GetInfoResponse, b agentv1.Backend) agentv1.CapabilityState {
	for _, c := range info.GetCapabilities() {
		if c.GetBackend() == b {
			return c.GetState()
		}
	}
	return agentv1.CapabilityState_CAPABILITY_STATE_UNSPECIFIED
}
