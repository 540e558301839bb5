package atspi

import (
	"context"
	"errors"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/testenv"
)

// TestSnapshotAppExitsMidway snapshots an app that exits while its tree is read (testdata/bombapp.py exits
// when its "bomb" label's text is asked for, with the answers for hundreds of other labels still to come): the
// snapshot says the app is gone, or at least that it is incomplete; it never passes off what it read as the
// whole tree. (The bus daemon notices the exit a little after the app's own socket closes, so the snapshot
// cannot always tell an exit from a broken connection.)
func TestSnapshotAppExitsMidway(t *testing.T) {
	e := newEnv(t, Options{})
	testenv.NeedCommands(t, python)
	a := e.startApp(t, python, "testdata/bombapp.py", "bombapp")
	a.waitLine(t, "ready", 15*time.Second)
	e.waitOnBus(t, a.pid)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := e.b.SnapshotApp(ctx, &agentv1.SnapshotAppRequest{AppId: AppID(a.pid)})
	if err != nil {
		if !errors.Is(err, errdefs.ErrTargetGone) {
			t.Fatalf("snapshot of an app that exited: %v, want TARGET_GONE", err)
		}
		return
	}
	s := r.GetSnapshot()
	if s.GetComplete() || s.GetIncompleteReason() == "" {
		t.Fatalf("snapshot of an app that exited midway is complete (reason %q), %d elements", s.GetIncompleteReason(), len(s.GetElements()))
	}
	t.Logf("incomplete: %s", s.GetIncompleteReason())
}
