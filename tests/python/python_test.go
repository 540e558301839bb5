// Package python_test runs the Python client in this directory (generated code from proto/python, Debian's
// python3-grpcio) against a real glovebox-broker and glovebox-agent on an Xvfb desktop.
package python_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// python is Debian's interpreter, which has python3-grpcio and python3-protobuf (a pyenv or venv python on
// PATH may not).
const python = "/usr/bin/python3"

// summary is what client.py prints.
type summary struct {
	Session         string `json:"session"`
	Width           int    `json:"width"`
	Height          int    `json:"height"`
	PNGBytes        int    `json:"png_bytes"`
	Window          uint32 `json:"window"`
	CharactersTyped int    `json:"characters_typed"`
	TargetSource    string `json:"target_source"`
	Closed          string `json:"closed"`
}

// needPython skips (or fails under GLOVEBOX_REQUIRE_ALL=1) when Debian's python3 lacks grpcio or protobuf.
func needPython(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(python); err != nil {
		testenv.Missing(t, python+" not installed")
		return
	}
	if out, err := exec.Command(python, "-c", "import grpc, google.protobuf").CombinedOutput(); err != nil {
		testenv.Missing(t, "python3-grpcio and python3-protobuf needed: "+strings.TrimSpace(string(out)))
	}
}

// TestGeneratedCodeImports checks that every generated module imports with Debian's protobuf runtime (the
// generated code must match protoc 3.21 / python3-protobuf 4.21).
func TestGeneratedCodeImports(t *testing.T) {
	needPython(t)
	root := agenttest.RepoRoot(t)
	var mods []string
	err := filepath.WalkDir(filepath.Join(root, "proto", "python"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".py") {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join(root, "proto", "python"), strings.TrimSuffix(path, ".py"))
		mods = append(mods, strings.ReplaceAll(rel, string(filepath.Separator), "."))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) < 20 {
		t.Fatalf("found %d generated modules under proto/python, want the agent and broker packages", len(mods))
	}
	script := "import importlib, sys\nfor m in sys.argv[1:]:\n    importlib.import_module(m)\nprint(len(sys.argv) - 1)\n"
	cmd := exec.Command(python, append([]string{"-c", script}, mods...)...)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+filepath.Join(root, "proto", "python"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("import generated modules: %v\n%s", err, out)
	}
}

// TestClientThroughBroker runs client.py against a real broker and agent: a session, a screenshot and typed
// text that a real zenity entry reads back on its own stdout.
func TestClientThroughBroker(t *testing.T) {
	needPython(t)
	testenv.NeedCommands(t, "zenity")
	root := agenttest.RepoRoot(t)
	a := agenttest.Start(t, agenttest.Options{})
	b := brokertest.Start(t, a)

	var zout strings.Builder
	z := a.Desktop.Command("zenity", "--entry", "--title", "py-entry")
	z.Stdout = &zout
	a.Desktop.StartProgram(t, z)
	a.Desktop.WaitWindow(t, "py-entry", 15*time.Second)

	const text = "typed from Python: Grüße 42"
	cmd := exec.Command(python, filepath.Join(root, "tests", "python", "client.py"), "--broker", b.URI, "--guest", b.Guest, "--window-title", "py-entry")
	cmd.Env = append(os.Environ(), "PYTHONPATH="+filepath.Join(root, "proto", "python"))
	cmd.Stdin = strings.NewReader(text)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client.py: %v\nstderr:\n%s\nbroker log:\n%s", err, stderr.String(), b.Log.String())
	}
	if strings.Contains(string(out)+stderr.String(), text) {
		t.Errorf("client.py printed the typed text")
	}
	var got summary
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client.py output %q: %v", out, err)
	}
	want := summary{Session: got.Session, Width: 1280, Height: 800, PNGBytes: got.PNGBytes, Window: got.Window,
		CharactersTyped: len([]rune(text)), TargetSource: "TARGET_SOURCE_EXPLICIT", Closed: "CLOSE_REASON_REQUESTED"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("client.py summary (-want +got):\n%s", diff)
	}
	if got.PNGBytes < 1000 || !strings.HasPrefix(got.Session, "s-") || got.Window == 0 {
		t.Errorf("summary %+v: want a real PNG, a session id and a window", got)
	}

	done := make(chan error, 1)
	go func() { done <- z.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("zenity did not exit after Return")
	}
	if got := strings.TrimSuffix(zout.String(), "\n"); got != text {
		t.Errorf("zenity read %q, want %q", got, text)
	}
}
