package cli_test

import (
	"bytes"
	"encoding/json"
	"image/jpeg"
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
	"glovebox.dev/tests/internal/stepschema"
)

// recordSession runs a recorded session on a real broker and agent: a click into a zenity entry, the canary
// typed, Return; zenity's own stdout checks the typing. It returns the CLI, the broker, the recordings
// directory and the one recording's id.
func recordSession(t *testing.T, canary string, policy map[string]any) (glovebox, *brokertest.Broker, string, string) {
	run, b, recDir, id, _ := recordSessionOn(t, canary, policy)
	return run, b, recDir, id
}

// recordSessionOn is recordSession also returning the agent.
func recordSessionOn(t *testing.T, canary string, policy map[string]any) (glovebox, *brokertest.Broker, string, string, *agenttest.Agent) {
	t.Helper()
	testenv.NeedCommands(t, "zenity", "ffmpeg", "ffprobe")
	a := agenttest.Start(t, agenttest.Options{})
	b := brokertest.StartConfig(t, a, func(cfg map[string]any) { cfg["recording"] = policy })
	run := cli(t, b)
	must := func(stdin string, args ...string) string {
		t.Helper()
		code, out, errOut := run(stdin, args...)
		if code != 0 {
			t.Fatalf("glovebox %v: exit %d\n%s\nbroker log:\n%s", args, code, errOut, b.Log.String())
		}
		return out
	}
	session := strings.TrimSpace(must("", "sessions", "create", "g1", "-label", "recorded"))
	var zout strings.Builder
	z := a.Desktop.Command("zenity", "--entry", "--title", "rec-entry")
	z.Stdout = &zout
	a.Desktop.StartProgram(t, z)
	win := strconv.FormatUint(uint64(a.Desktop.WaitWindow(t, "rec-entry", 15*time.Second)), 10)
	x, y := windowOrigin(t, a, win)
	must("", "act", "-s", session, "-window", win, "click", strconv.Itoa(x+10), strconv.Itoa(y+10))
	must(canary, "act", "-s", session, "-window", win, "type", "-stdin")
	must("", "act", "-s", session, "-window", win, "key", "Return")
	done := make(chan error, 1)
	go func() { done <- z.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("zenity did not exit after Return")
	}
	if got := strings.TrimSuffix(zout.String(), "\n"); got != canary {
		t.Fatalf("zenity read %q, want the canary", got)
	}
	must("", "sessions", "delete", session)
	recDir := filepath.Join(filepath.Dir(b.AuditDir), "recordings")
	entries, err := os.ReadDir(recDir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("recordings dir %s: %v entries, %v; want one recording", recDir, len(entries), err)
	}
	id := entries[0].Name()
	if _, err := os.Stat(filepath.Join(recDir, id, "manifest.json")); err != nil {
		t.Fatalf("recording not sealed when the session closed: %v", err)
	}
	return run, b, recDir, id, a
}

