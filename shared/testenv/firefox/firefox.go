// Package firefox starts Debian's Firefox ESR for tests: on a test desktop (not headless), with Glovebox's
// profile preferences (shared/firefoxprofile), a WebDriver BiDi port and a fresh profile, in its own process group
// that dies with the test. It only runs the program and checks that the port listens; it links no BiDi code.
package firefox

import (
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"glovebox.dev/shared/firefoxprofile"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/desktop"
)

// Executable is Debian's Firefox ESR.
const Executable = "firefox-esr"

// startTimeout bounds the wait for the remote agent's port: a cold start on a loaded 2-core machine takes seconds.
const startTimeout = 45 * time.Second

// Need calls testenv.Missing unless firefox-esr is installed, for a test that checks before it starts a desktop.
func Need(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath(Executable); err != nil {
		testenv.Missing(t, "firefox-esr is not installed (apt-get install firefox-esr)")
	}
}

// Start starts Firefox ESR on d with a remote agent port nothing listened on and a fresh profile, waits until the
// port accepts connections and returns it. The browser's whole process group is killed when the test ends. It
// calls testenv.Missing when firefox-esr is not installed.
func Start(t testing.TB, d *desktop.Desktop) int {
	t.Helper()
	Need(t)
	_, portText, _ := net.SplitHostPort(testenv.FreeAddr(t))
	port, _ := strconv.Atoi(portText)
	dir := filepath.Join(t.TempDir(), "profile")
	if err := firefoxprofile.WriteProfile(dir); err != nil {
		t.Fatalf("firefox profile: %v", err)
	}
	c := d.Command(Executable, firefoxprofile.Args(port, dir)...)
	c.Env = append(c.Env, "MOZ_CRASHREPORTER_DISABLE=1", "HOME="+filepath.Dir(dir))
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
		if nc, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second); err == nil {
			nc.Close()
			return port
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("firefox on port %d did not listen within %v", port, startTimeout)
	return 0
}
