package server

import (
	"bufio"
	"bytes"
	"errors"
	"image"
	"image/png"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"glovebox.dev/guest/internal/x11/screen"
	"glovebox.dev/guest/internal/x11/windows"
	"glovebox.dev/guest/internal/x11/xconn"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/desktop"
)

// screenEnv is a real desktop with the screen and windows backends served over gRPC, plus a painter: a
// second X client of the test's own that puts known colours at known places.
type screenEnv struct {
	d       *desktop.Desktop
	scr     *screen.Screen
	win     *windows.Windows
	observe agentv1.ObserveServiceClient
	paint   *painter
}

func startScreenEnv(t testing.TB) *screenEnv {
	t.Helper()
	d := desktop.Start(t, desktop.Options{})
	win, err := windows.New(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { win.Close() })
	scr, err := screen.New(d.Display, win, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { scr.Close() })
	svc := New(Options{}, Backends{Screen: AdaptScreen(scr), Windows: win})
	conn := dialServices(t, svc)
	return &screenEnv{d: d, scr: scr, win: win, observe: agentv1.NewObserveServiceClient(conn), paint: newPainter(t, d.Display)}
}

// painter draws through its own X connection.
type painter struct {
	conn *xgb.Conn
	root xproto.Window
}

func newPainter(t testing.TB, display string) *painter {
	t.Helper()
	c, err := xconn.Open(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	xconn.DiscardEvents(c)
	return &painter{conn: c, root: xproto.Setup(c).DefaultScreen(c).Root}
}

// sync waits until the X server has processed every request sent so far.
func (p *painter) sync(t testing.TB) {
	t.Helper()
	if _, err := xproto.GetInputFocus(p.conn).Reply(); err != nil {
		t.Fatal(err)
	}
}

// root paints the root window one colour (0xRRGGBB), as xsetroot -solid does.
func (p *painter) rootColor(t testing.TB, rgb uint32) {
	t.Helper()
	xproto.ChangeWindowAttributes(p.conn, p.root, xproto.CwBackPixel, []uint32{rgb})
	xproto.ClearArea(p.conn, false, p.root, 0, 0, 0, 0)
	p.sync(t)
}

// square maps an unmanaged (override-redirect) window of one colour at x, y.
func (p *painter) square(t testing.TB, x, y, w, h int, rgb uint32) xproto.Window {
	t.Helper()
	id, err := xproto.NewWindowId(p.conn)
	if err != nil {
		t.Fatal(err)
	}
	err = xproto.CreateWindowChecked(p.conn, 0, id, p.root, int16(x), int16(y), uint16(w), uint16(h), 0,
		xproto.WindowClassInputOutput, 0, xproto.CwBackPixel|xproto.CwOverrideRedirect, []uint32{rgb, 1}).Check()
	if err != nil {
		t.Fatal(err)
	}
	xproto.MapWindow(p.conn, id)
	p.sync(t)
	t.Cleanup(func() { xproto.DestroyWindow(p.conn, id); p.sync(t) })
	return id
}

// recolor changes a square's colour.
func (p *painter) recolor(t testing.TB, id xproto.Window, rgb uint32) {
	t.Helper()
	xproto.ChangeWindowAttributes(p.conn, id, xproto.CwBackPixel, []uint32{rgb})
	xproto.ClearArea(p.conn, false, id, 0, 0, 0, 0)
	p.sync(t)
}

// move moves a window.
func (p *painter) move(t testing.TB, id xproto.Window, x, y int) {
	t.Helper()
	xproto.ConfigureWindow(p.conn, id, xproto.ConfigWindowX|xproto.ConfigWindowY, []uint32{uint32(x), uint32(y)})
	p.sync(t)
}

// colorWindow starts a GTK window of one colour and returns its id once mapped.
func (e *screenEnv) colorWindow(t testing.TB, title, color string, x, y, w, h int) uint32 {
	t.Helper()
	testenv.NeedCommands(t, "/usr/bin/python3")
	cmd := e.d.Command("/usr/bin/python3", "testdata/colorwin.py", title, color, strconv.Itoa(x), strconv.Itoa(y), strconv.Itoa(w), strconv.Itoa(h))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	e.d.StartProgram(t, cmd)
	ready := make(chan bool, 1)
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			if s.Text() == "mapped" {
				ready <- true
				return
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		if !ok {
			testenv.Missing(t, "python3 GTK window did not start (python3-gi, gir1.2-gtk-3.0)")
		}
	case <-time.After(15 * time.Second):
		t.Fatal("GTK window not mapped within 15s")
	}
	return e.d.WaitWindow(t, "^"+title+"$", 5*time.Second)
}

// importRoot reads the screen with ImageMagick's import, independently of the code under test.
func (e *screenEnv) importRoot(t testing.TB) image.Image {
	t.Helper()
	testenv.NeedCommands(t, "import")
	out, err := e.d.Command("import", "-window", "root", "png:-").Output()
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	m, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// xdotool runs xdotool on the desktop and returns its trimmed output.
func (e *screenEnv) xdotool(t testing.TB, args ...string) string {
	t.Helper()
	testenv.NeedCommands(t, "xdotool")
	out, err := e.d.Command("xdotool", args...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("xdotool %v: %v: %s", args, err, ee.Stderr)
		}
		t.Fatalf("xdotool %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// xwininfo returns the numeric "Name: value" lines of xwininfo -id.
func (e *screenEnv) xwininfo(t testing.TB, id string) map[string]int32 {
	t.Helper()
	testenv.NeedCommands(t, "xwininfo")
	out, err := e.d.Command("xwininfo", "-id", id).Output()
	if err != nil {
		t.Fatalf("xwininfo: %v", err)
	}
	vals := map[string]int32{}
	for _, l := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), ":"); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				vals[k] = int32(n)
			}
		}
	}
	return vals
}

