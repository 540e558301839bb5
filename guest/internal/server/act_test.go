package server

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jezek/xgb/xproto"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/testenv"
)

// Typed text is read back from the application: the probe's GTK entry prints its text on Return.
func TestActTypeReadBack(t *testing.T) {
	e := startActDesktop(t)
	p := e.startProbe(t, "probe-type")
	tests := []struct {
		name, text      string
		remapped        int32
		viaWindowTarget bool
	}{
		{"ascii", "Hello, World! ~`|{}<>?_+=-0123456789", 0, false},
		{"accented latin", "é ñ ü Ça déjà", 6, false},
		{"cjk", "日本語 中文", 5, true},
		{"emoji", "😀👍", 2, false},
		{"mixed", "a日b😀c", 2, true},
		{"repeated cjk", "語語語語語語語語語語", 10, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := typeText(tt.text)
			if tt.viaWindowTarget {
				onWindow(r, p.id)
			}
			resp := e.act(t, r)
			e.act(t, key("Return"))
			got := p.next(t, "text", 5*time.Second).Text
			if got != tt.text {
				t.Errorf("entry read back %q, want %q", got, tt.text)
			}
			if n := int32(len([]rune(tt.text))); resp.GetCharactersTyped() != n || resp.GetCharactersRemapped() != tt.remapped {
				t.Errorf("response: typed %d remapped %d, want %d, %d", resp.GetCharactersTyped(), resp.GetCharactersRemapped(), n, tt.remapped)
			}
			if resp.GetEffect() != agentv1.Effect_EFFECT_DONE || resp.GetTarget().GetWindowId() != p.id {
				t.Errorf("response effect %v target %v, want DONE on window %d", resp.GetEffect(), resp.GetTarget(), p.id)
			}
		})
	}
	t.Run("ctrl+a replaces", func(t *testing.T) {
		e.act(t, typeText("first"))
		e.act(t, key("ctrl+a"))
		e.act(t, typeText("second"))
		e.act(t, key("Return"))
		if got := p.next(t, "text", 5*time.Second).Text; got != "second" {
			t.Errorf("entry read back %q, want %q", got, "second")
		}
	})
	if got := e.keysDown(t); len(got) != 0 {
		t.Errorf("keys left down: %v", got)
	}
}

// zenity --entry prints its entry's text when Return is pressed: a second, independent program.
func TestActTypeZenity(t *testing.T) {
	testenv.NeedCommands(t, "zenity")
	e := startActDesktop(t)
	c := e.Command("zenity", "--entry", "--title", "zenity-type", "--text", "type here")
	var out strings.Builder
	c.Stdout = &out
	done := make(chan error, 1)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- c.Wait() }()
	t.Cleanup(func() { c.Process.Kill() })
	id := e.WaitWindow(t, "zenity-type", 15*time.Second)
	const text = "Grüße, 世界 😀!"
	e.act(t, onWindow(typeText(text), id))
	e.act(t, onWindow(key("Return"), id))
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("zenity did not exit after Return")
	}
	if got := strings.TrimSuffix(out.String(), "\n"); got != text {
		t.Errorf("zenity printed %q, want %q", got, text)
	}
}

