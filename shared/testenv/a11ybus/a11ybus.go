// Package a11ybus gives a test desktop an AT-SPI accessibility session: a private D-Bus session bus, the
// accessibility bus launcher (at-spi-bus-launcher) with its registry (at-spi2-registryd), and
// org.a11y.Status.IsEnabled set, so GTK and Chromium export their accessibility trees. It only runs programs
// (dbus-daemon, dbus-send); it links no D-Bus library, so shared stays free of them.
//
// Programs started with Session.Command see DBUS_SESSION_BUS_ADDRESS and DISPLAY and none of the switches that
// keep toolkits off the bus (NO_AT_BRIDGE, GTK_MODULES); glovebox-agent reaches the accessibility bus through
// the same DBUS_SESSION_BUS_ADDRESS.
package a11ybus

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/desktop"
)

// Launcher and Registry are where Debian's at-spi2-core installs its daemons.
const (
	Launcher = "/usr/libexec/at-spi-bus-launcher"
	Registry = "/usr/libexec/at-spi2-registryd"
)

// Session is a session bus with an accessibility bus, on one test desktop.
type Session struct {
	// Desktop is the X desktop the session belongs to.
	Desktop *desktop.Desktop
	// Address is the session bus address (DBUS_SESSION_BUS_ADDRESS).
	Address string
}

