package mcp_test

import (
	"bytes"
	"errors"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// glovebox runs the CLI with the session and broker in its environment and returns stdout, stderr and the exit
// code.
func glovebox(t *testing.T, e *env, session string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(e.bin, args...)
	cmd.Env = append(cmd.Environ(), "GLOVEBOX_BROKER="+e.broker.URI, "GLOVEBOX_SESSION="+session)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("glovebox %v: %v", args, err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// TestCLIAccessibility drives the app through the CLI's accessibility verbs: apps lists it, snapshot app prints
// refs, act el-click and el-set change the app (its own output), a ref of a superseded snapshot exits 1 with the
// reason and changes nothing, and a wrong command line exits 2.
func TestCLIAccessibility(t *testing.T) {
	e := start(t)
	e.app.geometry(t, "pad") // the app is up
	session, _, code := glovebox(t, e, "", "sessions", "create", e.broker.Guest)
	session = strings.TrimSpace(session)
	if code != 0 || session == "" {
		t.Fatalf("sessions create: exit %d %q", code, session)
	}
	var appID string
	deadline := time.Now().Add(20 * time.Second)
	for appID == "" {
		out, _, _ := glovebox(t, e, session, "apps")
		if m := regexp.MustCompile(`(?m)^(app:\d+)\s.*\bmcpapp$`).FindStringSubmatch(out); m != nil {
			appID = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("glovebox apps never listed mcpapp:\n%s", out)
		}
	}
	snapshot := func() (string, string, string) {
		t.Helper()
		out, errOut, code := glovebox(t, e, session, "snapshot", "app", appID, "-max-bytes", "4096")
		head := regexp.MustCompile(`^snapshot (\S+) of `).FindStringSubmatch(out)
		button := buttonRef.FindStringSubmatch(out)
		entry := regexp.MustCompile(`\[(e\d+)\] text`).FindStringSubmatch(out)
		if code != 0 || head == nil || button == nil || entry == nil {
			t.Fatalf("snapshot app: exit %d\n%s%s", code, out, errOut)
		}
		return head[1], button[1], entry[1]
	}
	snap, button, entry := snapshot()
	e.app.clear()
	if out, errOut, code := glovebox(t, e, session, "act", "el-click", snap, button); code != 0 {
		t.Fatalf("act el-click: exit %d %s%s", code, out, errOut)
	}
	e.app.waitLine(t, "button clicked", 5*time.Second)
	if out, errOut, code := glovebox(t, e, session, "act", "el-set", snap, entry, "-text", "set from the CLI"); code != 0 {
		t.Fatalf("act el-set: exit %d %s%s", code, out, errOut)
	}
	e.app.waitLine(t, "entry: set from the CLI", 5*time.Second)

	snapshot() // supersedes snap
	e.app.clear()
	_, errOut, code := glovebox(t, e, session, "act", "el-click", snap, button)
	if code != 1 || !strings.HasPrefix(errOut, "SNAPSHOT_SUPERSEDED: ") {
		t.Errorf("el-click with a superseded snapshot: exit %d %q, want 1 and SNAPSHOT_SUPERSEDED", code, errOut)
	}
	if _, errOut, code := glovebox(t, e, session, "act", "el-set", snap, entry); code != 2 || !strings.Contains(errOut, "-text or -number") {
		t.Errorf("el-set without a value: exit %d %q, want 2 naming -text or -number", code, errOut)
	}
	time.Sleep(300 * time.Millisecond)
	if p := e.app.printed(); len(p) > 0 {
		t.Errorf("refused CLI calls reached the app: %q", p)
	}
}
