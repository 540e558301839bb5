package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"glovebox.dev/guest/internal/atspi"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/a11ybus"
	"glovebox.dev/shared/testenv/chromium"
	"glovebox.dev/shared/testenv/desktop"
)

// a11yEnv is a desktop with an accessibility session, the agent's services over a real atspi backend, and
// the OSWorld-style pyatspi dumper (bench/pyatspi_dump.py) as the peer.
type a11yEnv struct {
	s    *a11ybus.Session
	acc  agentv1.AccessibilityServiceClient
	act  agentv1.ActServiceClient
	dump *pyatspiDump
}

func startA11yEnv(b *testing.B) *a11yEnv {
	b.Helper()
	testenv.NeedCommands(b, "/usr/bin/python3")
	if err := exec.Command("/usr/bin/python3", "-c", "import pyatspi").Run(); err != nil {
		testenv.Missing(b, "python3-pyatspi (Debian) not installed")
	}
	d := desktop.Start(b, desktop.Options{})
	s := a11ybus.Start(b, d)
	be, err := atspi.Open(context.Background(), atspi.Options{SessionBus: s.Address})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { be.Close() })
	conn := dialServices(b, New(Options{}, Backends{Accessibility: AdaptAccessibility(be)}))
	e := &a11yEnv{s: s, acc: agentv1.NewAccessibilityServiceClient(conn), act: agentv1.NewActServiceClient(conn)}
	e.dump = startDump(b, s)
	return e
}

// pyatspiDump is a running bench/pyatspi_dump.py: one dump per request line.
type pyatspiDump struct {
	in  io.Writer
	out *bufio.Reader
}

func startDump(b *testing.B, s *a11ybus.Session) *pyatspiDump {
	c := s.Command("/usr/bin/python3", "../../../bench/pyatspi_dump.py")
	in, _ := c.StdinPipe()
	out, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close(); _ = c.Process.Kill(); _ = c.Wait() })
	return &pyatspiDump{in: in, out: bufio.NewReader(out)}
}

// run dumps the app with pid and returns the node count.
func (p *pyatspiDump) run(pid int32) (int, error) {
	fmt.Fprintf(p.in, "dump %d\n", pid)
	line, err := p.out.ReadString('\n')
	f := strings.Fields(line)
	if err != nil || len(f) != 3 {
		return 0, fmt.Errorf("pyatspi dump answered %q: %v", line, err)
	}
	return strconv.Atoi(f[0])
}

