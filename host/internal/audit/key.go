package audit

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"glovebox.dev/shared/errdefs"
	"google.golang.org/protobuf/types/known/structpb"
)

// KeySize is the length of the audit key in bytes (HMAC-SHA256 takes a key of the hash's block-size or less;
// 32 random bytes is its full strength).
const KeySize = 32

// Key is the broker's audit key: the HMAC-SHA256 key for redacted text. It never prints: String, GoString
// and LogValue hide it so a stray log line cannot leak it.
type Key []byte

// String hides the key.
func (k Key) String() string { return "audit.Key(redacted)" }

// GoString hides the key from %#v.
func (k Key) GoString() string { return k.String() }

// LogValue hides the key from slog.
func (k Key) LogValue() slog.Value { return slog.StringValue(k.String()) }

// LoadOrCreateKey reads the key at path, or creates it with KeySize random bytes and mode 0600 when the file
// does not exist. The new key is written to a temporary file and linked into place, so a crash never leaves a
// short key and two brokers starting at once agree on one key. An existing file with any group or other
// permission bit, or of the wrong size, is refused.
func LoadOrCreateKey(path string) (Key, error) {
	k, err := LoadKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return k, err
	}
	if err := createKey(path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	return LoadKey(path)
}

// LoadKey reads an existing key with the same checks as LoadOrCreateKey, for tools (audit prove) that must
// not create a key; a missing file is an error wrapping fs.ErrNotExist.
func LoadKey(path string) (Key, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("audit key: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("audit key: %w", err)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("audit key %s: mode %#o gives group/other access, want 0600 (chmod 600 %s): %w",
			path, perm, path, errdefs.ErrPermissionDenied)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("audit key %s: not a regular file: %w", path, errdefs.ErrInvalidArgument)
	}
	buf, err := io.ReadAll(io.LimitReader(f, KeySize+1))
	if err != nil {
		return nil, fmt.Errorf("audit key %s: %w", path, err)
	}
	if len(buf) != KeySize {
		return nil, fmt.Errorf("audit key %s: %d bytes, want %d: %w", path, len(buf), KeySize, errdefs.ErrInvalidArgument)
	}
	return Key(buf), nil
}

func createKey(path string) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".audit-key-*")
	if err != nil {
		return fmt.Errorf("audit key: %w", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	// CreateTemp uses 0600 already; Chmod makes it explicit and independent of the umask.
	if err := tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("audit key: %w", err)
	}
	k := make([]byte, KeySize)
	if _, err := rand.Read(k); err != nil {
		return fmt.Errorf("audit key: %w", err)
	}
	if _, err := tmp.Write(k); err != nil {
		return fmt.Errorf("audit key: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("audit key: %w", err)
	}
	// Link fails with EEXIST when another process won the race; the caller then loads that key.
	if err := os.Link(tmp.Name(), path); err != nil {
		return fmt.Errorf("audit key: %w", err)
	}
	return syncDir(dir)
}

// Text returns the redacted form of s: {"length": <bytes>, "hmac_sha256": "<hex>"}.
func (k Key) Text(s string) *structpb.Value {
	return structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{
		"length":      structpb.NewNumberValue(float64(len(s))),
		"hmac_sha256": structpb.NewStringValue(k.mac(s)),
	}})
}

func (k Key) mac(s string) string {
	m := hmac.New(sha256.New, k)
	m.Write([]byte(s))
	return hex.EncodeToString(m.Sum(nil))
}

// syncDir makes a directory entry (a new file, a link) durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
