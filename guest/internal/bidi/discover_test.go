package bidi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCmdlinePorts: Firefox command lines name their remote agent port in either form; other programs' ports
// (Chromium's DevTools port uses the same flag) are not Firefox's.
func TestCmdlinePorts(t *testing.T) {
	proc := t.TempDir()
	for pid, argv := range map[string][]string{
		"10":   {"/usr/lib/firefox-esr/firefox-esr", "-profile", "/p", "--remote-debugging-port=9333", "about:blank"},
		"11":   {"firefox", "--remote-debugging-port", "9444"},
		"12":   {"/usr/lib/chromium/chromium", "--remote-debugging-port=9222"},
		"13":   {"firefox-esr", "--remote-debugging-port=0"},
		"self": {"firefox", "--remote-debugging-port=9555"},
	} {
		dir := filepath.Join(proc, pid)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cmdline"), []byte(strings.Join(argv, "\x00")+"\x00"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := map[int]bool{}
	for _, p := range cmdlinePorts(proc) {
		got[p] = true
	}
	if diff := cmp.Diff(map[int]bool{9333: true, 9444: true}, got); diff != "" {
		t.Errorf("ports (-want +got):\n%s", diff)
	}
}
