// Package chromium starts Debian's Chromium for tests: on a test desktop, with the workspace browser's flags
// (DEVELOPERS.md), a DevTools port and a fresh profile, in its own process group that dies with the test. It
// only runs the program and speaks HTTP to its DevTools port; it links no CDP library, so shared stays free of
// them.
package chromium

import (
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strconv"
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
	Need(t)
	_, portText, _ := net.SplitHostPort(testenv.FreeAddr(t))
	port, _ := strconv.Atoi(portText)
	args := []string{
		fmt.Sprintf("--remote-debugging-port=%d", port), "--remote-allow-origins=*", "--user-data-dir=" + t.TempDir(),
		"--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--force-renderer-accessibility", "--password-store=basic",
		"--window-size=1200,760",
	}
	args = append(append(args, extra...), "about:blank")
	c := d.Command("chromium", args...)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	d.StartProgram(t, c)
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
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/json/version", port))
		if err == nil {
			resp.Body.Close()
			return port
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("chromium on port %d did not answer", port)
	return 0
}