func TestRecordingExportVerifyTamper(t *testing.T) {
	stepschema.Need(t)
	const canary = "canary rec 93fd Grüße"
	run, b, recDir, id := recordSession(t, canary, map[string]any{"principals": []string{"tester"}, "screenshots": true})

	// The canary is nowhere in the recording's files (text is length + HMAC by default).
	files, _ := os.ReadDir(filepath.Join(recDir, id))
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(recDir, id, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(canary)) || bytes.Contains(data, []byte("93fd")) {
			t.Errorf("%s holds the typed canary", f.Name())
		}
	}

	// The chain and the recording verify.
	if code, out, errOut := run("", "audit", "verify", "-dir", b.AuditDir); code != 0 {
		t.Fatalf("audit verify: exit %d\n%s%s", code, out, errOut)
	}

	// Export: steps validate against the documented schema, images decode, the video plays.
	out := filepath.Join(t.TempDir(), "bundle")
	if code, o, errOut := run("", "recording", "export", id, "-dir", recDir, "-o", out); code != 0 {
		t.Fatalf("export: exit %d\n%s%s", code, o, errOut)
	}
	steps := readLines(t, filepath.Join(out, "steps.jsonl"))
	if len(steps) != 3 {
		t.Fatalf("%d steps, want 3 (click, type, key)", len(steps))
	}
	if o, err := stepschema.Check(t, filepath.Join(out, "steps.jsonl")); err != nil {
		t.Errorf("steps.jsonl does not validate against docs/recording-step.schema.json: %v\n%s", err, o)
	}
	if a := steps[1]["action"]; a != "type" {
		t.Errorf("step 1 action %v, want type", a)
	}
	images, _ := filepath.Glob(filepath.Join(out, "images", "*.jpg"))
	if len(images) != 4 {
		t.Errorf("%d images, want 4 (start and one after each step)", len(images))
	}
	for _, p := range images {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := jpeg.Decode(f); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		f.Close()
	}
	probe, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=nb_read_frames,duration,codec_name", "-of", "json", filepath.Join(out, "video.mp4")).Output()
	if err != nil {
		t.Fatalf("ffprobe: %v", err)
	}
	var pr struct {
		Streams []struct {
			Codec    string `json:"codec_name"`
			Frames   string `json:"nb_read_frames"`
			Duration string `json:"duration"`
		} `json:"streams"`
	}
	if err := json.Unmarshal(probe, &pr); err != nil || len(pr.Streams) != 1 {
		t.Fatalf("ffprobe output %s: %v", probe, err)
	}
	if s := pr.Streams[0]; s.Codec != "h264" || s.Frames != "4" || s.Duration != "2.000000" {
		t.Errorf("video: %+v, want h264, 4 frames, 2 s (2 fps)", s)
	}

	// The script export is a Python program.
	script := filepath.Join(t.TempDir(), "replay.py")
	if code, o, errOut := run("", "recording", "export", id, "-dir", recDir, "-format", "script", "-o", script); code != 0 {
		t.Fatalf("export script: exit %d\n%s%s", code, o, errOut)
	}
	if o, err := exec.Command("python3", "-m", "py_compile", script).CombinedOutput(); err != nil {
		t.Errorf("script does not compile: %v\n%s", err, o)
	}

	// Replay: the typed text was kept only as its HMAC, so the type step fails and the replay stops there.
	code, rout, _ := run("", "recording", "replay", id, "-guest", "g1")
	if code != 1 || !strings.Contains(rout, "step 1 type: failed") || !strings.Contains(rout, "step 2 key: skipped") {
		t.Errorf("replay without kept text: exit %d, report %q", code, rout)
	}

	// One byte changed in the step file: verify fails naming the recording.
	p := filepath.Join(recDir, id, "steps.jsonl")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte(`"code":"OK"`)) + len(`"code":"O`)
	data[i] = 'X'
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	code, vout, _ := run("", "audit", "verify", "-dir", b.AuditDir)
	if code != 1 || !strings.Contains(vout, id) || !strings.Contains(vout, "steps.jsonl") {
		t.Errorf("verify after an edit: exit %d, output %q; want exit 1 naming %s and steps.jsonl", code, vout, id)
	}
}

func TestRecordingKeepsTextOnlyWhenPolicySays(t *testing.T) {
	const canary = "canary kept 5be1"
	run, _, recDir, id, a := recordSessionOn(t, canary, map[string]any{"guests": []string{"g1"}, "keep_text": true})
	data, err := os.ReadFile(filepath.Join(recDir, id, "steps.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(canary)) {
		t.Errorf("keep_text: the typed text is not in steps.jsonl")
	}
	if n, _ := filepath.Glob(filepath.Join(recDir, id, "*.jpg")); len(n) != 0 {
		t.Errorf("screenshots off, got %d images", len(n))
	}

	// Replay into a fresh zenity entry: the click by coordinates, the kept text typed, Return; zenity's own
	// stdout is the check.
	var zout strings.Builder
	z := a.Desktop.Command("zenity", "--entry", "--title", "rec-entry")
	z.Stdout = &zout
	a.Desktop.StartProgram(t, z)
	a.Desktop.WaitWindow(t, "rec-entry", 15*time.Second)
	code, out, errOut := run("", "recording", "replay", id, "-guest", "g1")
	if code != 0 {
		t.Fatalf("replay: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"step 0 click: done by coordinates", "step 1 type: done", "step 2 key: done"} {
		if !strings.Contains(out, want) {
			t.Errorf("replay report %q lacks %q", out, want)
		}
	}
	done := make(chan error, 1)
	go func() { done <- z.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("zenity did not exit after the replayed Return")
	}
	if got := strings.TrimSuffix(zout.String(), "\n"); got != canary {
		t.Errorf("zenity read %q after the replay, want the canary", got)
	}
}

// windowOrigin is the window's top left in root pixels, as xwininfo reads it.
func windowOrigin(t *testing.T, a *agenttest.Agent, win string) (x, y int) {
	t.Helper()
	out, err := a.Desktop.Command("xwininfo", "-id", win).Output()
	if err != nil {
		t.Fatalf("xwininfo: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 4 && f[0] == "Absolute" && f[1] == "upper-left" {
			n, _ := strconv.Atoi(f[3])
			if f[2] == "X:" {
				x = n
			} else {
				y = n
			}
		}
	}
	return x, y
}

func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, m)
	}
	return out
}
