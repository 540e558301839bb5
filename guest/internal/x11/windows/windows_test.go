package windows

import (
	"context"
	"errors"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/jezek/xgb/xproto"
	"google.golang.org/protobuf/proto"

	"glovebox.dev/guest/internal/x11/xconn"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/desktop"
)

// env is a desktop with openbox and the Windows backend on it.
type env struct {
	d *desktop.Desktop
	w *Windows
}

func start(t testing.TB) *env {
	t.Helper()
	testenv.NeedCommands(t, "xterm", "xdotool", "xprop", "xwininfo")
	d := desktop.Start(t, desktop.Options{})
	w, err := New(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return &env{d: d, w: w}
}

// xterm starts an xterm with a title and instance name at a position and returns its client window id and
// process id.
func (e *env) xterm(t testing.TB, title, instance string, x, y int) (uint32, int) {
	t.Helper()
	cmd := e.d.Command("xterm", "-name", instance, "-T", title, "-geometry", "40x10+"+strconv.Itoa(x)+"+"+strconv.Itoa(y),
		"-e", "sleep", "600")
	e.d.StartProgram(t, cmd)
	id := e.d.WaitWindow(t, "^"+regexp.QuoteMeta(title)+"$", 10*time.Second)
	return id, cmd.Process.Pid
}

// run runs a command on the desktop and returns its trimmed output.
func (e *env) run(t testing.TB, name string, args ...string) string {
	t.Helper()
	out, err := e.d.Command(name, args...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("%s %v: %v: %s", name, args, err, ee.Stderr)
		}
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return strings.TrimSpace(string(out))
}

// xwininfo returns the numeric "Name: value" lines of xwininfo -id.
func (e *env) xwininfo(t testing.TB, id uint32) map[string]int32 {
	t.Helper()
	vals := map[string]int32{}
	for _, l := range strings.Split(e.run(t, "xwininfo", "-id", strconv.Itoa(int(id))), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), ":"); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				vals[k] = int32(n)
			}
		}
	}
	return vals
}

// xprop returns the window as xprop describes it: title, WM_CLASS parts and pid.
func (e *env) xprop(t testing.TB, id uint32) *agentv1.Window {
	t.Helper()
	cmd := e.d.Command("xprop", "-id", strconv.Itoa(int(id)), "_NET_WM_NAME", "WM_NAME", "WM_CLASS", "_NET_WM_PID")
	cmd.Env = append(cmd.Env, "LC_ALL=C.UTF-8") // titles printed as UTF-8, not escaped
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("xprop: %v", err)
	}
	out := string(raw)
	w := &agentv1.Window{Id: id}
	quoted := regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
	netName := false // _NET_WM_NAME (listed first) wins over WM_NAME
	for _, l := range strings.Split(out, "\n") {
		k, v, _ := strings.Cut(l, " = ")
		switch {
		case strings.HasPrefix(k, "_NET_WM_NAME("):
			if m := quoted.FindStringSubmatch(v); m != nil {
				w.Title, netName = m[1], true
			}
		case strings.HasPrefix(k, "WM_NAME(") && !netName:
			if m := quoted.FindStringSubmatch(v); m != nil {
				w.Title = m[1]
			}
		case strings.HasPrefix(k, "WM_CLASS("):
			if m := quoted.FindAllStringSubmatch(v, 2); len(m) == 2 {
				w.InstanceName, w.ClassName = m[0][1], m[1][1]
			}
		case strings.HasPrefix(k, "_NET_WM_PID("):
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			w.Pid = int32(n)
		}
	}
	return w
}

func TestGetUnknownIsTargetGone(t *testing.T) {
	e := start(t)
	root := xproto.Setup(e.w.conn).DefaultScreen(e.w.conn).Root
	for _, id := range []uint32{0, 0x7ffffff0, uint32(root)} {
		_, err := e.w.Get(context.Background(), id)
		if !errors.Is(err, errdefs.ErrTargetGone) {
			t.Errorf("Get(%#x): %v, want ErrTargetGone", id, err)
		}
		if err := e.w.Activate(context.Background(), id); !errors.Is(err, errdefs.ErrTargetGone) {
			t.Errorf("Activate(%#x): %v, want ErrTargetGone", id, err)
		}
	}
}