// Clicks, modifiers, scroll and drag as the application received them.
func TestActPointerReadBack(t *testing.T) {
	e := startActDesktop(t)
	p := e.startProbe(t, "probe-pointer")
	at := p.area(0, 0)

	resp := e.act(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{At: at,
		Modifiers: []string{"ctrl"}}}})
	ev := p.next(t, "press", 5*time.Second)
	if ev.Button != 1 || ev.X != at.X || ev.Y != at.Y || ev.State&xproto.ModMaskControl == 0 {
		t.Errorf("ctrl+click seen as %+v, want button 1 at %d,%d with Control (0x4)", ev, at.X, at.Y)
	}
	if resp.GetTarget().GetWindowId() != p.id || resp.GetTarget().GetSource() != agentv1.TargetSource_TARGET_SOURCE_ACTIVE ||
		resp.GetTarget().GetWindowTitle() != "probe-pointer" {
		t.Errorf("frozen target %v, want the probe window under the pointer, ACTIVE", resp.GetTarget())
	}
	if !cmp.Equal(resp.GetPointer(), at, cmpProto) {
		t.Errorf("response pointer %v, want %v", resp.GetPointer(), at)
	}

	e.act(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{At: at,
		Button: agentv1.MouseButton_MOUSE_BUTTON_RIGHT, Modifiers: []string{"shift", "alt"}}}})
	ev = p.next(t, "press", 5*time.Second)
	if ev.Button != 3 || ev.State&xproto.ModMaskShift == 0 || ev.State&xproto.ModMask1 == 0 {
		t.Errorf("shift+alt right click seen as %+v, want button 3 with Shift and Mod1", ev)
	}

	e.act(t, onWindow(&agentv1.ActRequest{Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{At: at, Count: 2}}}, p.id))
	if ev := p.next(t, "press2", 5*time.Second); ev.Button != 1 {
		t.Errorf("double click seen as %+v", ev)
	}

	e.act(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Scroll{Scroll: &agentv1.Scroll{At: at, Dy: 3,
		Modifiers: []string{"shift"}}}})
	for i := range 3 {
		// GDK_SCROLL_DOWN is 1.
		if ev := p.next(t, "scroll", 5*time.Second); ev.Direction != 1 || ev.State&xproto.ModMaskShift == 0 {
			t.Errorf("scroll %d seen as %+v, want down (1) with Shift", i, ev)
		}
	}
	e.act(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Scroll{Scroll: &agentv1.Scroll{At: at, Dx: -1}}})
	if ev := p.next(t, "scroll", 5*time.Second); ev.Direction != 2 { // GDK_SCROLL_LEFT
		t.Errorf("scroll left seen as %+v", ev)
	}

	p.drain(200 * time.Millisecond)
	path := []*agentv1.Point{p.area(-100, -50), p.area(-50, -25), p.area(0, 0), p.area(50, 25), p.area(100, 50)}
	e.act(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Drag{Drag: &agentv1.Drag{Path: path, StepDelayMs: 10,
		Modifiers: []string{"ctrl"}}}})
	if ev := p.next(t, "press", 5*time.Second); ev.X != path[0].X || ev.Y != path[0].Y || ev.State&xproto.ModMaskControl == 0 {
		t.Errorf("drag press seen as %+v, want at %v with Control", ev, path[0])
	}
	var dragged int
	for {
		ev := <-p.events
		if ev.Ev == "release" {
			last := path[len(path)-1]
			if ev.X != last.X || ev.Y != last.Y || ev.Button != 1 {
				t.Errorf("drag release seen as %+v, want button 1 at %v", ev, last)
			}
			break
		}
		if ev.Ev == "motion" && ev.State&xproto.ButtonMask1 != 0 {
			dragged++
		}
	}
	// GTK compresses motion events that arrive within one frame, so on a loaded machine the probe may see
	// fewer motions than the path has steps; at least one with the button held shows the drag moved pressed.
	if dragged < 1 {
		t.Errorf("saw no motion with Button1Mask during the drag")
	}
	if _, _, mask := e.pointer(t); mask&(xproto.ButtonMask1|xproto.ModMaskControl) != 0 {
		t.Errorf("after drag the X server has mask %#x, want no button and no ctrl", mask)
	}
}

