package snapid

import (
	"errors"
	"testing"

	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

func TestIDs(t *testing.T) {
	a, b := New("page"), New("page")
	first := a.Next()
	if first == b.Next() {
		t.Fatalf("two processes handed out %s", first)
	}
	if !a.Owns(first) || a.Owns(a.prefix+"2") || b.Owns(first) {
		t.Errorf("Owns: %v %v %v, want true false false", a.Owns(first), a.Owns(a.prefix+"2"), b.Owns(first))
	}
	for _, tc := range []struct {
		id    string
		class error
		cause string
	}{
		{first, errdefs.ErrGenerationChanged, errgrpc.CauseAgentRestarted}, // to b: another process's
		{"page-1", errdefs.ErrNotFound, errgrpc.CauseNoSuchSnapshot},
		{"as-00000000-1", errdefs.ErrNotFound, errgrpc.CauseNoSuchSnapshot}, // another backend's form
		{b.prefix + "7", errdefs.ErrNotFound, errgrpc.CauseNoSuchSnapshot},
	} {
		err := b.Unknown(tc.id)
		if !errors.Is(err, tc.class) || errgrpc.Metadata(err)[errgrpc.MetaCause] != tc.cause {
			t.Errorf("Unknown(%s) = %v (%v), want %v cause %s", tc.id, err, errgrpc.Metadata(err), tc.class, tc.cause)
		}
	}
}
