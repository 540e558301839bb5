package input

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"google.golang.org/protobuf/testing/protocmp"

	"glovebox.dev/guest/internal/x11/xconn"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/keysym"
	"glovebox.dev/shared/testenv/desktop"
)

// observer is an independent X connection that reads the server's input state, so tests check what the X
// server has, not what the device says.
type observer struct {
	conn *xgb.Conn
	root xproto.Window
}

func newObserver(t *testing.T, display string) *observer {
	t.Helper()
	c, err := xconn.Open(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	xconn.DiscardEvents(c)
	return &observer{conn: c, root: xproto.Setup(c).DefaultScreen(c).Root}
}

// keysDown returns the keycodes the server has pressed.
func (o *observer) keysDown(t *testing.T) []int {
	t.Helper()
	r, err := xproto.QueryKeymap(o.conn).Reply()
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for i, b := range r.Keys {
		for bit := range 8 {
			if b&(1<<bit) != 0 {
				out = append(out, i*8+bit)
			}
		}
	}
	return out
}

// pointer returns the pointer position and the button/modifier mask.
func (o *observer) pointer(t *testing.T) (x, y int, mask uint16) {
	t.Helper()
	r, err := xproto.QueryPointer(o.conn, o.root).Reply()
	if err != nil {
		t.Fatal(err)
	}
	return int(r.RootX), int(r.RootY), r.Mask
}

// keymap returns the server's keyboard mapping.
func (o *observer) keymap(t *testing.T) []xproto.Keysym {
	t.Helper()
	s := xproto.Setup(o.conn)
	r, err := xproto.GetKeyboardMapping(o.conn, s.MinKeycode, byte(int(s.MaxKeycode)-int(s.MinKeycode)+1)).Reply()
	if err != nil {
		t.Fatal(err)
	}
	return r.Keysyms
}

const buttonMasks = xproto.ButtonMask1 | xproto.ButtonMask2 | xproto.ButtonMask3 | xproto.ButtonMask4 | xproto.ButtonMask5

func open(t *testing.T) (*Device, *observer) {
	t.Helper()
	dt := desktop.Start(t, desktop.Options{NoWindowManager: true})
	d, err := Open(dt.Display, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, newObserver(t, dt.Display)
}

func combo(t *testing.T, s string) keysym.Combo {
	t.Helper()
	c, err := keysym.ParseCombo(s)
	if err != nil || len(c) == 0 {
		t.Fatalf("ParseCombo(%q) = %v, %v", s, c, err)
	}
	return c
}

func TestPointer(t *testing.T) {
	d, o := open(t)
	ctx := context.Background()
	if err := d.Move(ctx, &agentv1.Point{X: 321, Y: 123}); err != nil {
		t.Fatal(err)
	}
	if x, y, _ := o.pointer(t); x != 321 || y != 123 {
		t.Errorf("pointer at %d,%d after Move, want 321,123", x, y)
	}
	if err := d.Click(ctx, &agentv1.Point{X: 10, Y: 20}, agentv1.MouseButton_MOUSE_BUTTON_LEFT, 2, nil); err != nil {
		t.Fatal(err)
	}
	if x, y, mask := o.pointer(t); x != 10 || y != 20 || mask&buttonMasks != 0 {
		t.Errorf("after Click: pointer %d,%d mask %#x, want 10,20 and no button", x, y, mask)
	}
	if w, h := d.Root(); w != 1280 || h != 800 {
		t.Errorf("Root() = %dx%d, want 1280x800", w, h)
	}
}

func TestHeldByOwner(t *testing.T) {
	d, o := open(t)
	ctx := context.Background()
	if err := d.KeyDown(ctx, "alice", combo(t, "ctrl+shift")); err != nil {
		t.Fatal(err)
	}
	if err := d.KeyDown(ctx, "bob", combo(t, "ctrl")); err != nil {
		t.Fatal(err)
	}
	if err := d.MouseDown(ctx, "alice", &agentv1.Point{X: 5, Y: 5}, agentv1.MouseButton_MOUSE_BUTTON_RIGHT); err != nil {
		t.Fatal(err)
	}
	ctrl, shift := d.km.at[combo(t, "ctrl")[0]].code, d.km.shift
	if got, want := o.keysDown(t), sorted(int(ctrl), int(shift)); !cmp.Equal(got, want) {
		t.Fatalf("keys down = %v, want %v", got, want)
	}
	if _, _, mask := o.pointer(t); mask&xproto.ButtonMask3 == 0 {
		t.Fatalf("button 3 not down after MouseDown, mask %#x", mask)
	}
	wantHeld := []*agentv1.HeldInput{{Key: "Control_L"}, {Key: "Shift_L"}, {Button: agentv1.MouseButton_MOUSE_BUTTON_RIGHT}}
	if diff := cmp.Diff(wantHeld, d.Held("alice"), protocmp.Transform()); diff != "" {
		t.Errorf("Held(alice) (-want +got):\n%s", diff)
	}

	released, err := d.ReleaseAll(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(wantHeld)
	if diff := cmp.Diff(wantHeld, released, protocmp.Transform()); diff != "" {
		t.Errorf("ReleaseAll(alice) (-want +got):\n%s", diff)
	}
	// bob still holds ctrl.
	if got, want := o.keysDown(t), []int{int(ctrl)}; !cmp.Equal(got, want) {
		t.Errorf("keys down after alice released = %v, want %v (bob's ctrl)", got, want)
	}
	if _, _, mask := o.pointer(t); mask&buttonMasks != 0 {
		t.Errorf("button still down after ReleaseAll, mask %#x", mask)
	}
	if err := d.KeyUp(ctx, "bob", combo(t, "ctrl")); err != nil {
		t.Fatal(err)
	}
	if got := o.keysDown(t); len(got) != 0 {
		t.Errorf("keys down after KeyUp = %v, want none", got)
	}
}

func TestCloseReleasesEverything(t *testing.T) {
	d, o := open(t)
	ctx := context.Background()
	if err := d.KeyDown(ctx, "alice", combo(t, "alt+a")); err != nil {
		t.Fatal(err)
	}
	if err := d.MouseDown(ctx, "bob", nil, agentv1.MouseButton_MOUSE_BUTTON_LEFT); err != nil {
		t.Fatal(err)
	}
	if len(o.keysDown(t)) != 2 {
		t.Fatalf("keys down = %v, want 2", o.keysDown(t))
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if got := o.keysDown(t); len(got) != 0 {
		t.Errorf("keys down after Close = %v", got)
	}
	if _, _, mask := o.pointer(t); mask&buttonMasks != 0 {
		t.Errorf("button down after Close, mask %#x", mask)
	}
	if err := d.Move(ctx, &agentv1.Point{X: 1, Y: 1}); !errors.Is(err, errdefs.ErrUnavailable) {
		t.Errorf("Move after Close = %v, want ErrUnavailable", err)
	}
}

func TestInterruptedReleases(t *testing.T) {
	d, o := open(t)
	path := make([]*agentv1.Point, 200)
	for i := range path {
		path[i] = &agentv1.Point{X: int32(100 + i), Y: 100}
	}
	tests := []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{"hold_key", func(ctx context.Context) error { return d.HoldKey(ctx, combo(t, "ctrl+shift+x"), 10*time.Second) }},
		{"drag", func(ctx context.Context) error {
			return d.Drag(ctx, path, agentv1.MouseButton_MOUSE_BUTTON_LEFT, 20*time.Millisecond, combo(t, "ctrl"))
		}},
		{"type", func(ctx context.Context) error {
			_, _, err := d.Type(ctx, "slow typing that is cut short", 50*time.Millisecond)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() { errc <- tt.run(ctx) }()
			time.Sleep(150 * time.Millisecond)
			// Mid-action, something is pressed (the modifiers of hold_key and drag).
			if tt.name != "type" && len(o.keysDown(t)) == 0 {
				t.Error("nothing pressed while the action runs")
			}
			start := time.Now()
			cancel()
			err := <-errc
			if !errors.Is(err, errdefs.ErrInterrupted) {
				t.Fatalf("err = %v, want ErrInterrupted", err)
			}
			if d := time.Since(start); d > 500*time.Millisecond {
				t.Errorf("took %v to stop after cancel", d)
			}
			if got := o.keysDown(t); len(got) != 0 {
				t.Errorf("keys down after cancel = %v", got)
			}
			if _, _, mask := o.pointer(t); mask&buttonMasks != 0 {
				t.Errorf("button down after cancel, mask %#x", mask)
			}
		})
	}
}

func TestSparesRestored(t *testing.T) {
	d, o := open(t)
	before := o.keymap(t)
	typed, remapped, err := d.Type(context.Background(), "日本語 é😀", 0)
	if err != nil {
		t.Fatal(err)
	}
	if typed != 6 || remapped != 5 {
		t.Errorf("Type = %d typed, %d remapped; want 6, 5", typed, remapped)
	}
	if cmp.Equal(before, o.keymap(t)) {
		t.Error("keymap unchanged right after typing CJK: no spare keycode bound")
	}
	deadline := time.Now().Add(5 * restoreDelay)
	for !cmp.Equal(before, o.keymap(t)) {
		if time.Now().After(deadline) {
			t.Fatalf("keymap not restored %v after typing", 5*restoreDelay)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := o.keysDown(t); len(got) != 0 {
		t.Errorf("keys down after Type = %v", got)
	}
}

func sorted(v ...int) []int { slices.Sort(v); return v }

// TestCloseInterruptsWaitingAction closes the device while hold_key waits: Close must interrupt it, not wait
// out its duration, and leave nothing pressed.
func TestCloseInterruptsWaitingAction(t *testing.T) {
	d, o := open(t)
	errc := make(chan error, 1)
	go func() { errc <- d.HoldKey(context.Background(), combo(t, "ctrl+x"), 10*time.Second) }()
	deadline := time.Now().Add(5 * time.Second)
	for len(o.keysDown(t)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("hold_key pressed nothing within 5s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	closed := make(chan error, 1)
	go func() { closed <- d.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Close still waiting for hold_key after 2s")
	}
	if err := <-errc; !errors.Is(err, errdefs.ErrInterrupted) {
		t.Errorf("hold_key during Close = %v, want ErrInterrupted", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Close took %v", d)
	}
	if got := o.keysDown(t); len(got) != 0 {
		t.Errorf("keys down after Close = %v", got)
	}
}

// TestSpareRestoredAfterHeldKeyReleased holds a character missing from the keymap (bound to a spare keycode,
// which a held key pins) past the restore delay: releasing it, by key_up or release_all, must still restore
// the keymap.
func TestSpareRestoredAfterHeldKeyReleased(t *testing.T) {
	d, o := open(t)
	ctx := context.Background()
	before := o.keymap(t)
	release := map[string]func() error{
		"key_up":      func() error { return d.KeyUp(ctx, "alice", combo(t, "ctrl+é")) },
		"release_all": func() error { _, err := d.ReleaseAll(ctx, "alice"); return err },
	}
	for _, name := range []string{"key_up", "release_all"} {
		t.Run(name, func(t *testing.T) {
			if err := d.KeyDown(ctx, "alice", combo(t, "ctrl+é")); err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * restoreDelay) // the restore after key_down passes while the key pins the keycode
			if cmp.Equal(before, o.keymap(t)) {
				t.Fatal("keymap restored while é is held through its spare keycode")
			}
			if err := release[name](); err != nil {
				t.Fatal(err)
			}
			if got := o.keysDown(t); len(got) != 0 {
				t.Errorf("keys down after release = %v", got)
			}
			deadline := time.Now().Add(5 * restoreDelay)
			for !cmp.Equal(before, o.keymap(t)) {
				if time.Now().After(deadline) {
					t.Fatalf("keymap not restored %v after the held key was released", 5*restoreDelay)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// TestReleaseEverythingOnce checks that ReleaseEverything reports each held key and button once: the
// owners' holds it releases first must not be reported again as found down on the server.
func TestReleaseEverythingOnce(t *testing.T) {
	d, o := open(t)
	ctx := context.Background()
	if err := d.KeyDown(ctx, "alice", combo(t, "ctrl")); err != nil {
		t.Fatal(err)
	}
	if err := d.MouseDown(ctx, "bob", nil, agentv1.MouseButton_MOUSE_BUTTON_LEFT); err != nil {
		t.Fatal(err)
	}
	released, err := d.ReleaseEverything(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []*agentv1.HeldInput{{Key: "Control_L"}, {Button: agentv1.MouseButton_MOUSE_BUTTON_LEFT}}
	if diff := cmp.Diff(want, released, protocmp.Transform()); diff != "" {
		t.Errorf("ReleaseEverything (-want +got):\n%s", diff)
	}
	if got := o.keysDown(t); len(got) != 0 {
		t.Errorf("keys down after ReleaseEverything = %v", got)
	}
	if _, _, mask := o.pointer(t); mask&buttonMasks != 0 {
		t.Errorf("button down after ReleaseEverything, mask %#x", mask)
	}
	if held := d.Held("alice"); len(held) != 0 {
		t.Errorf("Held(alice) after ReleaseEverything = %v", held)
	}
}