// Held keys and buttons belong to their owner until release_all, and a cancelled hold_key leaves nothing
// pressed; checked on an independent X connection.
func TestActHeldInput(t *testing.T) {
	e := startActDesktop(t)
	e.act(t, &agentv1.ActRequest{Owner: "alice", Action: &agentv1.ActRequest_KeyDown{KeyDown: &agentv1.KeyDown{Combo: "ctrl+shift"}}})
	resp := e.act(t, &agentv1.ActRequest{Owner: "alice", Action: &agentv1.ActRequest_MouseDown{MouseDown: &agentv1.MouseDown{
		At: &agentv1.Point{X: 400, Y: 300}}}})
	want := []*agentv1.HeldInput{{Key: "Control_L"}, {Key: "Shift_L"}, {Button: agentv1.MouseButton_MOUSE_BUTTON_LEFT}}
	if diff := cmp.Diff(want, resp.GetHeld(), cmpProto); diff != "" {
		t.Errorf("held (-want +got):\n%s", diff)
	}
	if len(e.keysDown(t)) != 2 {
		t.Errorf("keys down %v, want ctrl and shift", e.keysDown(t))
	}
	if _, _, mask := e.pointer(t); mask&xproto.ButtonMask1 == 0 {
		t.Errorf("button 1 not down, mask %#x", mask)
	}
	// Another owner's release_all releases nothing of alice's.
	if r := e.act(t, &agentv1.ActRequest{Owner: "bob", Action: &agentv1.ActRequest_ReleaseAll{ReleaseAll: &agentv1.ReleaseAll{}}}); len(r.GetReleased()) != 0 {
		t.Errorf("bob released %v", r.GetReleased())
	}
	resp = e.act(t, &agentv1.ActRequest{Owner: "alice", Action: &agentv1.ActRequest_ReleaseAll{ReleaseAll: &agentv1.ReleaseAll{}}})
	if len(resp.GetReleased()) != 3 || len(resp.GetHeld()) != 0 {
		t.Errorf("release_all: released %v held %v", resp.GetReleased(), resp.GetHeld())
	}
	if got := e.keysDown(t); len(got) != 0 {
		t.Errorf("keys down after release_all: %v", got)
	}
	if _, _, mask := e.pointer(t); mask&xproto.ButtonMask1 != 0 {
		t.Errorf("button 1 still down after release_all, mask %#x", mask)
	}

	t.Run("cancelled hold_key", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := e.client.Act(ctx, &agentv1.ActRequest{Owner: "alice", Action: &agentv1.ActRequest_HoldKey{
			HoldKey: &agentv1.HoldKey{Combo: "alt+x", DurationMs: 20000}}})
		if status.Code(err) != codes.DeadlineExceeded {
			t.Fatalf("hold_key cut by the deadline: %v", err)
		}
		deadline := time.Now().Add(time.Second)
		for len(e.keysDown(t)) != 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if got := e.keysDown(t); len(got) != 0 {
			t.Errorf("keys down %v after cancelled hold_key", got)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("cancelled hold_key took %v", d)
		}
	})

	t.Run("release everything", func(t *testing.T) {
		// A key pressed by another client (xdotool), not by any owner of this agent.
		testenv.NeedCommands(t, "xdotool")
		if out, err := e.Command("xdotool", "keydown", "shift").CombinedOutput(); err != nil {
			t.Fatalf("xdotool keydown: %v %s", err, out)
		}
		if len(e.keysDown(t)) == 0 {
			t.Fatal("xdotool keydown left nothing down")
		}
		resp := e.act(t, &agentv1.ActRequest{Owner: "broker", Action: &agentv1.ActRequest_ReleaseAll{
			ReleaseAll: &agentv1.ReleaseAll{Everything: true}}})
		if got := e.keysDown(t); len(got) != 0 {
			t.Errorf("keys down after release everything: %v (released %v)", got, resp.GetReleased())
		}
	})
}

// Explicit window targets are checked just before input.
func TestActWindowTarget(t *testing.T) {
	e := startActDesktop(t)
	a := e.startProbe(t, "probe-a")
	b := e.startProbe(t, "probe-b") // focused, and placed over a by the window manager if they overlap

	// A keyboard action on an explicit unfocused window focuses it first.
	resp := e.act(t, onWindow(typeText("to a"), a.id))
	e.act(t, onWindow(key("Return"), a.id))
	if got := a.next(t, "text", 5*time.Second).Text; got != "to a" {
		t.Errorf("a read back %q", got)
	}
	if got := resp.GetTarget(); got.GetWindowId() != a.id || got.GetSource() != agentv1.TargetSource_TARGET_SOURCE_EXPLICIT ||
		got.GetWindowTitle() != "probe-a" || got.GetGeneration() != 7 {
		t.Errorf("frozen target %v", got)
	}
	for _, ev := range b.drain(100 * time.Millisecond) {
		if ev.Ev == "text" {
			t.Errorf("b received text %q meant for a", ev.Text)
		}
	}

	// A closed window is TARGET_GONE and nothing is typed anywhere.
	if err := e.Command("xdotool", "windowkill", itoa(b.id)).Run(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := e.win.Get(context.Background(), b.id); err != nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, err := e.client.Act(context.Background(), onWindow(&agentv1.ActRequest{Owner: "test",
		Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: "lost"}}}, b.id))
	if !errors.Is(errgrpc.FromError(err), errdefs.ErrTargetGone) {
		t.Errorf("type into a closed window: %v, want TARGET_GONE", err)
	}
	e.act(t, onWindow(key("Return"), a.id))
	if got := a.next(t, "text", 5*time.Second).Text; got != "" {
		t.Errorf("a read back %q after the refused action, want nothing typed", got)
	}

	// A pointer action on an explicit window must land on it.
	_, err = e.client.Act(context.Background(), onWindow(&agentv1.ActRequest{Owner: "test",
		Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{At: &agentv1.Point{X: 1279, Y: 799}}}}, a.id))
	if !errors.Is(errgrpc.FromError(err), errdefs.ErrInvalidArgument) || !strings.Contains(err.Error(), "action.click.at") {
		t.Errorf("click outside the target window: %v, want INVALID_ARGUMENT on action.click.at", err)
	}
}

