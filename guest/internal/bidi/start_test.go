package bidi

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/desktop"
	"glovebox.dev/shared/testenv/firefox"
)

// firefoxWithPort reports whether a running Firefox process names port on its command line, read from /proc by
// the test itself.
func firefoxWithPort(port int) bool {
	dirs, _ := os.ReadDir("/proc")
	flag := []byte("--remote-debugging-port=" + strconv.Itoa(port))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte("firefox")) && bytes.Contains(b, flag) {
			return true
		}
	}
	return false
}

// TestStartDefaultFirefox: ListBrowsers with start_default and engine firefox starts the default workspace
// Firefox with the profile's preferences and lists it with its engine and version; a start_default for another
// engine starts nothing; Close stops what the backend started.
func TestStartDefaultFirefox(t *testing.T) {
	firefox.Need(t)
	d := desktop.Start(t, desktop.Options{})
	_, portText, _ := net.SplitHostPort(testenv.FreeAddr(t))
	port, _ := strconv.Atoi(portText)
	profile := filepath.Join(t.TempDir(), "profile")
	b := New(Config{Ports: []int{port}, Display: d.Display, ProfileDir: profile, Executable: firefox.Executable, Proc: t.TempDir()})
	t.Cleanup(func() { b.Close() })
	ctx := context.Background()
	resp, err := b.ListBrowsers(ctx, &agentv1.ListBrowsersRequest{StartDefault: true, Engine: "chromium"})
	if err != nil || len(resp.GetBrowsers()) != 0 || firefoxWithPort(port) {
		t.Fatalf("start_default for chromium on the firefox backend: %v %v, firefox running %v", resp, err, firefoxWithPort(port))
	}
	resp, err = b.ListBrowsers(ctx, &agentv1.ListBrowsersRequest{StartDefault: true, Engine: "firefox"})
	if err != nil {
		t.Fatal(err)
	}
	want := "firefox-" + strconv.Itoa(port)
	if len(resp.GetBrowsers()) != 1 || resp.GetBrowsers()[0].GetBrowserId() != want || resp.GetBrowsers()[0].GetEngine() != "firefox" ||
		!strings.HasPrefix(resp.GetBrowsers()[0].GetVersion(), "Firefox/") || !resp.GetBrowsers()[0].GetDefaultWorkspace() {
		t.Fatalf("ListBrowsers = %v, want %s (firefox, a version, default workspace)", resp, want)
	}
	if !firefoxWithPort(port) {
		t.Errorf("no firefox process with port %d", port)
	}
	userJS, err := os.ReadFile(filepath.Join(profile, "user.js"))
	if err != nil || !strings.Contains(string(userJS), `user_pref("remote.active-protocols", 1);`) || !strings.Contains(string(userJS), `user_pref("app.update.auto", false);`) {
		t.Errorf("profile user.js %q: %v", userJS, err)
	}
	b.Close()
	deadline := time.Now().Add(10 * time.Second)
	for firefoxWithPort(port) {
		if time.Now().After(deadline) {
			t.Fatalf("firefox on port %d still running 10 s after Close", port)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestListingLeavesDiscoveredFirefoxFree: a Firefox found only on its command line is listed with its engine and
// version, and the listing ends its session: another client can open the one BiDi session Firefox allows at once
// (before, ListBrowsers kept a session on every Firefox it found and locked their own clients out).
func TestListingLeavesDiscoveredFirefoxFree(t *testing.T) {
	firefox.Need(t)
	d := desktop.Start(t, desktop.Options{})
	port := firefox.Start(t, d)
	lister := New(Config{Ports: []int{1}, Executable: "/nonexistent"})
	t.Cleanup(func() { lister.Close() })
	want := "firefox-" + strconv.Itoa(port)
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	var found *agentv1.Browser
	for found == nil {
		resp, err := lister.ListBrowsers(ctx, &agentv1.ListBrowsersRequest{})
		for _, br := range resp.GetBrowsers() {
			if br.GetBrowserId() == want {
				found = br
			}
		}
		if found == nil && ctx.Err() != nil {
			t.Fatalf("%s never listed (last: %v, %v)", want, resp, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if found.GetEngine() != "firefox" || !strings.HasPrefix(found.GetVersion(), "Firefox/") || found.GetDefaultWorkspace() || found.GetTabCount() < 1 {
		t.Errorf("listed %v, want engine firefox, a version, not the default workspace, its tabs", found)
	}
	other := New(Config{Ports: []int{port}, Executable: "/nonexistent", Proc: t.TempDir()})
	t.Cleanup(func() { other.Close() })
	if _, err := other.ListTabs(ctx, &agentv1.ListTabsRequest{BrowserId: want}); err != nil {
		t.Errorf("another client after the listing: %v (the listing kept the only session)", err)
	}
}
