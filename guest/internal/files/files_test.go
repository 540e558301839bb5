package files

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

func TestSanitizeName(t *testing.T) {
	long := strings.Repeat("é", 150) + ".tar.gz"
	for _, c := range []struct{ in, want string }{
		{"report.pdf", "report.pdf"},
		{"../../etc/passwd", "_.._etc_passwd"},
		{"..", "file"},
		{".", "file"},
		{".bashrc", "bashrc"},
		{"  . hidden", "hidden"},
		{"a\\b/c", "a_b_c"},
		{"tab\there\nnl", "tab_here_nl"},
		{"evil\u202etxt.exe", "evil_txt.exe"},
		{"name. . ", "name"},
		{"bad\xffbyte", "bad_byte"},
		{"日本語.txt", "日本語.txt"},
		{"", "file"},
		{long, strings.Repeat("é", 98) + ".gz"},
	} {
		if got := SanitizeName(c.in); got != c.want {
			t.Errorf("SanitizeName(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := SanitizeName(c.in); len(got) > MaxSavedNameBytes {
			t.Errorf("SanitizeName(%q) is %d bytes", c.in, len(got))
		}
	}
}

func newStore(t *testing.T) *Store {
	t.Helper()
	s, err := New(Config{Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// chunks returns a NextChunk over the contents, one chunk per file.
func chunks(contents ...[]byte) Next {
	i := 0
	return func() (int32, [][]byte, error) {
		for i < len(contents) && len(contents[i]) == 0 {
			i++
		}
		if i == len(contents) {
			return 0, nil, io.EOF
		}
		i++
		return int32(i - 1), [][]byte{contents[i-1]}, nil
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// A drop whose second file has the wrong sha256 leaves nothing in the directory, not even the good first
// file or a temporary file.
func TestDropMismatchLeavesNothing(t *testing.T) {
	s := newStore(t)
	a, b := []byte("first"), []byte("second")
	h := &agentv1.DropFilesHeader{Files: []*agentv1.DropFile{
		{Name: "a.txt", Size: int64(len(a)), Sha256: sum(a)},
		{Name: "b.txt", Size: int64(len(b)), Sha256: sum([]byte("other"))},
	}}
	_, err := s.Drop(context.Background(), h, chunks(a, b), nil, nil)
	var br *errdefs.BadRequest
	if !errors.As(err, &br) || br.Violations[0].Field != "files[1].sha256" {
		t.Fatalf("Drop = %v; want a BadRequest naming files[1].sha256", err)
	}
	if got := dirNames(t, s.DropDir()); len(got) != 0 {
		t.Errorf("drop directory holds %q after a failed drop", got)
	}
}

// Names in one drop that collide, and names taken before, get the next free prefix; a short stream is
// refused naming the file.
func TestDropNames(t *testing.T) {
	s := newStore(t)
	if err := os.MkdirAll(s.DropDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(s.DropDir(), "x.txt"), []byte("old"), 0o600)
	os.WriteFile(filepath.Join(s.DropDir(), "2-x.txt"), []byte("old2"), 0o600)
	one, two, empty := []byte("one"), []byte("two"), []byte{}
	h := &agentv1.DropFilesHeader{Files: []*agentv1.DropFile{
		{Name: "x.txt", Size: 3, Sha256: sum(one)}, {Name: "dir/x.txt", Size: 3, Sha256: sum(two)},
		{Name: "x.txt", Size: 0, Sha256: sum(empty)},
	}}
	resp, err := s.Drop(context.Background(), h, chunks(one, two, empty), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var saved []string
	for _, f := range resp.GetFiles() {
		saved = append(saved, f.GetSavedName())
	}
	if diff := cmp.Diff([]string{"3-x.txt", "dir_x.txt", "4-x.txt"}, saved); diff != "" {
		t.Errorf("saved names (-want +got):\n%s", diff)
	}
	if got, _ := os.ReadFile(filepath.Join(s.DropDir(), "x.txt")); string(got) != "old" {
		t.Errorf("x.txt overwritten: %q", got)
	}
	_, err = s.Drop(context.Background(), &agentv1.DropFilesHeader{Files: []*agentv1.DropFile{{Name: "y", Size: 10, Sha256: sum(one)}}},
		chunks(one), nil, nil)
	var br *errdefs.BadRequest
	if !errors.As(err, &br) || br.Violations[0].Field != "files[0].size" {
		t.Errorf("short stream: %v; want a BadRequest naming files[0].size", err)
	}
}

// The desktop clipboard target offers the saved paths as text/uri-list and gnome-copied-files.
func TestClipboardTargets(t *testing.T) {
	text, targets := ClipboardTargets([]string{"/home/u/Drops/a b.txt", "/home/u/Drops/c"})
	if text != "/home/u/Drops/a b.txt\n/home/u/Drops/c" {
		t.Errorf("text %q", text)
	}
	if got := string(targets["text/uri-list"]); got != "file:///home/u/Drops/a%20b.txt\r\nfile:///home/u/Drops/c\r\n" {
		t.Errorf("uri-list %q", got)
	}
	if got := string(targets["x-special/gnome-copied-files"]); got != "copy\nfile:///home/u/Drops/a%20b.txt\nfile:///home/u/Drops/c" {
		t.Errorf("gnome-copied-files %q", got)
	}
}

// A chunk in many pieces (more than one writev takes) is written in order: the saved file holds the bytes
// and the drop's sha256 check passes.
func TestDropPieces(t *testing.T) {
	s := newStore(t)
	data := make([]byte, 3000*100)
	for i := range data {
		data[i] = byte(i * 13)
	}
	var pieces [][]byte
	for off := 0; off < len(data); off += 100 {
		pieces = append(pieces, data[off:off+100])
	}
	sent := false
	next := func() (int32, [][]byte, error) {
		if sent {
			return 0, nil, io.EOF
		}
		sent = true
		return 0, pieces, nil
	}
	h := &agentv1.DropFilesHeader{Files: []*agentv1.DropFile{{Name: "p.bin", Size: int64(len(data)), Sha256: sum(data)}}}
	resp, err := s.Drop(context.Background(), h, next, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(resp.GetFiles()[0].GetPath()); err != nil || !bytes.Equal(got, data) {
		t.Errorf("saved file: %d bytes, %v; want the %d bytes sent", len(got), err, len(data))
	}
}
