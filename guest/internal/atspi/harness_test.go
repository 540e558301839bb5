package atspi

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/a11ybus"
	"glovebox.dev/shared/testenv/desktop"
	"google.golang.org/protobuf/testing/protocmp"
)

// python is Debian's interpreter, which has python3-gi (a pyenv python3 on PATH may not).
const python = "/usr/bin/python3"

// env is a desktop with an accessibility session and a backend connected to it.
type env struct {
	s *a11ybus.Session
	b *Backend
}

func newEnv(t testing.TB, opts Options) *env {
	t.Helper()
	d := desktop.Start(t, desktop.Options{})
	s := a11ybus.Start(t, d)
	opts.SessionBus = s.Address
	b, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return &env{s: s, b: b}
}

// app is a started test program with its stdout as lines.
type app struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	pid   int32
	mu    sync.Mutex
	lines []string
	added chan struct{}
}

// startApp starts a program on the session and kills it when the test ends.
func (e *env) startApp(t testing.TB, name string, args ...string) *app {
	t.Helper()
	c := e.s.Command(name, args...)
	if f, err := os.Create(filepath.Join(os.TempDir(), "a11y-"+filepath.Base(name)+".log")); err == nil {
		c.Stderr = f
		t.Cleanup(func() { f.Close() })
	}
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.s.StartProgram(t, c); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	a := &app{cmd: c, stdin: in, pid: int32(c.Process.Pid), added: make(chan struct{}, 1)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			a.mu.Lock()
			a.lines = append(a.lines, sc.Text())
			a.mu.Unlock()
			select {
			case a.added <- struct{}{}:
			default:
			}
		}
	}()
	return a
}

// startTestApp starts testdata/a11yapp.py and waits until it is on the bus.
func (e *env) startTestApp(t testing.TB, prgname string) *app {
	t.Helper()
	testenv.NeedCommands(t, python)
	a := e.startApp(t, python, "testdata/a11yapp.py", prgname)
	a.waitLine(t, "ready", 15*time.Second)
	e.waitOnBus(t, a.pid)
	return a
}

// waitOnBus waits until the process is an application on the accessibility bus.
func (e *env) waitOnBus(t testing.TB, pid int32) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := e.b.app(context.Background(), AppID(pid)); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s did not appear on the accessibility bus within 15s", AppID(pid))
}

// waitLine waits until the app printed a line equal to want (or with want as prefix when want ends in "*").
func (a *app) waitLine(t testing.TB, want string, timeout time.Duration) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		a.mu.Lock()
		for _, l := range a.lines {
			if l == want || strings.HasSuffix(want, "*") && strings.HasPrefix(l, strings.TrimSuffix(want, "*")) {
				a.mu.Unlock()
				return
			}
		}
		a.mu.Unlock()
		select {
		case <-a.added:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			a.mu.Lock()
			defer a.mu.Unlock()
			t.Fatalf("app did not print %q within %v; it printed %q", want, timeout, a.lines)
		}
	}
}

// reset forgets the lines printed so far.
func (a *app) reset() {
	a.mu.Lock()
	a.lines = nil
	a.mu.Unlock()
}

// find returns the first element with role and name in a snapshot.
func find(t *testing.T, s *agentv1.Snapshot, role, name string) *agentv1.Element {
	t.Helper()
	for _, el := range s.GetElements() {
		if el.GetRole() == role && (name == "" || el.GetName() == name) {
			return el
		}
	}
	t.Fatalf("no %s %q in the snapshot:\n%s", role, name, s.GetText())
	return nil
}

// cmpProto compares protobuf messages in cmp.Diff.
var cmpProto = protocmp.Transform()
