package browser

import (
	"fmt"
	"sync"

	"glovebox.dev/guest/internal/snapid"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// Refs are the snapshots of one tab, for either engine: the newest with its refs (each the index of its element
// in the page's element list, see jsSnapshot), the ids it superseded, and a count of the tab's navigations. A ref
// resolves only in the newest snapshot, taken in the current document.
type Refs struct {
	mu     sync.Mutex
	nav    uint64
	newest *refSnapshot
	old    []string
}

type refSnapshot struct {
	id   string
	nav  uint64
	refs map[string]int
}

// Navigated makes every snapshot of the tab stale (a new document).
func (r *Refs) Navigated() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nav++
}

// Nav is the tab's navigation count, read before a snapshot is taken.
func (r *Refs) Nav() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.nav
}

// Remember makes snapshot id the tab's newest; nav is the count read before it was taken, so a snapshot the tab
// navigated under is stale at once. The snapshot before becomes superseded.
func (r *Refs) Remember(id string, refs map[string]int, nav uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.newest != nil {
		r.old = append(r.old, r.newest.id)
		if len(r.old) > maxOldSnapshots {
			r.old = r.old[len(r.old)-maxOldSnapshots:]
		}
	}
	r.newest = &refSnapshot{id: id, nav: nav, refs: refs}
}

// Resolve answers the element index of a ref of this tab (named tab in messages), or why not, with its cause:
// SNAPSHOT_SUPERSEDED for an older snapshot of the tab, STALE_REF for a snapshot of another tab or one taken
// before the tab navigated, what ids says of an id it does not know (another agent process's, or none), and
// NOT_FOUND for a ref the snapshot never had.
func (r *Refs) Resolve(ref *agentv1.ElementRef, tab string, ids *SnapshotIDs) (int, error) {
	sid := ref.GetSnapshotId()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.newest == nil || r.newest.id != sid {
		for _, old := range r.old {
			if old == sid {
				return 0, errgrpc.WithCause(fmt.Errorf("snapshot %s is not the newest of tab %s (%s is): %w", sid, tab, r.newest.id, errdefs.ErrSnapshotSuperseded), errgrpc.CauseSuperseded)
			}
		}
		if owner, ok := ids.Owner(sid); ok && owner != tab {
			return 0, errgrpc.WithCause(fmt.Errorf("snapshot %s is of tab %s, not of tab %s: take a snapshot of this tab: %w", sid, owner, tab, errdefs.ErrStaleRef),
				errgrpc.CauseOtherTarget)
		}
		if r.newest != nil && ids.names.Owns(sid) {
			// One of ours, of this tab, older than what is remembered: superseded long ago.
			return 0, errgrpc.WithCause(fmt.Errorf("snapshot %s is not the newest of tab %s: %w", sid, tab, errdefs.ErrSnapshotSuperseded), errgrpc.CauseSuperseded)
		}
		return 0, ids.names.Unknown(sid)
	}
	if r.newest.nav != r.nav {
		return 0, errgrpc.WithCause(fmt.Errorf("snapshot %s: the tab navigated since (navigation, reload or history): take a snapshot: %w", sid, errdefs.ErrStaleRef), errgrpc.CauseNavigated)
	}
	i, ok := r.newest.refs[ref.GetRef()]
	if !ok {
		// A snapshot's refs are fixed when it is taken: this one never existed.
		return 0, errgrpc.WithCause(fmt.Errorf("ref %s is not in snapshot %s: %w", ref.GetRef(), sid, errdefs.ErrNotFound), errgrpc.CauseNoSuchRef)
	}
	return i, nil
}

// SnapshotIDs names the snapshots of an engine's tabs (snapid: <kind>-<random>-<n>, unlike any other agent
// process's) and remembers which tab each recent one is of.
type SnapshotIDs struct {
	names *snapid.Namer
	mu    sync.Mutex
	owner map[string]string
	order []string
}

// NewSnapshotIDs returns a namer whose ids are kind-<random>-<n>.
func NewSnapshotIDs(kind string) *SnapshotIDs {
	return &SnapshotIDs{names: snapid.New(kind), owner: map[string]string{}}
}

// New names a snapshot of tab (a browser/tab name for messages).
func (s *SnapshotIDs) New(tab string) string {
	id := s.names.Next()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.owner[id] = tab
	s.order = append(s.order, id)
	if len(s.order) > maxSnapshotOwners {
		delete(s.owner, s.order[0])
		s.order = s.order[1:]
	}
	return id
}

// Owner says which tab a snapshot id is of.
func (s *SnapshotIDs) Owner(id string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.owner[id]
	return t, ok
}
