package browser

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"glovebox.dev/guest/internal/snapid"
	"glovebox.dev/guest/internal/snapview"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/validate"
)

// Refs are the snapshots of one tab, for either engine: the one home of the ref rule. It keeps the newest
// snapshot (its elements as its options kept them, and where each element is kept in the page: L, an engine's
// own frame and index), the ids it superseded, and a count of the tab's navigations. A ref resolves only in the
// newest snapshot, taken in the current document, and only once a page of it showed the ref (or Focused told it).
// The zero value is ready.
type Refs[L comparable] struct {
	mu     sync.Mutex
	nav    uint64
	newest *refSnapshot[L]
	old    []string
}

type refSnapshot[L comparable] struct {
	id  string
	nav uint64
	// kept are the snapshot's elements in document order, index where each one's element is kept, refs the
	// refs a page showed (they resolve), reasons why the snapshot is incomplete.
	kept    []*agentv1.Element
	index   map[string]L
	refs    map[string]L
	reasons []string
}

// Navigated makes every snapshot of the tab stale (a new document).
func (r *Refs[L]) Navigated() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nav++
}

// Nav is the tab's navigation count, read before a snapshot is taken.
func (r *Refs[L]) Nav() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.nav
}

// Remember makes the assembled snapshot a the tab's newest under id and fills out (whose target is set) with its
// first page within v; nav is the count read before it was taken, so a snapshot the tab navigated under is stale
// at once. The snapshot before becomes superseded.
func (r *Refs[L]) Remember(id string, nav uint64, a *Assembled[L], out *agentv1.Snapshot, v snapview.View) {
	out.SnapshotId = id
	out.Target.SnapshotId = id
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.newest != nil {
		r.old = append(r.old, r.newest.id)
		if len(r.old) > maxOldSnapshots {
			r.old = r.old[len(r.old)-maxOldSnapshots:]
		}
	}
	r.newest = &refSnapshot[L]{id: id, nav: nav, kept: a.kept, index: a.index, refs: map[string]L{}, reasons: a.reasons}
	r.pageLocked(r.newest, out, 0, v)
}

// pageLocked fills out with the page of snap's elements starting at offset, within v's budget, and makes its
// refs resolve; r.mu is held.
func (r *Refs[L]) pageLocked(snap *refSnapshot[L], out *agentv1.Snapshot, offset int, v snapview.View) {
	p := snapview.NewPage(out, v, render)
	next := offset
	for next < len(snap.kept) && p.Add(snap.kept[next]) {
		next++
	}
	for _, el := range snap.kept[offset:next] {
		snap.refs[el.Ref] = snap.index[el.Ref]
	}
	p.Finish(offset, next, len(snap.kept), next < len(snap.kept), snap.reasons)
}

// Continue fills out (whose target is set) with the page cursor names of the tab's newest snapshot, or says why
// not (cursor is validated): what Resolve says of an older snapshot of the tab or an id it does not know, NOT_FOUND
// for a snapshot of another tab or a page past the end, STALE_REF when the tab navigated since.
func (r *Refs[L]) Continue(cursor string, tab string, ids *SnapshotIDs, out *agentv1.Snapshot, v snapview.View) error {
	id, offset, _ := validate.ParseCursor(cursor)
	r.mu.Lock()
	snap := r.newest
	r.mu.Unlock()
	if snap == nil || snap.id != id {
		if _, err := r.Resolve(&agentv1.ElementRef{SnapshotId: id, Ref: "e1"}, tab, ids); err != nil && !errors.Is(err, errdefs.ErrStaleRef) {
			return fmt.Errorf("options.cursor: %w", err)
		}
		return fmt.Errorf("options.cursor: snapshot %s is not a snapshot of tab %s: %w", id, tab, errdefs.ErrNotFound)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case snap.nav != r.nav:
		return fmt.Errorf("options.cursor: snapshot %s: the tab navigated since: take a snapshot: %w", id, errdefs.ErrStaleRef)
	case offset > len(snap.kept):
		return fmt.Errorf("options.cursor: snapshot %s has no page at %d: %w", id, offset, errdefs.ErrNotFound)
	}
	out.SnapshotId = id
	out.Target.SnapshotId = id
	r.pageLocked(snap, out, offset, v)
	return nil
}

// Focused answers the element of snapshot id in the "focused" state, its fields cut at fieldBytes, and makes its
// ref resolve (it may be on a later page); nil when none is, or id is not the newest.
func (r *Refs[L]) Focused(id string, fieldBytes int) *agentv1.Element {
	r.mu.Lock()
	defer r.mu.Unlock()
	snap := r.newest
	if snap == nil || snap.id != id {
		return nil
	}
	for _, el := range snap.kept {
		if slices.Contains(el.GetStates(), "focused") {
			snap.refs[el.Ref] = snap.index[el.Ref]
			return snapview.CutElement(el, fieldBytes)
		}
	}
	return nil
}

// Resolve answers where the element of a ref of this tab (named tab in messages) is kept, or why not, with its
// cause: SNAPSHOT_SUPERSEDED for an older snapshot of the tab, STALE_REF for a snapshot of another tab or one
// taken before the tab navigated, what ids says of an id it does not know (another agent process's, or none), and
// NOT_FOUND for a ref the snapshot never had or no page showed.
func (r *Refs[L]) Resolve(ref *agentv1.ElementRef, tab string, ids *SnapshotIDs) (L, error) {
	var none L
	sid := ref.GetSnapshotId()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.newest == nil || r.newest.id != sid {
		for _, old := range r.old {
			if old == sid {
				return none, errgrpc.WithCause(fmt.Errorf("snapshot %s is not the newest of tab %s (%s is): %w", sid, tab, r.newest.id, errdefs.ErrSnapshotSuperseded), errgrpc.CauseSuperseded)
			}
		}
		if owner, ok := ids.Owner(sid); ok && owner != tab {
			return none, errgrpc.WithCause(fmt.Errorf("snapshot %s is of tab %s, not of tab %s: take a snapshot of this tab: %w", sid, owner, tab, errdefs.ErrStaleRef),
				errgrpc.CauseOtherTarget)
		}
		if r.newest != nil && ids.names.Owns(sid) {
			// One of ours, of this tab, older than what is remembered: superseded long ago.
			return none, errgrpc.WithCause(fmt.Errorf("snapshot %s is not the newest of tab %s: %w", sid, tab, errdefs.ErrSnapshotSuperseded), errgrpc.CauseSuperseded)
		}
		return none, ids.names.Unknown(sid)
	}
	if r.newest.nav != r.nav {
		return none, errgrpc.WithCause(fmt.Errorf("snapshot %s: the tab navigated since (navigation, reload or history): take a snapshot: %w", sid, errdefs.ErrStaleRef), errgrpc.CauseNavigated)
	}
	at, ok := r.newest.refs[ref.GetRef()]
	if !ok {
		// A snapshot's refs are fixed when it is taken: this one never existed (or no page showed it).
		return none, errgrpc.WithCause(fmt.Errorf("ref %s is not in snapshot %s: %w", ref.GetRef(), sid, errdefs.ErrNotFound), errgrpc.CauseNoSuchRef)
	}
	return at, nil
}

// maxSnapshotOwners bounds the snapshot ids SnapshotIDs remembers the tab of.
const maxSnapshotOwners = 4096

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