// A bad request is refused naming the field, and nothing is done.
func TestActBadRequest(t *testing.T) {
	e := startActDesktop(t)
	e.act(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{To: &agentv1.Point{X: 100, Y: 100}}}})
	path := []*agentv1.Point{{X: 1, Y: 1}, {X: 2, Y: 2}, {X: 3, Y: 3}, {X: 1280, Y: 3}}
	tests := []struct {
		name  string
		req   *agentv1.ActRequest
		field string
	}{
		{"click outside", &agentv1.ActRequest{Owner: "t", Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{At: &agentv1.Point{X: 5000, Y: 10}}}}, "action.click.at"},
		{"drag point outside", &agentv1.ActRequest{Owner: "t", Action: &agentv1.ActRequest_Drag{Drag: &agentv1.Drag{Path: path}}}, "action.drag.path[3]"},
		{"move negative", &agentv1.ActRequest{Owner: "t", Action: &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{To: &agentv1.Point{X: -1, Y: 0}}}}, "action.mouse_move.to"},
		{"unknown display", &agentv1.ActRequest{Owner: "t", Target: &agentv1.Target{Kind: &agentv1.Target_Display{Display: &agentv1.DisplayTarget{DisplayId: "nope"}}},
			Action: &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{To: &agentv1.Point{X: 1, Y: 1}}}}, "target.display.display_id"},
		{"no owner", &agentv1.ActRequest{Action: &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{To: &agentv1.Point{X: 1, Y: 1}}}}, "owner"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.client.Act(context.Background(), tt.req)
			st := status.Convert(err)
			if st.Code() != codes.InvalidArgument {
				t.Fatalf("code %v (%v), want INVALID_ARGUMENT", st.Code(), err)
			}
			var fields []string
			for _, d := range st.Details() {
				if br, ok := d.(*errdetails.BadRequest); ok {
					for _, v := range br.GetFieldViolations() {
						fields = append(fields, v.GetField())
					}
				}
			}
			if len(fields) != 1 || !strings.HasPrefix(fields[0], tt.field) {
				t.Errorf("violations on %v, want [%s]", fields, tt.field)
			}
			if x, y, _ := e.pointer(t); x != 100 || y != 100 {
				t.Errorf("pointer moved to %d,%d by a refused request", x, y)
			}
		})
	}
}

// An observation after the action carries a screenshot of the settled screen.
func TestActObserve(t *testing.T) {
	e := startActDesktop(t)
	resp := e.act(t, &agentv1.ActRequest{Observe: &agentv1.ObserveAfter{QuietMs: 20, TimeoutMs: 1000},
		Action: &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{To: &agentv1.Point{X: 50, Y: 60}}}})
	o := resp.GetObservation()
	if o.GetScreenshot().GetWidth() != 1280 || len(o.GetScreenshot().GetData()) == 0 {
		t.Errorf("observation screenshot %dx%d, %d bytes", o.GetScreenshot().GetWidth(), o.GetScreenshot().GetHeight(), len(o.GetScreenshot().GetData()))
	}
	if !cmp.Equal(o.GetCursor(), &agentv1.Point{X: 50, Y: 60}, cmpProto) {
		t.Errorf("observation cursor %v, want 50,60", o.GetCursor())
	}
	if tm := resp.GetTiming(); tm.GetTotalUs() <= 0 || tm.GetSettleUs() <= 0 || tm.GetTotalUs() < tm.GetDispatchUs() {
		t.Errorf("timing %v", tm)
	}
}

func itoa(id uint32) string { return strconv.FormatUint(uint64(id), 10) }

var cmpProto = protocmp.Transform()