// Start starts the session for d and stops it when the test ends. It calls testenv.Missing when dbus-daemon,
// dbus-send or at-spi2-core are not installed.
func Start(t testing.TB, d *desktop.Desktop) *Session {
	t.Helper()
	testenv.NeedCommands(t, "dbus-daemon", "dbus-send")
	for _, p := range []string{Launcher, Registry} {
		if _, err := os.Stat(p); err != nil {
			testenv.Missing(t, p+" not installed (Debian at-spi2-core)")
		}
	}
	s := &Session{Desktop: d}
	bus := exec.Command("dbus-daemon", "--session", "--nofork", "--print-address=1")
	bus.Env = d.Env()
	group(bus)
	out, err := bus.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.Start(); err != nil {
		t.Fatalf("start dbus-daemon: %v", err)
	}
	t.Cleanup(func() { stop(bus) })
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			addr <- strings.TrimSpace(sc.Text())
		}
		close(addr)
	}()
	select {
	case a, ok := <-addr:
		if !ok || a == "" {
			t.Fatal("dbus-daemon exited before printing its address")
		}
		s.Address = a
	case <-time.After(10 * time.Second):
		t.Fatal("dbus-daemon printed no address within 10s")
	}

	// The launcher starts the accessibility bus's own dbus-daemon and registers org.a11y.Bus; the registry
	// daemon is the accessibility bus's root ("the desktop") that lists applications.
	launcher := group(s.Command(Launcher, "--launch-immediately"))
	if err := launcher.Start(); err != nil {
		t.Fatalf("start %s: %v", Launcher, err)
	}
	t.Cleanup(func() { stop(launcher) })
	deadline := time.Now().Add(15 * time.Second)
	for {
		if err := s.send("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus.GetAddress"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("org.a11y.Bus did not appear on the session bus within 15s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := s.send("org.a11y.Bus", "/org/a11y/bus", "org.freedesktop.DBus.Properties.Set",
		"string:org.a11y.Status", "string:IsEnabled", "variant:boolean:true"); err != nil {
		t.Fatalf("set org.a11y.Status.IsEnabled: %v", err)
	}
	registry := group(s.Command(Registry))
	if err := registry.Start(); err != nil {
		t.Fatalf("start %s: %v", Registry, err)
	}
	t.Cleanup(func() { stop(registry) })
	return s
}

// send calls a method on the session bus with dbus-send.
func (s *Session) send(dest, path, method string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	argv := append([]string{"--session", "--print-reply", "--dest=" + dest, path, method}, args...)
	c := exec.CommandContext(ctx, "dbus-send", argv...)
	c.Env = s.Env()
	return c.Run()
}

// Env is the environment of programs on this session: the desktop's, with the session bus address and
// without NO_AT_BRIDGE and GTK_MODULES.
func (s *Session) Env() []string {
	var env []string
	for _, kv := range s.Desktop.Env() {
		switch {
		case strings.HasPrefix(kv, "NO_AT_BRIDGE="), strings.HasPrefix(kv, "GTK_MODULES="),
			strings.HasPrefix(kv, "DBUS_SESSION_BUS_ADDRESS="), strings.HasPrefix(kv, "AT_SPI_BUS_ADDRESS="):
			continue
		}
		env = append(env, kv)
	}
	return append(env, "DBUS_SESSION_BUS_ADDRESS="+s.Address)
}

// Command returns a command that runs on this session and desktop.
func (s *Session) Command(name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Env = s.Env()
	return c
}

// StartProgram starts c (made by Command, its pipes set up) in its own process group and, when the test ends,
// kills the group and waits until every process of it is gone: a program's helpers (Chromium's zygote, renderers
// and crash handler) must neither outlive the test nor write into its temporary directories while the testing
// package removes them.
func (s *Session) StartProgram(t testing.TB, c *exec.Cmd) error {
	t.Helper()
	group(c)
	if err := c.Start(); err != nil {
		return err
	}
	t.Cleanup(func() { kill(c) })
	return nil
}

// kill kills c's process group, reaps c and waits (at most 10 s) until no process of the group is left.
func kill(c *exec.Cmd) {
	pgid := c.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	_ = c.Wait()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if err := syscall.Kill(-pgid, 0); err == syscall.ESRCH {
			return
		}
		// Members forked after the first signal (a helper starting right then) get theirs now.
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// stop ends a daemon and everything it started (its process group: the launcher's bus daemon, services the
// session bus activated) and reaps it.
func stop(c *exec.Cmd) {
	if c.Process == nil {
		return
	}
	_ = syscall.Kill(-c.Process.Pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = c.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// group puts c in its own process group, so stop reaches its children too.
func group(c *exec.Cmd) *exec.Cmd {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return c
}

// BusAddress is the accessibility bus's address, as org.a11y.Bus.GetAddress answers it on the session bus.
func (s *Session) BusAddress(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, "dbus-send", "--session", "--print-reply=literal", "--dest=org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus.GetAddress")
	c.Env = s.Env()
	out, err := c.Output()
	if err != nil {
		t.Fatalf("org.a11y.Bus.GetAddress: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// Config is Debian's configuration of an accessibility bus daemon (at-spi2-core).
const Config = "/usr/share/defaults/at-spi2/accessibility.conf"

// StartBus starts a second accessibility bus for s's desktop, apart from the one s's launcher runs: a bus daemon
// on a socket of the test's own with a registry on it, and answers its address. No session bus names it; set it
// on the root window (SetRootBus) or in AT_SPI_BUS_ADDRESS for programs to use it. Both stop when the test ends.
func (s *Session) StartBus(t testing.TB) string {
	t.Helper()
	if _, err := os.Stat(Config); err != nil {
		testenv.Missing(t, Config+" not installed (Debian at-spi2-core)")
	}
	addr := "unix:path=" + t.TempDir() + "/bus"
	bus := group(exec.Command("dbus-daemon", "--config-file="+Config, "--nofork", "--address="+addr))
	bus.Env = s.Env()
	if err := bus.Start(); err != nil {
		t.Fatalf("start the accessibility bus daemon: %v", err)
	}
	t.Cleanup(func() { stop(bus) })
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := exec.CommandContext(ctx, "dbus-send", "--bus="+addr, "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.ListNames").Run()
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the accessibility bus daemon did not answer on %s within 10s", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	registry := group(s.Command(Registry))
	registry.Env = append(registry.Env, "AT_SPI_BUS_ADDRESS="+addr)
	if err := registry.Start(); err != nil {
		t.Fatalf("start %s: %v", Registry, err)
	}
	t.Cleanup(func() { stop(registry) })
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := exec.CommandContext(ctx, "dbus-send", "--bus="+addr, "--print-reply", "--dest=org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root", "org.a11y.atspi.Accessible.GetChildren").Run()
		cancel()
		if err == nil {
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("the registry did not answer on %s within 10s", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// SetRootBus sets the AT_SPI_BUS property of the desktop's X root window, which libatspi (GTK's bridge,
// Chromium, pyatspi) reads before it asks the session bus, to addr. It calls testenv.Missing without xprop.
func SetRootBus(t testing.TB, d *desktop.Desktop, addr string) {
	t.Helper()
	testenv.NeedCommands(t, "xprop")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c := d.CommandContext(ctx, "xprop", "-root", "-f", "AT_SPI_BUS", "8s", "-set", "AT_SPI_BUS", addr)
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("xprop -set AT_SPI_BUS: %v: %s", err, out)
	}
}