func TestGetAndListMatchXpropAndXwininfo(t *testing.T) {
	e := start(t)
	a, pidA := e.xterm(t, "alpha window", "alphainst", 100, 120)
	b, pidB := e.xterm(t, "beta wïndow ✓", "betainst", 500, 300)
	ctx := context.Background()
	list, err := e.w.List(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[uint32]*agentv1.Window{}
	for _, w := range list {
		byID[w.Id] = w
	}
	for _, tc := range []struct {
		id  uint32
		pid int
	}{{a, pidA}, {b, pidB}} {
		got, err := e.w.Get(ctx, tc.id)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(got.String(), byID[tc.id].String()); diff != "" {
			t.Errorf("window %d: Get and List differ (-get +list):\n%s", tc.id, diff)
		}
		info := e.xwininfo(t, tc.id)
		want := e.xprop(t, tc.id)
		want.Geometry = &agentv1.Rect{X: info["Absolute upper-left X"], Y: info["Absolute upper-left Y"],
			Width: info["Width"], Height: info["Height"]}
		want.Mapped = true
		want.Focused = got.Focused // checked against xdotool in the focus tests
		if diff := cmp.Diff(want.String(), got.String()); diff != "" {
			t.Errorf("window %d: Get vs xprop/xwininfo (-want +got):\n%s", tc.id, diff)
		}
		if got.Pid != int32(tc.pid) {
			t.Errorf("window %d: pid %d, want the started process %d", tc.id, got.Pid, tc.pid)
		}
	}
	// The most recently mapped xterm is on top: List is bottom of the stack first.
	if len(list) < 2 || list[len(list)-1].Id != b {
		t.Errorf("List order: top is not the last xterm started: %v", list)
	}
}

func TestAtTitleBarAndRoot(t *testing.T) {
	e := start(t)
	id, _ := e.xterm(t, "at window", "atinst", 300, 200)
	info := e.xwininfo(t, id)
	x, y := info["Absolute upper-left X"], info["Absolute upper-left Y"]
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		x, y int32
		want uint32
	}{
		{"client area", x + 20, y + 20, id},
		{"title bar", x + 20, y - 5, id}, // openbox's title bar sits above the client
		{"root", int32(e.d.Width) - 2, int32(e.d.Height) - 2, 0},
	} {
		got, err := e.w.At(ctx, tc.x, tc.y)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s: At(%d, %d) = %d, want %d", tc.name, tc.x, tc.y, got, tc.want)
		}
	}
}

// focusOf asks xdotool for the window with the input focus and the active window.
func (e *env) focusOf(t testing.TB) (focus, active uint32) {
	t.Helper()
	f, _ := strconv.Atoi(e.run(t, "xdotool", "getwindowfocus"))
	a, _ := strconv.Atoi(e.run(t, "xdotool", "getactivewindow"))
	return uint32(f), uint32(a)
}

