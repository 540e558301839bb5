package server

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"glovebox.dev/guest/internal/x11/input"
	"glovebox.dev/guest/internal/x11/screen"
	"glovebox.dev/guest/internal/x11/windows"
	"glovebox.dev/guest/internal/x11/xconn"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/desktop"
)

// actDesktop is a real desktop with the real input, window and screen backends served over gRPC, plus an
// independent X connection that reads the server's input state.
type actDesktop struct {
	*desktop.Desktop
	in     *input.Device
	win    *windows.Windows
	client agentv1.ActServiceClient
	obs    *xgb.Conn
	root   xproto.Window
}

func startActDesktop(t testing.TB) *actDesktop {
	t.Helper()
	return startActDesktopWith(t, desktop.Options{})
}

// startActDesktopWith is startActDesktop on a desktop started with opts.
func startActDesktopWith(t testing.TB, opts desktop.Options) *actDesktop {
	t.Helper()
	d := desktop.Start(t, opts)
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
	in, err := input.Open(d.Display, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	s := New(Options{Generation: 7}, Backends{Input: AdaptInput(in), Windows: win, Screen: AdaptScreen(scr)})
	obs, err := xconn.Open(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(obs.Close)
	xconn.DiscardEvents(obs)
	return &actDesktop{Desktop: d, in: in, win: win, client: agentv1.NewActServiceClient(dialServices(t, s)),
		obs: obs, root: xproto.Setup(obs).DefaultScreen(obs).Root}
}

// act sends one request and fails the test on error.
func (e *actDesktop) act(t testing.TB, r *agentv1.ActRequest) *agentv1.ActResponse {
	t.Helper()
	if r.Owner == "" {
		r.Owner = "test"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := e.client.Act(ctx, r)
	if err != nil {
		t.Fatalf("Act(%v): %v", r.GetAction(), errgrpc.FromError(err))
	}
	return resp
}

// keysDown returns the keycodes the X server has down.
func (e *actDesktop) keysDown(t testing.TB) []int {
	t.Helper()
	r, err := xproto.QueryKeymap(e.obs).Reply()
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

// pointer returns the pointer position and button/modifier mask as the X server has them.
func (e *actDesktop) pointer(t testing.TB) (x, y int32, mask uint16) {
	t.Helper()
	r, err := xproto.QueryPointer(e.obs, e.root).Reply()
	if err != nil {
		t.Fatal(err)
	}
	return int32(r.RootX), int32(r.RootY), r.Mask
}

// probeEvent is one line of testdata/input_probe.py.
type probeEvent struct {
	Ev        string `json:"ev"`
	Text      string `json:"text"`
	Button    int    `json:"button"`
	X         int32  `json:"x"`
	Y         int32  `json:"y"`
	State     uint16 `json:"state"`
	Direction int    `json:"direction"`
}

// probe is a running input_probe.py window.
type probe struct {
	id     uint32
	geom   *agentv1.Rect
	events chan probeEvent
}

// startProbe starts the probe window titled title and waits until it is shown and focused.
func (e *actDesktop) startProbe(t testing.TB, title string) *probe {
	t.Helper()
	c := e.Command(pythonGI(t), filepath.Join("testdata", "input_probe.py"), title)
	// Core events make the wheel arrive as discrete scroll directions, whatever the XInput setup.
	c.Env = append(c.Env, "GDK_CORE_DEVICE_EVENTS=1")
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	e.StartProgram(t, c)
	p := &probe{events: make(chan probeEvent, 4096)}
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			var ev probeEvent
			if json.Unmarshal(s.Bytes(), &ev) == nil {
				p.events <- ev
			}
		}
		close(p.events)
	}()
	p.next(t, "ready", 15*time.Second)
	p.id = e.WaitWindow(t, title, 10*time.Second)
	ctx := context.Background()
	deadline := time.Now().Add(10 * time.Second)
	for {
		f, err := e.win.Focused(ctx)
		if err == nil && f == p.id {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("probe %q (%d) not focused within 10s (focused %d, %v)", title, p.id, f, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	w, err := e.win.Get(ctx, p.id)
	if err != nil {
		t.Fatal(err)
	}
	p.geom = w.GetGeometry()
	return p
}

// entry is a point on the probe's entry; area is a point on its event area, dx, dy from its middle.
func (p *probe) entry() *agentv1.Point { return &agentv1.Point{X: p.geom.X + 60, Y: p.geom.Y + 12} }
func (p *probe) area(dx, dy int32) *agentv1.Point {
	return &agentv1.Point{X: p.geom.X + p.geom.Width/2 + dx, Y: p.geom.Y + p.geom.Height/2 + 20 + dy}
}

// next returns the next event of kind ev, skipping others.
func (p *probe) next(t testing.TB, ev string, timeout time.Duration) probeEvent {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case e, ok := <-p.events:
			if !ok {
				t.Fatalf("probe exited waiting for %q", ev)
			}
			if e.Ev == ev {
				return e
			}
		case <-deadline:
			t.Fatalf("no %q event from the probe within %v", ev, timeout)
		}
	}
}

// drain returns the events that arrive within d.
func (p *probe) drain(d time.Duration) []probeEvent {
	var out []probeEvent
	deadline := time.After(d)
	for {
		select {
		case e, ok := <-p.events:
			if !ok {
				return out
			}
			out = append(out, e)
		case <-deadline:
			return out
		}
	}
}

func typeText(text string) *agentv1.ActRequest {
	return &agentv1.ActRequest{Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: text}}}
}

func key(combo string) *agentv1.ActRequest {
	return &agentv1.ActRequest{Action: &agentv1.ActRequest_Key{Key: &agentv1.Key{Combo: combo}}}
}

func onWindow(r *agentv1.ActRequest, id uint32) *agentv1.ActRequest {
	r.Target = &agentv1.Target{Kind: &agentv1.Target_Window{Window: &agentv1.WindowTarget{WindowId: id}}}
	return r
}

// pythonGI returns a python3 that can import gi (PyGObject): Debian's python3-gi lives in the system
// python, which a pyenv shim earlier on PATH may hide.
func pythonGI(t testing.TB) string {
	t.Helper()
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(py, "-c", "import gi").Run() == nil {
			return py
		}
	}
	testenv.Missing(t, "python3 with gi (python3-gi, gir1.2-gtk-3.0)")
	return ""
}
