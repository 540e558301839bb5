// Package desktop starts a real X desktop for tests: Xvfb on a free display number and, unless asked not
// to, the openbox window manager (without one, new windows get no keyboard focus). It only runs programs; it
// links no X11 library, so shared stays free of them.
package desktop

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"glovebox.dev/shared/testenv"
)

// Options configures Start.
type Options struct {
	// Width and Height of the screen; 0 means 1280x800.
	Width, Height int
	// NoWindowManager skips openbox.
	NoWindowManager bool
}

// Desktop is a running Xvfb (and window manager) owned by one test.
type Desktop struct {
	// Display is the X display name, for example ":99".
	Display string
	// Width and Height of the screen.
	Width, Height int

	mu    sync.Mutex
	procs []*exec.Cmd
}

// Start starts Xvfb and a window manager and stops them when the test ends. It calls testenv.Missing when
// Xvfb (or openbox) is not installed.
func Start(t testing.TB, opts Options) *Desktop {
	t.Helper()
	if opts.Width == 0 {
		opts.Width, opts.Height = 1280, 800
	}
	testenv.NeedCommands(t, "Xvfb")
	if !opts.NoWindowManager {
		testenv.NeedCommands(t, "openbox")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// -displayfd makes Xvfb pick a free display number and write it once it accepts connections, so there
	// is no race on display numbers between parallel test binaries and no polling for readiness.
	xvfb := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0",
		fmt.Sprintf("%dx%dx24", opts.Width, opts.Height), "-nolisten", "tcp", "-noreset", "+extension", "XTEST")
	xvfb.ExtraFiles = []*os.File{w}
	xvfb.Stderr = nil
	if err := xvfb.Start(); err != nil {
		t.Fatalf("start Xvfb: %v", err)
	}
	w.Close()
	d := &Desktop{Width: opts.Width, Height: opts.Height}
	d.track(xvfb)
	t.Cleanup(d.stop)

	lines := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(r)
		if s.Scan() {
			lines <- s.Text()
		}
		close(lines)
		r.Close()
	}()
	select {
	case n, ok := <-lines:
		if !ok || strings.TrimSpace(n) == "" {
			t.Fatal("Xvfb exited before reporting its display")
		}
		d.Display = ":" + strings.TrimSpace(n)
	case <-time.After(20 * time.Second):
		t.Fatal("Xvfb did not start within 20s")
	}

	if !opts.NoWindowManager {
		wm := d.Command("openbox", "--sm-disable")
		if err := wm.Start(); err != nil {
			t.Fatalf("start openbox: %v", err)
		}
		d.track(wm)
		d.waitWindowManager(t)
	}
	return d
}

// waitWindowManager waits until the window manager owns the WM_S0 selection, so windows mapped afterwards
// are managed and get focus.
func (d *Desktop) waitWindowManager(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("xprop"); err != nil {
		time.Sleep(500 * time.Millisecond)
		return
	}
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		out, _ := d.Command("xprop", "-root", "_NET_SUPPORTING_WM_CHECK").Output()
		if strings.Contains(string(out), "window id #") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("window manager did not start within 15s")
}

// Env returns the environment for programs on this desktop.
func (d *Desktop) Env() []string {
	env := make([]string, 0, len(os.Environ())+2)
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "DISPLAY=") || strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "DISPLAY="+d.Display, "NO_AT_BRIDGE=1")
}

// Command returns a command that runs on this desktop.
func (d *Desktop) Command(name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Env = d.Env()
	return c
}

// CommandContext is Command with a context.
func (d *Desktop) CommandContext(ctx context.Context, name string, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, name, args...)
	c.Env = d.Env()
	return c
}

// StartProgram starts a program on the desktop and kills it when the test ends.
func (d *Desktop) StartProgram(t testing.TB, c *exec.Cmd) {
	t.Helper()
	if c.Env == nil {
		c.Env = d.Env()
	}
	if err := c.Start(); err != nil {
		t.Fatalf("start %s: %v", c.Path, err)
	}
	d.track(c)
	t.Cleanup(func() { kill(c) })
}

// WaitWindow waits until a visible window whose name matches the xdotool search pattern exists and returns
// its id.
func (d *Desktop) WaitWindow(t testing.TB, name string, timeout time.Duration) uint32 {
	t.Helper()
	testenv.NeedCommands(t, "xdotool")
	deadline := time.Now().Add(timeout)
	for {
		out, err := d.Command("xdotool", "search", "--onlyvisible", "--name", name).Output()
		if err == nil {
			if f := strings.Fields(string(out)); len(f) > 0 {
				var id uint32
				fmt.Sscan(f[len(f)-1], &id)
				return id
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no window named %q within %v", name, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (d *Desktop) track(c *exec.Cmd) {
	d.mu.Lock()
	d.procs = append(d.procs, c)
	d.mu.Unlock()
}

func (d *Desktop) stop() {
	d.mu.Lock()
	procs := d.procs
	d.procs = nil
	d.mu.Unlock()
	for i := len(procs) - 1; i >= 0; i-- {
		kill(procs[i])
	}
}

func kill(c *exec.Cmd) {
	if c.Process == nil || c.ProcessState != nil {
		return
	}
	_ = c.Process.Kill()
	_, _ = c.Process.Wait()
}

// FreeDisplay returns an X display name nobody serves (no socket, no lock file), for a test that starts its
// X server later than the program under test.
func FreeDisplay(t testing.TB) string {
	t.Helper()
	for n := 150 + os.Getpid()%2000; n < 4150; n++ {
		_, errSock := os.Stat(fmt.Sprintf("/tmp/.X11-unix/X%d", n))
		_, errLock := os.Stat(fmt.Sprintf("/tmp/.X%d-lock", n))
		if os.IsNotExist(errSock) && os.IsNotExist(errLock) {
			return fmt.Sprintf(":%d", n)
		}
	}
	t.Fatal("no free X display number")
	return ""
}