// startApp starts a program on the session and waits until it is on the accessibility bus.
func (e *a11yEnv) startApp(b *testing.B, name string, args ...string) int32 {
	b.Helper()
	c := e.s.Command(name, args...)
	if err := e.s.StartProgram(b, c); err != nil {
		b.Fatal(err)
	}
	pid := int32(c.Process.Pid)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := e.acc.GetApp(context.Background(), &agentv1.GetAppRequest{AppId: atspi.AppID(pid)}); err == nil {
			return pid
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.Fatalf("%s never appeared on the accessibility bus", name)
	return 0
}

// snapshot takes a full snapshot through gRPC.
func (e *a11yEnv) snapshot(b *testing.B, pid int32) *agentv1.Snapshot {
	r, err := e.acc.SnapshotApp(context.Background(), &agentv1.SnapshotAppRequest{AppId: atspi.AppID(pid), Options: &agentv1.SnapshotOptions{MaxNodes: 20000}})
	if err != nil {
		b.Fatal(err)
	}
	return r.Snapshot
}

// BenchmarkSnapshot compares a full SnapshotApp through gRPC with an OSWorld-style pyatspi dump of the same app
// (name, role, states, attributes, extents, text and value of every node), on gtk3-widget-factory and on
// Chromium showing a page of about 1,400 DOM elements.
func BenchmarkSnapshot(b *testing.B) {
	e := startA11yEnv(b)
	type target struct {
		name string
		pid  int32
		wait func(*agentv1.Snapshot) bool
	}
	var targets []target
	if _, err := exec.LookPath("gtk3-widget-factory"); err == nil {
		targets = append(targets, target{"gtk", e.startApp(b, "gtk3-widget-factory"), func(*agentv1.Snapshot) bool { return true }})
	} else {
		testenv.Missing(b, "gtk3-widget-factory not installed")
	}
	if _, err := exec.LookPath("chromium"); err == nil {
		page := chromium.BenchPage()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, page) }))
		b.Cleanup(srv.Close)
		pid := e.startApp(b, "chromium", "--force-renderer-accessibility", "--no-sandbox", "--disable-gpu", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
			"--user-data-dir="+b.TempDir(), "--window-size=1200,760", srv.URL)
		targets = append(targets, target{"chromium", pid, func(s *agentv1.Snapshot) bool { return strings.Contains(s.Text, `"Field 86"`) }})
	} else {
		testenv.Missing(b, "chromium not installed")
	}
	for _, tg := range targets {
		// Wait for the page (or app) to be complete in the tree, then warm both sides once.
		deadline := time.Now().Add(60 * time.Second)
		for {
			r, err := e.acc.SnapshotApp(context.Background(), &agentv1.SnapshotAppRequest{AppId: atspi.AppID(tg.pid), Options: &agentv1.SnapshotOptions{MaxNodes: 20000}})
			if err == nil && tg.wait(r.Snapshot) {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("%s: tree never complete (%v)", tg.name, err)
			}
			time.Sleep(250 * time.Millisecond)
		}
		b.Run("glovebox-"+tg.name, func(b *testing.B) {
			var nodes int
			timeOp(b, func() {
				s := e.snapshot(b, tg.pid)
				if !s.Complete {
					b.Fatalf("incomplete: %s", s.IncompleteReason)
				}
				nodes = len(s.Elements)
			})
			b.ReportMetric(float64(nodes), "nodes")
		})
		b.Run("pyatspi-"+tg.name, func(b *testing.B) {
			if _, err := e.dump.run(tg.pid); err != nil {
				b.Skipf("the peer failed on %s: %v", tg.name, err)
			}
			var nodes int
			timeOp(b, func() {
				n, err := e.dump.run(tg.pid)
				if err != nil {
					b.Fatal(err)
				}
				nodes = n
			})
			b.ReportMetric(float64(nodes), "nodes")
		})
	}
}

// BenchmarkElementAction measures element_click (by ref, the element's own action) and element_set_value through
// gRPC Act, on the test app of package atspi; the issue asks for p50 under 5 ms.
func BenchmarkElementAction(b *testing.B) {
	e := startA11yEnv(b)
	pid := e.startApp(b, "/usr/bin/python3", "../atspi/testdata/a11yapp.py", "benchapp")
	s := e.snapshot(b, pid)
	var button, entry *agentv1.Element
	for _, el := range s.Elements {
		switch {
		case el.Role == "push button" && el.Name == "Press me":
			button = el
		case el.Role == "text" && el.Text == "hello world":
			entry = el
		}
	}
	if button == nil || entry == nil {
		b.Fatalf("test app elements not found:\n%s", s.Text)
	}
	ctx := context.Background()
	b.Run("glovebox-click", func(b *testing.B) {
		req := &agentv1.ActRequest{Owner: "bench", Action: &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{Element: &agentv1.ElementRef{SnapshotId: s.SnapshotId, Ref: button.Ref}}}}
		timeOp(b, func() {
			if _, err := e.act.Act(ctx, req); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("glovebox-set_value", func(b *testing.B) {
		i := 0
		timeOp(b, func() {
			i++
			req := &agentv1.ActRequest{Owner: "bench", Action: &agentv1.ActRequest_ElementSetValue{ElementSetValue: &agentv1.ElementSetValue{
				Element: &agentv1.ElementRef{SnapshotId: s.SnapshotId, Ref: entry.Ref}, Value: &agentv1.ElementSetValue_Text{Text: "value " + strconv.Itoa(i)}}}}
			if r, err := e.act.Act(ctx, req); err != nil || r.Effect != agentv1.Effect_EFFECT_VERIFIED {
				b.Fatal(r, err)
			}
		})
	})
}
