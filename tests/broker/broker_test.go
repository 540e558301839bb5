package broker_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

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

// mutationBatch is one request of every desktop act verb, representatives of the browser page family (with
// made-up browser and tab ids: control is checked before anything reaches the guest) and a clipboard write,
// each valid as it stands. Accessibility element actions are missing: shared/validate refuses them
// ("element actions are not validated yet") before control is checked; add them when it checks them. wait is
// missing too: it is an observation, allowed while a human holds control (effects_test.go).
func mutationBatch() []struct {
	verb string
	act  *agentv1.ActRequest
} {
	pt := func(x, y int32) *agentv1.Point { return &agentv1.Point{X: x, Y: y} }
	left := agentv1.MouseButton_MOUSE_BUTTON_LEFT
	tab := &agentv1.TabRef{BrowserId: "chrome-9222", TabId: "tab-1"}
	sel := &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: "#q"}}
	acts := []*agentv1.ActRequest{
		{Action: &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{To: pt(300, 300)}}},
		clickAt(310, 310),
		{Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{At: pt(320, 320), Button: agentv1.MouseButton_MOUSE_BUTTON_RIGHT}}},
		{Action: &agentv1.ActRequest_MouseDown{MouseDown: &agentv1.MouseDown{At: pt(330, 330), Button: left}}},
		{Action: &agentv1.ActRequest_MouseUp{MouseUp: &agentv1.MouseUp{At: pt(330, 330), Button: left}}},
		{Action: &agentv1.ActRequest_Drag{Drag: &agentv1.Drag{Path: []*agentv1.Point{pt(340, 340), pt(400, 400)}, Button: left}}},
		{Action: &agentv1.ActRequest_Scroll{Scroll: &agentv1.Scroll{At: pt(350, 350), Dy: 3}}},
		{Action: &agentv1.ActRequest_Key{Key: &agentv1.Key{Combo: "ctrl+a"}}},
		{Action: &agentv1.ActRequest_KeyDown{KeyDown: &agentv1.KeyDown{Combo: "shift"}}},
		{Action: &agentv1.ActRequest_KeyUp{KeyUp: &agentv1.KeyUp{Combo: "shift"}}},
		{Action: &agentv1.ActRequest_HoldKey{HoldKey: &agentv1.HoldKey{Combo: "alt", DurationMs: 100}}},
		{Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: "while held"}}},
		{Action: &agentv1.ActRequest_ReleaseAll{ReleaseAll: &agentv1.ReleaseAll{}}},
		{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: tab, Url: "https://example.com/"}}},
		{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: tab, Locator: sel}}},
		{Action: &agentv1.ActRequest_Fill{Fill: &agentv1.Fill{Tab: tab, Locator: sel, Text: "while held"}}},
	}
	var out []struct {
		verb string
		act  *agentv1.ActRequest
	}
	for _, a := range acts {
		fd := a.ProtoReflect().WhichOneof(a.ProtoReflect().Descriptor().Oneofs().ByName("action"))
		out = append(out, struct {
			verb string
			act  *agentv1.ActRequest
		}{string(fd.Name()), a})
	}
	return append(out, struct {
		verb string
		act  *agentv1.ActRequest
	}{verb: "write_clipboard"})
}

