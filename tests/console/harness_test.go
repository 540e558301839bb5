// Package console tests the broker's web console end to end: the real glovebox-broker with its console
// listener, the real agent on an Xvfb desktop with an AT-SPI session and a GTK app, and the console page in a
// real Chromium (on a desktop of its own) driven by chromedp. Effects are checked through the GTK app's own
// output, the page's canvas pixels against an agent screenshot, and the audit files.
package console

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/a11ybus"
	"glovebox.dev/shared/testenv/chromium"
	"glovebox.dev/shared/testenv/desktop"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// python is Debian's interpreter, which has python3-gi.
const python = "/usr/bin/python3"

// rig is one guest desktop with the panel app, the agent, the broker with its console, and a Chromium to open
// console links in.
type rig struct {
	d       *desktop.Desktop
	bus     *a11ybus.Session
	agent   *agenttest.Agent
	broker  *brokertest.Broker
	console string
	conn    *grpc.ClientConn
	app     *program
	browser context.Context
}

// newRig starts everything; edit may change the broker's config.
func newRig(t testing.TB, edit func(cfg map[string]any)) *rig {
	t.Helper()
	chromium.Need(t)
	r := &rig{}
	r.d = desktop.Start(t, desktop.Options{})
	r.bus = a11ybus.Start(t, r.d)
	r.agent = agenttest.Start(t, agenttest.Options{Desktop: r.d, Env: []string{"DBUS_SESSION_BUS_ADDRESS=" + r.bus.Address}})
	r.console = testenv.FreeAddr(t)
	r.broker = brokertest.StartConfig(t, r.agent, func(cfg map[string]any) {
		cfg["console"] = map[string]any{"listen": r.console}
		if edit != nil {
			edit(cfg)
		}
	})
	var err error
	r.conn, err = grpc.NewClient(r.broker.URI, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(32<<20)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.conn.Close() })
	r.app = startProgram(t, r.bus, python, filepath.Join("testdata", "panel.py"), "console-panel", "600", "60")
	r.app.waitEvent(t, "ready", 20*time.Second)
	r.d.WaitWindow(t, "console-panel", 20*time.Second)

	viewerDesk := desktop.Start(t, desktop.Options{})
	port := chromium.Start(t, viewerDesk)
	actx, cancel := remote.NewAllocator(context.Background(), fmt.Sprintf("http://127.0.0.1:%d", port))
	t.Cleanup(cancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	// The first run of a context attaches it to the browser for the context's life: without a timeout.
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("attach to chromium: %v", err)
	}
	r.browser = bctx
	return r
}

// ctxT is a context bounded by d, cancelled when the test ends.
func ctxT(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// link mints a console link for guest g1.
func (r *rig) link(t testing.TB, mode brokerv1.ViewerMode) string {
	t.Helper()
	resp, err := brokerv1.NewConsoleServiceClient(r.conn).CreateViewerLink(ctxT(t, 10*time.Second),
		&brokerv1.CreateViewerLinkRequest{Guest: r.broker.Guest, Mode: mode, TtlSeconds: 300})
	if err != nil {
		t.Fatalf("CreateViewerLink: %v", err)
	}
	return resp.GetUrl()
}

// tab opens a new tab of the viewer browser; it is closed when the test ends.
func (r *rig) tab(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(r.browser)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return ctx
}

// run runs chromedp actions within d.
func run(t testing.TB, tab context.Context, d time.Duration, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, d)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("chromedp: %v", err)
	}
}

// eval evaluates a JS expression in the page within d (awaiting it when it is a promise).
func eval[T any](t testing.TB, tab context.Context, d time.Duration, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, d)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %.60q: %v", expr, err)
	}
	return v
}

// waitJS polls a JS expression in the page until it is true.
func waitJS(t testing.TB, tab context.Context, expr string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		ctx, cancel := context.WithTimeout(tab, 5*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		cancel()
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("page: %s not true within %v (last error %v)", expr, d, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// session opens a broker session on the guest.
func (r *rig) session(t testing.TB) string {
	t.Helper()
	resp, err := brokerv1.NewSessionServiceClient(r.conn).CreateSession(ctxT(t, 10*time.Second), &brokerv1.CreateSessionRequest{Guest: r.broker.Guest})
	if err != nil {
		t.Fatal(err)
	}
	return resp.GetSession().GetId()
}

// snapshotApp takes an accessibility snapshot of the panel app through the session.
func (r *rig) snapshotApp(t testing.TB, sid string) *agentv1.Snapshot {
	t.Helper()
	cc := brokerv1.NewComputerServiceClient(r.conn)
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := cc.SnapshotApp(ctxT(t, 10*time.Second), &brokerv1.SnapshotAppRequest{SessionId: sid,
			Request: &agentv1.SnapshotAppRequest{AppId: fmt.Sprintf("app:%d", r.app.pid)}})
		if err == nil {
			return resp.GetResponse().GetSnapshot()
		}
		if time.Now().After(deadline) {
			t.Fatalf("SnapshotApp: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// element returns the first element of role named name.
func element(t testing.TB, s *agentv1.Snapshot, role, name string) *agentv1.Element {
	t.Helper()
	for _, el := range s.GetElements() {
		if el.GetRole() == role && el.GetName() == name {
			return el
		}
	}
	t.Fatalf("no %s %q in the snapshot", role, name)
	return nil
}

// program is a started GTK program with its JSON stdout lines.
type program struct {
	pid   int32
	mu    sync.Mutex
	lines []map[string]any
}

func startProgram(t testing.TB, s *a11ybus.Session, name string, args ...string) *program {
	t.Helper()
	testenv.NeedCommands(t, name)
	c := s.Command(name, args...)
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.StartProgram(t, c); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	p := &program{pid: int32(c.Process.Pid)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				p.mu.Lock()
				p.lines = append(p.lines, m)
				p.mu.Unlock()
			}
		}
	}()
	return p
}

// events returns the events named ev printed so far.
func (p *program) events(ev string) []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []map[string]any
	for _, m := range p.lines {
		if m["ev"] == ev {
			out = append(out, m)
		}
	}
	return out
}

// waitEvent waits until the program printed an event ev (and returns the newest).
func (p *program) waitEvent(t testing.TB, ev string, d time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		if es := p.events(ev); len(es) > 0 {
			return es[len(es)-1]
		}
		if time.Now().After(deadline) {
			p.mu.Lock()
			defer p.mu.Unlock()
			t.Fatalf("program printed no %q event within %v; it printed %v", ev, d, p.lines)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitText waits until the program printed a text event with want.
func (p *program) waitText(t testing.TB, want string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		if slices.ContainsFunc(p.events("text"), func(m map[string]any) bool { return m["text"] == want }) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("program did not print the text %q within %v; it printed %v", want, d, p.events("text"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// glovebox runs the CLI against the rig's broker.
func (r *rig) glovebox(t testing.TB, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(brokertest.Binary(t, "glovebox"), args...)
	cmd.Env = append(cmd.Environ(), "GLOVEBOX_BROKER="+r.broker.URI)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}
