package broker_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/a11ybus"
	"glovebox.dev/shared/testenv/desktop"
	"glovebox.dev/tests/internal/agenttest"
)

// recGuest is a desktop with an accessibility bus, an agent on it and the AT-SPI test app (a window with an
// entry, a button "Press me", a check box ...) that prints what happens to it.
type recGuest struct {
	agent *agenttest.Agent
	bus   *a11ybus.Session
	pid   int32
	appID string
	// window is the app's main window: its AT-SPI id.
	window string
	mu     sync.Mutex
	lines  []string
}

// startRecGuest starts a desktop, its accessibility bus, an agent and the test app named prgname (the app's
// name on the bus), and waits until the app's window is on the bus.
func startRecGuest(t *testing.T, prgname string) *recGuest {
	t.Helper()
	testenv.NeedCommands(t, "Xvfb", "openbox", debianPython)
	d := desktop.Start(t, desktop.Options{})
	s := a11ybus.Start(t, d)
	g := &recGuest{bus: s, agent: agenttest.Start(t, agenttest.Options{Desktop: d, Env: []string{"DBUS_SESSION_BUS_ADDRESS=" + s.Address}})}
	c := s.Command(debianPython, filepath.Join(agenttest.RepoRoot(t), "guest/internal/atspi/testdata/a11yapp.py"), prgname)
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.StartProgram(t, c); err != nil {
		t.Fatalf("start the test app: %v", err)
	}
	g.pid = int32(c.Process.Pid)
	g.appID = "app:" + strconv.Itoa(int(g.pid))
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			g.mu.Lock()
			g.lines = append(g.lines, sc.Text())
			g.mu.Unlock()
		}
	}()
	g.waitLine(t, "ready", 20*time.Second)
	a11y := agentv1.NewAccessibilityServiceClient(g.agent.DialUnix(t))
	deadline := time.Now().Add(20 * time.Second)
	for g.window == "" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		r, err := a11y.GetApp(ctx, &agentv1.GetAppRequest{AppId: g.appID})
		cancel()
		for _, w := range r.GetApp().GetWindows() {
			if w.GetName() == "A11y Test" {
				g.window = w.GetWindowId()
			}
		}
		if g.window == "" && time.Now().After(deadline) {
			t.Fatalf("%s has no window A11y Test on the bus within 20s (last: %v)", g.appID, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return g
}

// count is how many lines the app printed that are line.
func (g *recGuest) count(line string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.count0(line)
}

// waitLine waits until the app has printed line (at least n times, n default 1).
func (g *recGuest) waitLine(t *testing.T, line string, timeout time.Duration, n ...int) {
	t.Helper()
	want := 1
	if len(n) > 0 {
		want = n[0]
	}
	deadline := time.Now().Add(timeout)
	for g.count(line) < want {
		if time.Now().After(deadline) {
			g.mu.Lock()
			defer g.mu.Unlock()
			t.Fatalf("the app printed %q %d times within %v, want %d; it printed %q", line, g.count0(line), timeout, want, g.lines)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// count0 is count with g.mu held.
func (g *recGuest) count0(line string) int {
	n := 0
	for _, l := range g.lines {
		if l == line {
			n++
		}
	}
	return n
}

// findEl is the first element of role named name in s.
func findEl(t *testing.T, s *agentv1.Snapshot, role, name string) *agentv1.Element {
	t.Helper()
	i := slices.IndexFunc(s.GetElements(), func(e *agentv1.Element) bool { return e.GetRole() == role && e.GetName() == name })
	if i < 0 {
		t.Fatalf("no %s %q in the snapshot:\n%s", role, name, s.GetText())
	}
	return s.GetElements()[i]
}

// onlyRecording is the one recording in dir.
func onlyRecording(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "rec-") {
			ids = append(ids, e.Name())
		}
	}
	if len(ids) != 1 {
		t.Fatalf("recordings %v in %s, want one", ids, dir)
	}
	return ids[0]
}

// waitExists waits until path exists.
func waitExists(t *testing.T, path string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not written within %v", filepath.Base(path), timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