// TestTakeover: while a human holds the guest, every mutation (each act verb and a clipboard write, from
// two sessions) is refused with CONTROL_HELD and audited as such, and nothing changes on X (pointer,
// clipboard, keys); observations (screenshot, windows, cursor, clipboard read) are served; after release a
// request carrying the old generation is refused with GENERATION_CHANGED.
func TestTakeover(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb", "openbox", "xdotool", "xclip", "python3")
	a := agenttest.Start(t, agenttest.Options{})
	b := startBroker(t, map[string]string{"vm1": "unix://" + a.Socket})
	ctx := context.Background()
	cc := brokerv1.NewComputerServiceClient(b.Conn)
	sessions := []string{b.session(t, "vm1"), b.session(t, "vm1")}
	if _, err := cc.Act(ctx, act(&agentv1.ActRequest{Action: &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{To: &agentv1.Point{X: 10, Y: 10}}}}, sessions[0])); err != nil {
		t.Fatal(err)
	}
	if _, err := cc.WriteClipboard(ctx, &brokerv1.WriteClipboardRequest{SessionId: sessions[0], Request: &agentv1.WriteClipboardRequest{Text: "before takeover"}}); err != nil {
		t.Fatal(err)
	}
	ctl := brokerv1.NewControlServiceClient(b.Conn)
	if _, err := ctl.AcquireControl(ctx, &brokerv1.AcquireControlRequest{Guest: "vm1", Reason: "human at the console"}); err != nil {
		t.Fatal(err)
	}
	batch := mutationBatch()
	refused := map[string]int{} // verb -> refusals seen by the callers
	for _, s := range sessions {
		for _, m := range batch {
			var err error
			if m.act == nil {
				_, err = cc.WriteClipboard(ctx, &brokerv1.WriteClipboardRequest{SessionId: s, Request: &agentv1.WriteClipboardRequest{Text: "during takeover"}})
			} else {
				_, err = cc.Act(ctx, act(proto.CloneOf(m.act), s))
			}
			if !errors.Is(errgrpc.FromError(err), errdefs.ErrControlHeld) {
				t.Errorf("%s while held: %v, want CONTROL_HELD", m.verb, err)
				continue
			}
			refused[m.verb]++
		}
	}

	// Observations are served while held.
	if _, err := cc.CaptureScreenshot(ctx, &brokerv1.CaptureScreenshotRequest{SessionId: sessions[1]}); err != nil {
		t.Errorf("screenshot while held: %v", err)
	}
	if _, err := cc.ListWindows(ctx, &brokerv1.ListWindowsRequest{SessionId: sessions[1]}); err != nil {
		t.Errorf("windows while held: %v", err)
	}
	if _, err := cc.GetCursorPosition(ctx, &brokerv1.GetCursorPositionRequest{SessionId: sessions[1]}); err != nil {
		t.Errorf("cursor while held: %v", err)
	}
	if r, err := cc.ReadClipboard(ctx, &brokerv1.ReadClipboardRequest{SessionId: sessions[1]}); err != nil || r.GetResponse().GetText() != "before takeover" {
		t.Errorf("clipboard read while held: %q, %v", r.GetResponse().GetText(), err)
	}

	// Nothing happened on X, seen through X itself.
	if out, err := a.Desktop.Command("xdotool", "getmouselocation").Output(); err != nil || !strings.HasPrefix(string(out), "x:10 y:10 ") {
		t.Errorf("pointer moved while control was held: %s %v", out, err)
	}
	if out, err := a.Desktop.Command("xclip", "-o", "-selection", "clipboard").Output(); err != nil || string(out) != "before takeover" {
		t.Errorf("clipboard while control was held: %q %v", out, err)
	}
	if out, err := a.Desktop.Command("python3", "-c", queryKeymap).Output(); err != nil || strings.TrimSpace(string(out)) != "" {
		t.Errorf("keys down while control was held: %q %v", out, err)
	}

	rel, err := ctl.ReleaseControl(ctx, &brokerv1.ReleaseControlRequest{Guest: "vm1"})
	if err != nil {
		t.Fatal(err)
	}
	old := clickAt(5, 5)
	old.Target = &agentv1.Target{Generation: rel.GetGeneration() - 1}
	if _, err := cc.Act(ctx, act(old, sessions[0])); !errors.Is(errgrpc.FromError(err), errdefs.ErrGenerationChanged) {
		t.Errorf("old generation after release: %v", err)
	}
	cur := clickAt(5, 5)
	cur.Target = &agentv1.Target{Generation: rel.GetGeneration()}
	if _, err := cc.Act(ctx, act(cur, sessions[0])); err != nil {
		t.Errorf("current generation after release: %v", err)
	}

	// Every refusal is audited as CONTROL_HELD, verb by verb, and nothing of the batch was sent (no intent).
	audited := map[string]int{}
	for _, s := range sessions {
		recs, err := brokerv1.NewAuditServiceClient(b.Conn).ListAuditRecords(ctx, &brokerv1.ListAuditRecordsRequest{Guest: "vm1", SessionId: s, PageSize: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs.GetRecords() {
			if r.GetReason() != "CONTROL_HELD" {
				continue
			}
			if r.GetPhase() != brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE {
				t.Errorf("audit seq %d: CONTROL_HELD in phase %v", r.GetSeq(), r.GetPhase())
			}
			verb := "write_clipboard"
			if strings.HasSuffix(r.GetRpc(), "/Act") {
				verb = "?"
				for _, m := range batch {
					if _, ok := r.GetArgs().GetFields()[m.verb]; ok {
						verb = m.verb
					}
				}
			}
			audited[verb]++
		}
	}
	want := map[string]int{}
	for _, m := range batch {
		want[m.verb] += len(sessions)
	}
	if diff := cmp.Diff(want, refused); diff != "" {
		t.Errorf("CONTROL_HELD refusals (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, audited); diff != "" {
		t.Errorf("audited CONTROL_HELD refusals (-want +got):\n%s", diff)
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