func TestActivateGivesFocus(t *testing.T) {
	e := start(t)
	a, _ := e.xterm(t, "first", "first", 50, 50)
	b, _ := e.xterm(t, "second", "second", 400, 300)
	e.run(t, "xdotool", "windowactivate", "--sync", strconv.Itoa(int(b)))
	if f, act := e.focusOf(t); f == a || act == a {
		t.Fatalf("setup: first window already focused (focus %d, active %d)", f, act)
	}
	if err := e.w.Activate(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	// The window manager may set _NET_ACTIVE_WINDOW just after the focus moved.
	deadline := time.Now().Add(2 * time.Second)
	for {
		f, act := e.focusOf(t)
		if f == a && act == a {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after Activate(%d): xdotool getwindowfocus %d, getactivewindow %d", a, f, act)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestActivateFailsInBoundedTime activates a window that never takes the focus (ICCCM No Input: WM_HINTS
// input false, no WM_TAKE_FOCUS): the window manager does not focus it and Activate does not force it, so
// Activate must give up with ErrTimeout in bounded time, leaving the focus where it was.
func TestActivateFailsInBoundedTime(t *testing.T) {
	e := start(t)
	other, _ := e.xterm(t, "focused xterm", "focusedxterm", 400, 300)
	c, err := xconn.Open(e.d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	root := xproto.Setup(c).DefaultScreen(c).Root
	win, _ := xproto.NewWindowId(c)
	if err := xproto.CreateWindowChecked(c, 0, win, root, 50, 50, 200, 100, 0, xproto.WindowClassInputOutput, 0,
		xproto.CwBackPixel, []uint32{0x336699}).Check(); err != nil {
		t.Fatal(err)
	}
	title := "no input window"
	xproto.ChangeProperty(c, xproto.PropModeReplace, win, xproto.AtomWmName, xproto.AtomString, 8, uint32(len(title)), []byte(title))
	hints := make([]byte, 9*4)
	hints[0] = 1 // flags: InputHint; input (the next word) stays 0
	xproto.ChangeProperty(c, xproto.PropModeReplace, win, xproto.AtomWmHints, xproto.AtomWmHints, 32, 9, hints)
	xproto.MapWindow(c, win)
	e.d.WaitWindow(t, "^"+title+"$", 10*time.Second)
	e.run(t, "xdotool", "windowactivate", "--sync", strconv.Itoa(int(other)))

	start := time.Now()
	err = e.w.Activate(context.Background(), uint32(win))
	took := time.Since(start)
	if !errors.Is(err, errdefs.ErrTimeout) {
		t.Errorf("Activate of a No Input window: %v, want ErrTimeout", err)
	}
	if limit := activateWait + fallbackWait + time.Second; took > limit {
		t.Errorf("Activate took %v, more than %v", took, limit)
	}
	if f, _ := e.focusOf(t); f == uint32(win) {
		t.Errorf("xdotool getwindowfocus: the No Input window has the focus")
	}
	// A context deadline ends it sooner.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start = time.Now()
	if err := e.w.Activate(ctx, uint32(win)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Activate with a 100ms deadline: %v, want context.DeadlineExceeded", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("Activate with a 100ms deadline took %v", took)
	}
}

// TestFocusedFollowsXdotool changes the active window behind the backend's back and checks that Focused
// (answered from its cache) follows within a few milliseconds of xdotool seeing the change.
func TestFocusedFollowsXdotool(t *testing.T) {
	e := start(t)
	a, _ := e.xterm(t, "one", "one", 50, 50)
	b, _ := e.xterm(t, "two", "two", 400, 300)
	ctx := context.Background()
	if _, err := e.w.Focused(ctx); err != nil { // fill the cache
		t.Fatal(err)
	}
	for i, id := range []uint32{a, b, a, b} {
		e.run(t, "xdotool", "windowactivate", "--sync", strconv.Itoa(int(id)))
		deadline := time.Now().Add(2 * time.Second)
		for {
			if _, act := e.focusOf(t); act == id {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("step %d: xdotool never saw window %d active", i, id)
			}
			time.Sleep(5 * time.Millisecond)
		}
		seen := time.Now()
		for {
			got, err := e.w.Focused(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got == id {
				t.Logf("step %d: Focused followed %v after xdotool saw the change", i, time.Since(seen))
				break
			}
			if time.Since(seen) > followLimit {
				t.Fatalf("step %d: Focused still %d %v after xdotool saw %d active", i, got, followLimit, id)
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
}

// followLimit bounds how long Focused may lag a change xdotool already sees: the PropertyNotify is on its
// way by then, so this is event delivery plus scheduling on a loaded machine.
const followLimit = 50 * time.Millisecond

func BenchmarkFocused(b *testing.B) {
	e := start(b)
	id, _ := e.xterm(b, "bench", "bench", 50, 50)
	e.run(b, "xdotool", "windowactivate", "--sync", strconv.Itoa(int(id)))
	ctx := context.Background()
	for b.Loop() {
		if _, err := e.w.Focused(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTitlesAreValidUTF8 gives a client window a _NET_WM_NAME that is not valid UTF-8, then one longer than
// maxPropertyWords whose cut falls inside a character, and a WM_CLASS in Latin-1: the listing must still
// marshal (protobuf refuses strings that are not UTF-8, which failed the whole ListWindows call).
func TestTitlesAreValidUTF8(t *testing.T) {
	e := start(t)
	// An xterm the window manager lists (as the other tests use), whose title and class this test then
	// overwrites with bytes that are not UTF-8.
	id, _ := e.xterm(t, "utf8-probe", "utf8probe", 10, 10)
	wid := xproto.Window(id)
	c, err := xconn.Open(e.d.Display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	xconn.DiscardEvents(c)
	set := func(prop, typ xproto.Atom, v []byte) {
		t.Helper()
		if err := xproto.ChangePropertyChecked(c, xproto.PropModeReplace, wid, prop, typ, 8, uint32(len(v)),
			v).Check(); err != nil {
			t.Fatal(err)
		}
	}
	set(xproto.AtomWmClass, xproto.AtomString, []byte("inst\xe9\x00Cl\xe4ss\x00"))
	for _, title := range [][]byte{
		[]byte("bad \xff\xfe title"),
		append([]byte(strings.Repeat("a", 4*maxPropertyWords-1)), "é tail"...),
	} {
		set(e.w.atoms.wmName, e.w.atoms.utf8String, title)
		var win *agentv1.Window
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			win, err = e.w.Get(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if win.Title != "utf8-probe" && win.InstanceName != "utf8probe" {
				break // the new properties are read
			}
			time.Sleep(20 * time.Millisecond)
		}
		if win.Title == "utf8-probe" || win.InstanceName == "utf8probe" {
			t.Fatalf("window still listed with its old title or class: %q %q", win.Title, win.InstanceName)
		}
		if !utf8.ValidString(win.Title) || !utf8.ValidString(win.InstanceName) || !utf8.ValidString(win.ClassName) {
			t.Errorf("title %.40q (%d bytes), class %q %q: not valid UTF-8", win.Title, len(win.Title),
				win.InstanceName, win.ClassName)
		}
		if len(title) > 4*maxPropertyWords && win.Title != strings.Repeat("a", 4*maxPropertyWords-1) {
			t.Errorf("long title cut to %d bytes ending %q, want the whole characters read", len(win.Title),
				win.Title[max(0, len(win.Title)-8):])
		}
		list, err := e.w.List(context.Background(), true)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := proto.Marshal(&agentv1.ListWindowsResponse{Windows: list}); err != nil {
			t.Errorf("listing does not marshal: %v", err)
		}
	}
}
