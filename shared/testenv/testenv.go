// Package testenv lets tests that need a real component (Xvfb, a window manager, xdotool, Chromium, QEMU)
// skip with a reason when it is missing on a developer's machine, and fail instead when GLOVEBOX_REQUIRE_ALL=1,
// as CI sets it, so CI can never pass by skipping.
package testenv

import (
	"net"
	"os"
	"os/exec"
	"testing"
)

// RequireAllEnv is the environment variable that turns missing components into failures.
const RequireAllEnv = "GLOVEBOX_REQUIRE_ALL"

// RequireAll reports whether missing components must fail tests.
func RequireAll() bool { return os.Getenv(RequireAllEnv) == "1" }

// Missing skips the test with reason, or fails it under GLOVEBOX_REQUIRE_ALL=1.
func Missing(t testing.TB, reason string) {
	t.Helper()
	if RequireAll() {
		t.Fatalf("required component missing (%s=1): %s", RequireAllEnv, reason)
	}
	t.Skipf("component missing: %s", reason)
}

// NeedCommands calls Missing unless every named program is on PATH.
func NeedCommands(t testing.TB, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			Missing(t, n+" not on PATH")
		}
	}
}

// FreeAddr returns a loopback TCP address (127.0.0.1:port) nothing listens on right now, for a program the
// test starts to listen on. Another process may take the port meanwhile; tests accept that small race.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
