package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"glovebox.dev/shared/errdefs"
)

func TestLoadOrCreateKey(t *testing.T) {
	// A permissive umask must not widen the key file's mode. (Umask is process-wide: not parallel.)
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	path := filepath.Join(t.TempDir(), "audit.key")
	k, err := LoadOrCreateKey(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 || st.Size() != KeySize {
		t.Errorf("key file mode %v size %d, want 0600 and %d", st.Mode().Perm(), st.Size(), KeySize)
	}
	if onDisk, _ := os.ReadFile(path); !bytes.Equal(onDisk, k) {
		t.Error("returned key differs from the file")
	}
	again, err := LoadOrCreateKey(path)
	if err != nil || !bytes.Equal(again, k) {
		t.Errorf("second load: %v, same key %v", err, bytes.Equal(again, k))
	}
	if _, err := LoadKey(path + ".missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("LoadKey of a missing file: %v, want not exist", err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".audit-key-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestLoadKeyRefused(t *testing.T) {
	tests := []struct {
		name string
		mode os.FileMode
		size int
		want error
	}{
		{"world readable", 0o644, KeySize, errdefs.ErrPermissionDenied},
		{"group readable", 0o640, KeySize, errdefs.ErrPermissionDenied},
		{"group writable", 0o620, KeySize, errdefs.ErrPermissionDenied},
		{"short", 0o600, KeySize - 1, errdefs.ErrInvalidArgument},
		{"long", 0o600, KeySize + 1, errdefs.ErrInvalidArgument},
		{"empty", 0o400, 0, errdefs.ErrInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.key")
			if err := os.WriteFile(path, make([]byte, tt.size), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tt.mode); err != nil {
				t.Fatal(err)
			}
			_, err := LoadOrCreateKey(path)
			if !errors.Is(err, tt.want) {
				t.Errorf("LoadOrCreateKey: %v, want %v", err, tt.want)
			}
		})
	}
}

func TestKeyNeverPrints(t *testing.T) {
	k := Key(bytes.Repeat([]byte("K"), KeySize))
	var logged bytes.Buffer
	slog.New(slog.NewTextHandler(&logged, nil)).Info("x", "key", k)
	for _, s := range []string{fmt.Sprint(k), fmt.Sprintf("%v %s %#v", k, k, k), logged.String()} {
		if bytes.Contains([]byte(s), []byte("KKKK")) {
			t.Errorf("key printed: %q", s)
		}
	}
}
