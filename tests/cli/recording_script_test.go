package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// python is Debian's interpreter, which has python3-grpcio and python3-protobuf (a pyenv or venv python on
// PATH may not).
const python = "/usr/bin/python3"

// TestRecordingScriptRuns runs the `-format script` export of a recorded session (a click into a zenity entry,
// the canary typed, Return; the text kept only as length + HMAC) with Debian's python3 and the generated client
// in proto/python against the real broker and agent. Without the text the script stops before it sends
// anything, naming the variable it needs (no session in the audit log); with GLOVEBOX_TEXT_1 set it performs the steps, and a fresh zenity's own stdout reads the canary.
func TestRecordingScriptRuns(t *testing.T) {
	if out, err := exec.Command(python, "-c", "import grpc, google.protobuf").CombinedOutput(); err != nil {
		testenv.Missing(t, "python3-grpcio and python3-protobuf needed for "+python+": "+strings.TrimSpace(string(out)))
	}
	const canary = "canary script 7c1e"
	run, b, recDir, id, a := recordSessionOn(t, canary, map[string]any{"principals": []string{"tester"}})
	script := filepath.Join(t.TempDir(), "replay.py")
	if code, o, errOut := run("", "recording", "export", id, "-dir", recDir, "-format", "script", "-o", script); code != 0 {
		t.Fatalf("export script: exit %d\n%s%s", code, o, errOut)
	}
	if data, err := os.ReadFile(script); err != nil || bytes.Contains(data, []byte(canary)) {
		t.Fatalf("script %v: it must exist and not hold the canary (kept only as HMAC)", err)
	}
	runScript := func(env ...string) (string, string, error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, python, script, "--broker", b.URI, "--guest", b.Guest)
		cmd.Env = append(append(os.Environ(), "PYTHONPATH="+filepath.Join(agenttest.RepoRoot(t), "proto", "python")), env...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		return out.String(), errOut.String(), err
	}

	// No text given: the script stops before sending anything, naming the variable it needs.
	before := len(brokertest.AuditRecords(t, b.AuditDir, b.Guest))
	if out, errOut, err := runScript(); err == nil || out != "" || !strings.Contains(errOut, "GLOVEBOX_TEXT_1") {
		t.Fatalf("script without the text: %v\nstdout %s\nstderr %s", err, out, errOut)
	}
	if after := brokertest.AuditRecords(t, b.AuditDir, b.Guest); len(after) != before {
		t.Fatalf("the script without the text reached the broker: %d audit records after it, %d before (last %v)", len(after), before, after[len(after)-1])
	}

	// The text given: the steps land in a fresh zenity entry.
	var zout strings.Builder
	z := a.Desktop.Command("zenity", "--entry", "--title", "rec-entry")
	z.Stdout = &zout
	a.Desktop.StartProgram(t, z)
	a.Desktop.WaitWindow(t, "rec-entry", 15*time.Second)
	out, errOut, err := runScript("GLOVEBOX_TEXT_1=" + canary)
	if err != nil {
		t.Fatalf("script: %v\nstdout %s\nstderr %s", err, out, errOut)
	}
	var actions []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var st struct {
			Index    int    `json:"index"`
			Action   string `json:"action"`
			AuditSeq uint64 `json:"audit_seq"`
		}
		if err := json.Unmarshal([]byte(line), &st); err != nil || st.AuditSeq == 0 {
			t.Fatalf("script line %q: %v; want a step with its audit seq", line, err)
		}
		actions = append(actions, st.Action)
	}
	if strings.Join(actions, ",") != "click,type,key" {
		t.Errorf("script performed %v, want click, type, key", actions)
	}
	done := make(chan error, 1)
	go func() { done <- z.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("zenity did not exit after the script's Return")
	}
	if got := strings.TrimSuffix(zout.String(), "\n"); got != canary {
		t.Errorf("zenity read %q after the script, want the canary", got)
	}
}
