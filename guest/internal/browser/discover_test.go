package browser

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/a11ybus"
	"glovebox.dev/shared/testenv/chromium"
	"glovebox.dev/shared/testenv/desktop"
)

// TestDiscoverRunningBrowsers finds Chromium browsers whose port is on no configured list: one on a desktop
// with accessibility on, whose browser process rewrites its command line without NUL separators (checked here,
// so the test proves that case), and one started with --remote-debugging-port=0, whose port is only in its
// profile's DevToolsActivePort. Each answers ListBrowsers and a tab listing.
func TestDiscoverRunningBrowsers(t *testing.T) {
	chromium.Need(t)
	d := desktop.Start(t, desktop.Options{})
	sess := a11ybus.Start(t, d)
	spaced := chromium.Launch(t, d, chromium.Options{Env: sess.Env()})
	picked := chromium.Launch(t, d, chromium.Options{PickPort: true})

	// Chromium rewrites its command line shortly after start; wait (bounded) until it has.
	var cmd []byte
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", spaced.Pid))
		if err != nil {
			t.Fatal(err)
		}
		if cmd = bytes.TrimRight(b, "\x00"); !bytes.Contains(cmd, []byte{0}) {
			break
		}
		if time.Now().After(deadline) {
			testenv.Missing(t, "this Chromium keeps NUL separators in /proc/PID/cmdline with accessibility on: the case under test does not occur")
		}
	}
	if !bytes.Contains(cmd, []byte(portFlag+strconv.Itoa(spaced.Port))) {
		t.Fatalf("the browser's command line does not name its port %d: %q", spaced.Port, cmd)
	}

	_, other, _ := net.SplitHostPort(testenv.FreeAddr(t))
	none, _ := strconv.Atoi(other)
	b := New(Config{Ports: []int{none}, Executable: "/nonexistent", ProfileDir: t.TempDir()})
	t.Cleanup(func() { b.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := b.ListBrowsers(ctx, &agentv1.ListBrowsersRequest{})
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, br := range list.GetBrowsers() {
		found[br.GetBrowserId()] = true
	}
	for what, port := range map[string]int{"accessibility on (no NULs)": spaced.Port, "port 0 (DevToolsActivePort)": picked.Port} {
		id := browserID(port)
		if !found[id] {
			t.Errorf("%s: ListBrowsers lists %v, not %s", what, list.GetBrowsers(), id)
			continue
		}
		tabs, err := b.ListTabs(ctx, &agentv1.ListTabsRequest{BrowserId: id})
		if err != nil || len(tabs.GetTabs()) == 0 {
			t.Errorf("%s: ListTabs: %v %v", what, tabs, err)
		}
	}
}
