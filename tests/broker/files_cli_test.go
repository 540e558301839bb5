package broker_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"glovebox.dev/shared/testenv"
)

// TestFilesCLI drives the glovebox CLI binary: a local file dropped with -clipboard lands in ~/Drops (read
// there directly) and its URI is on the guest clipboard (xclip); `files read` copies it back byte-exact; a PNG
// written with `clipboard write -type image/png` is what xclip reads, and `clipboard read -type image/png`
// returns it; `clipboard targets` lists image/png; a path outside home is refused with exit 1 naming the field.
func TestFilesCLI(t *testing.T) {
	testenv.NeedCommands(t, "xclip")
	f := startFiles(t, nil)
	broker := "-broker=unix://" + f.broker.Socket
	local := t.TempDir()
	src := filepath.Join(local, "report v1.txt")
	content := bytes.Repeat([]byte("report line\n"), 200000) // 2.4 MB: several chunks each way
	if err := os.WriteFile(src, content, 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := glovebox(t, "", append([]string{broker}, args...)...)
		if code != 0 {
			t.Fatalf("glovebox %v: exit %d\n%s%s", args, code, stdout, stderr)
		}
		return stdout
	}
	out := run("files", "drop", "-s", f.session, "-clipboard", src)
	saved := filepath.Join(f.home, "Drops", "report v1.txt")
	if got, err := os.ReadFile(saved); err != nil || !bytes.Equal(got, content) {
		t.Fatalf("~/Drops/report v1.txt: %d bytes, %v; want the %d dropped (CLI said %q)", len(got), err, len(content), out)
	}
	if got := string(xclipOut(t, f, "text/uri-list")); got != "file://"+strings.ReplaceAll(saved, " ", "%20")+"\r\n" {
		t.Errorf("clipboard uri-list %q", got)
	}
	back := filepath.Join(local, "back.txt")
	run("files", "read", "-s", f.session, "-o", back, "Drops/report v1.txt")
	if got, err := os.ReadFile(back); err != nil || !bytes.Equal(got, content) {
		t.Errorf("files read wrote %d bytes, %v", len(got), err)
	}

	img := testPNG(t)
	pngFile := filepath.Join(local, "in.png")
	os.WriteFile(pngFile, img, 0o600)
	run("clipboard", "write", "-s", f.session, "-type", "image/png", pngFile)
	if got := xclipOut(t, f, "image/png"); !bytes.Equal(got, img) {
		t.Errorf("xclip read %d bytes of the PNG, want %d", len(got), len(img))
	}
	outPNG := filepath.Join(local, "out.png")
	run("clipboard", "read", "-s", f.session, "-type", "image/png", "-o", outPNG)
	if got, _ := os.ReadFile(outPNG); !bytes.Equal(got, img) {
		t.Errorf("clipboard read -type image/png wrote %d bytes, want %d", len(got), len(img))
	}
	if out := run("clipboard", "targets", "-s", f.session); !strings.Contains(out, "image/png") {
		t.Errorf("clipboard targets: %q", out)
	}
	code, _, stderr := glovebox(t, "", broker, "files", "read", "-s", f.session, "/etc/passwd")
	if code != 1 || !strings.Contains(stderr, "request.path") {
		t.Errorf("files read /etc/passwd: exit %d, %q; want 1 naming request.path", code, stderr)
	}
	if out := run("files", "downloads", "-s", f.session); !strings.Contains(out, "PATH") {
		t.Errorf("files downloads: %q", out)
	}
}