// scroller covers the screen with an unmanaged window showing img, and returns a function that scrolls its
// content by shift rows and back, alternately: every call changes nearly every pixel of the screen, at once
// (the X server repaints it from a pixmap), with real screen content.
func (p *painter) scroller(t testing.TB, img image.Image, shift int) func() {
	t.Helper()
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	var pixmaps [2]xproto.Pixmap
	for i := range pixmaps {
		id, err := xproto.NewPixmapId(p.conn)
		if err != nil {
			t.Fatal(err)
		}
		pixmaps[i] = id
		xproto.CreatePixmap(p.conn, 24, id, xproto.Drawable(p.root), uint16(w), uint16(h))
		gc, err := xproto.NewGcontextId(p.conn)
		if err != nil {
			t.Fatal(err)
		}
		xproto.CreateGC(p.conn, gc, xproto.Drawable(id), 0, nil)
		const rows = 40 // one PutImage stays under the core protocol's request size limit
		buf := make([]byte, 4*w*rows)
		for y0 := 0; y0 < h; y0 += rows {
			n := min(rows, h-y0)
			for y := range n {
				sy := (y0 + y + i*shift) % h
				for x := range w {
					r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+sy).RGBA()
					o := 4 * (y*w + x)
					buf[o], buf[o+1], buf[o+2], buf[o+3] = byte(bl>>8), byte(g>>8), byte(r>>8), 0
				}
			}
			xproto.PutImage(p.conn, xproto.ImageFormatZPixmap, xproto.Drawable(id), gc, uint16(w), uint16(n), 0,
				int16(y0), 0, 24, buf[:4*w*n])
		}
		xproto.FreeGC(p.conn, gc)
	}
	id, err := xproto.NewWindowId(p.conn)
	if err != nil {
		t.Fatal(err)
	}
	err = xproto.CreateWindowChecked(p.conn, 0, id, p.root, 0, 0, uint16(w), uint16(h), 0,
		xproto.WindowClassInputOutput, 0, xproto.CwBackPixmap|xproto.CwOverrideRedirect, []uint32{uint32(pixmaps[0]), 1}).Check()
	if err != nil {
		t.Fatal(err)
	}
	xproto.MapWindow(p.conn, id)
	p.sync(t)
	t.Cleanup(func() {
		xproto.DestroyWindow(p.conn, id)
		for _, pm := range pixmaps {
			xproto.FreePixmap(p.conn, pm)
		}
		p.sync(t)
	})
	i := 0
	return func() {
		i ^= 1
		xproto.ChangeWindowAttributes(p.conn, id, xproto.CwBackPixmap, []uint32{uint32(pixmaps[i])})
		xproto.ClearArea(p.conn, false, id, 0, 0, 0, 0)
		p.sync(t)
	}
}
