package atspi

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"glovebox.dev/shared/testenv"
)

// TestNamesFresh regenerates names.go from the installed libatspi and checks the committed file is the same,
// byte for byte.
func TestNamesFresh(t *testing.T) {
	testenv.NeedCommands(t, "go", "gcc")
	out := filepath.Join(t.TempDir(), "names.go")
	run := exec.Command("go", "run", "gen_names.go", "-o", out)
	if msg, err := run.CombinedOutput(); err != nil {
		if strings.Contains(string(msg), "not installed") {
			testenv.Missing(t, strings.TrimSpace(string(msg)))
		}
		t.Fatalf("go run gen_names.go: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("names.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("names.go is not what gen_names.go writes from this libatspi: run go generate ./internal/atspi")
	}
}
