// Package cli_test runs the glovebox command line binary against a real glovebox-broker and glovebox-agent
// on an Xvfb desktop, checking effects through programs the CLI does not control (zenity, xclip, image/png)
// and the audit log files on disk.
package cli_test

import (
	"bytes"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// glovebox runs the CLI binary against the broker with stdin and returns exit code, stdout and stderr.
type glovebox func(stdin string, args ...string) (int, string, string)

func cli(t *testing.T, b *brokertest.Broker) glovebox {
	bin := brokertest.Binary(t, "glovebox")
	return func(stdin string, args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "GLOVEBOX_BROKER="+b.URI)
		cmd.Stdin = strings.NewReader(stdin)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		code := 0
		if err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatalf("glovebox %v: %v", args, err)
			}
			code = ee.ExitCode()
		}
		return code, out.String(), errOut.String()
	}
}

func TestCLIEndToEnd(t *testing.T) {
	testenv.NeedCommands(t, "zenity", "xclip")
	a := agenttest.Start(t, agenttest.Options{})
	b := brokertest.Start(t, a)
	run := cli(t, b)
	must := func(stdin string, args ...string) string {
		t.Helper()
		code, out, errOut := run(stdin, args...)
		if code != 0 {
			t.Fatalf("glovebox %v: exit %d\n%s\nbroker log:\n%s", args, code, errOut, b.Log.String())
		}
		return out
	}

	if out := must("", "guests"); !strings.Contains(out, "g1") || !strings.Contains(out, "ready") {
		t.Errorf("guests:\n%s", out)
	}
	session := strings.TrimSpace(must("", "sessions", "create", "g1", "-label", "cli e2e"))
	if !strings.HasPrefix(session, "s-") {
		t.Fatalf("session id %q", session)
	}

	// A screenshot, decoded independently.
	shot := filepath.Join(t.TempDir(), "shot.png")
	must("", "screenshot", "-s", session, "-o", shot)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(f)
	f.Close()
	if err != nil || cfg.Width != 1280 || cfg.Height != 800 {
		t.Errorf("screenshot: %dx%d, %v; want a 1280x800 PNG", cfg.Width, cfg.Height, err)
	}

	// Typing into a real zenity entry; zenity's own stdout is the check. The CLI never echoes the text.
	var zout strings.Builder
	z := a.Desktop.Command("zenity", "--entry", "--title", "cli-entry")
	z.Stdout = &zout
	a.Desktop.StartProgram(t, z)
	win := strconv.FormatUint(uint64(a.Desktop.WaitWindow(t, "cli-entry", 15*time.Second)), 10)
	const typed = "canary typed 7a1c Grüße"
	if out := must(typed, "act", "-s", session, "-window", win, "type", "-stdin"); strings.Contains(out, typed) {
		t.Errorf("act type printed the text: %q", out)
	}
	must("", "act", "-s", session, "-window", win, "key", "Return")
	done := make(chan error, 1)
	go func() { done <- z.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("zenity did not exit after Return")
	}
	if got := strings.TrimSuffix(zout.String(), "\n"); got != typed {
		t.Errorf("zenity read %q, want %q", got, typed)
	}

	// A bad argument: the broker's field violation, exit 1, nothing done.
	code, _, errOut := run("", "act", "-s", session, "click", "10", "10", "-count", "7")
	if code != 1 || !strings.HasPrefix(errOut, "INVALID_ARGUMENT: ") || !strings.Contains(errOut, "count") {
		t.Errorf("click -count 7: exit %d, stderr %q", code, errOut)
	}
	// A usage error: exit 2.
	if code, _, _ := run("", "act", "-s", session, "click", "10"); code != 2 {
		t.Errorf("click with one coordinate: exit %d, want 2", code)
	}

	// Clipboard both ways, checked with xclip.
	const clip = "canary clip 93bd"
	must(clip, "clipboard", "write", "-s", session, "-stdin")
	if got, err := a.Desktop.Command("xclip", "-o", "-selection", "clipboard").Output(); err != nil || string(got) != clip {
		t.Errorf("xclip read %q, %v; want %q", got, err, clip)
	}
	if got := must("", "clipboard", "read", "-s", session); got != clip {
		t.Errorf("clipboard read %q, want %q", got, clip)
	}

	// Takeover: a mutation is refused with CONTROL_HELD, an observation is served.
	must("", "control", "acquire", "g1", "-reason", "cli e2e")
	code, _, errOut = run("", "act", "-s", session, "key", "a")
	if code != 1 || !strings.HasPrefix(errOut, "CONTROL_HELD: ") {
		t.Errorf("act while held: exit %d, stderr %q", code, errOut)
	}
	must("", "cursor", "-s", session)
	if out := must("", "control", "get", "g1"); !strings.Contains(out, "held by") {
		t.Errorf("control get: %q", out)
	}
	must("", "control", "release", "g1")
	must("", "sessions", "delete", session)

	// The audit log: tail through the broker, verify and prove on the files; no canary anywhere in them.
	tail := must("", "audit", "tail", "-guest", "g1", "-n", "4")
	if n := strings.Count(tail, "\n"); n != 4 {
		t.Errorf("audit tail -n 4 printed %d lines:\n%s", n, tail)
	}
	if out := must("", "audit", "verify", "-dir", b.AuditDir); !strings.Contains(out, "guest g1: ok") {
		t.Errorf("audit verify: %q", out)
	}
	if out := must("", "audit", "prove", "-key", b.KeyFile, "-text", typed, "-dir", b.AuditDir, "-guest", "g1"); !strings.Contains(out, "type.text") {
		t.Errorf("audit prove typed text: %q", out)
	}
	if out := must(clip, "audit", "prove", "-key", b.KeyFile, "-stdin", "-dir", b.AuditDir, "-guest", "g1"); !strings.Contains(out, "text") {
		t.Errorf("audit prove clipboard text: %q", out)
	}
	files, _ := filepath.Glob(filepath.Join(b.AuditDir, "g1", "*"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, canary := range []string{typed, clip, "canary"} {
			if bytes.Contains(data, []byte(canary)) {
				t.Errorf("%s contains %q", file, canary)
			}
		}
	}
	if strings.Contains(tail+b.Log.String(), "canary") {
		t.Errorf("a canary reached audit tail or the broker log")
	}
}
