package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"glovebox.dev/host/internal/audit"
	"glovebox.dev/shared/errdefs"
)

// TestAuditVerifySkipsNonGuestDirs: `audit verify -dir D` checks every guest log the broker keeps there and
// passes over directories the broker itself ignores (lost+found of a dedicated file system, dot directories),
// instead of failing on them and leaving the guests after them unchecked.
func TestAuditVerifySkipsNonGuestDirs(t *testing.T) {
	f := startFakeBroker(t)
	dir := t.TempDir()
	key, err := audit.LoadOrCreateKey(filepath.Join(t.TempDir(), "audit.key"))
	if err != nil {
		t.Fatal(err)
	}
	writeLog(t, dir, key, "g1", 3)
	writeLog(t, dir, key, "z9", 2)
	for _, d := range []string{"lost+found", ".snapshots"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := f.run(t, "", nil, "audit", "verify", "-dir", dir)
	if code != ExitOK || !strings.Contains(stdout, "guest g1: ok: 3 records") || !strings.Contains(stdout, "guest z9: ok: 2 records") {
		t.Errorf("verify: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// The CLI's rule is the audit log's own.
	for _, name := range []string{"g1", "_x", "a.b-c", "lost+found", ".snapshots", "-x", "", strings.Repeat("a", 129)} {
		_, err := audit.Verify(dir, name)
		if ours, theirs := guestDirNameRE.MatchString(name), !errors.Is(err, errdefs.ErrInvalidArgument); ours != theirs {
			t.Errorf("guest name %q: CLI takes it %v, audit log %v (%v)", name, ours, theirs, err)
		}
	}
}
