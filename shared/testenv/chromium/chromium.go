// Package chromium starts Debian's Chromium for tests: on a test desktop, with the workspace browser's flags
// (DEVELOPERS.md), a DevTools port and a fresh profile, in its own process group that dies with the test. It
// only runs the program and speaks HTTP to its DevTools port; it links no CDP library, so shared stays free of
// them.
package chromium

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/desktop"
)

// startTimeout bounds the wait for the DevTools port: a cold start on a loaded 2-core machine takes seconds.
const startTimeout = 30 * time.Second

// Need calls testenv.Missing unless chromium is installed, for a test that checks before it starts a desktop.
func Need(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("chromium"); err != nil {
		testenv.Missing(t, "chromium is not installed (apt-get install chromium)")
	}
}

// Start starts Chromium on d with a DevTools port nothing listened on, a fresh profile and about:blank, waits
// until the port answers and returns it. extra flags are added to the workspace browser's. The browser's
// whole process group is killed when the test ends, so the renderers and the zygote are gone before the
// profile directory is removed. It calls testenv.Missing when chromium is not installed.
func Start(t testing.TB, d *desktop.Desktop, extra ...string) int {
	t.Helper()
	return Launch(t, d, Options{Extra: extra}).Port
}

// Options configures Launch.
type Options struct {
	// Env is the browser's environment; nil: the desktop's (d.Env()).
	Env []string
	// PickPort starts the browser with --remote-debugging-port=0: it picks the port itself and writes it to
	// DevToolsActivePort in its profile, which Launch reads.
	PickPort bool
	// Extra flags are added to the workspace browser's.
	Extra []string
}

// Browser is a Chromium that Launch started.
type Browser struct {
	// Port is its DevTools port.
	Port int
	// Pid is the browser process's pid.
	Pid int
	// Profile is its profile (user data) directory.
	Profile string
}

// Launch is Start with options; it answers the browser's port, pid and profile.
func Launch(t testing.TB, d *desktop.Desktop, o Options) *Browser {
	t.Helper()
	Need(t)
	b := &Browser{Profile: t.TempDir()}
	if !o.PickPort {
		_, portText, _ := net.SplitHostPort(testenv.FreeAddr(t))
		b.Port, _ = strconv.Atoi(portText)
	}
	args := []string{
		fmt.Sprintf("--remote-debugging-port=%d", b.Port), "--remote-allow-origins=*", "--user-data-dir=" + b.Profile,
		"--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--force-renderer-accessibility", "--password-store=basic",
		"--window-size=1200,760",
	}
	args = append(append(args, o.Extra...), "about:blank")
	c := d.Command("chromium", args...)
	if o.Env != nil {
		c.Env = o.Env
	}
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	d.StartProgram(t, c)
	b.Pid = c.Process.Pid
	t.Cleanup(func() {
		pgid := c.Process.Pid
		syscall.Kill(-pgid, syscall.SIGKILL)
		c.Wait()
		for i := 0; i < 100 && syscall.Kill(-pgid, 0) == nil; i++ {
			time.Sleep(20 * time.Millisecond)
		}
	})
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		if o.PickPort {
			line, _, _ := strings.Cut(readFile(filepath.Join(b.Profile, "DevToolsActivePort")), "\n")
			b.Port, _ = strconv.Atoi(line)
		}
		if b.Port > 0 {
			resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/json/version", b.Port))
			if err == nil {
				resp.Body.Close()
				return b
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("chromium (port %d, pick %v) did not answer within %v", b.Port, o.PickPort, startTimeout)
	return nil
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}
