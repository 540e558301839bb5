package atspi

import (
	"context"
	"strings"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// TestDetachedSnapshotKeepsRefs: a detached snapshot (the broker's recording reads one after each recorded step)
// answers the bounded text of the app, has no id and no cursor, and leaves the session's snapshot the newest of
// its target: its ref still clicks the button (the app's own output says so). Without detached, the second
// snapshot superseded the first (SNAPSHOT_SUPERSEDED).
func TestDetachedSnapshotKeepsRefs(t *testing.T) {
	e := newEnv(t, Options{})
	a := e.startTestApp(t, "detachedapp")
	held := snapApp(t, e, a.pid)
	button := find(t, held, "push button", "Press me")
	r, err := e.b.SnapshotApp(context.Background(), &agentv1.SnapshotAppRequest{AppId: AppID(a.pid),
		Options: &agentv1.SnapshotOptions{Detached: true, TextOnly: true, MaxBytes: 2048}})
	if err != nil {
		t.Fatalf("detached snapshot: %v", err)
	}
	s := r.GetSnapshot()
	if s.GetSnapshotId() != "" || s.GetNextCursor() != "" || !strings.Contains(s.GetText(), `"Press me"`) || len(s.GetElements()) != 0 {
		t.Fatalf("detached snapshot: id %q cursor %q elements %d text:\n%s", s.GetSnapshotId(), s.GetNextCursor(), len(s.GetElements()), s.GetText())
	}
	if len(s.GetText()) > 2048 {
		t.Errorf("detached text of %d bytes, budget 2048", len(s.GetText()))
	}
	a.reset()
	if _, err := e.act(t, nil, func(q *agentv1.ActRequest) {
		q.Action = &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{Element: ref(held, button)}}
	}); err != nil {
		t.Fatalf("the session's ref after a detached snapshot: %v", err)
	}
	a.waitLine(t, "button clicked", 5*time.Second)
}
