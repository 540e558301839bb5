package atspi

import (
	"fmt"
	"sync"

	"glovebox.dev/guest/internal/snapid"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// Store bounds.
const (
	// maxTargets bounds the targets (app or app window) whose newest snapshot is kept with its elements.
	maxTargets = 256
	// maxSuperseded bounds the ids remembered as superseded, so an old ref gets SNAPSHOT_SUPERSEDED rather
	// than "unknown snapshot" for a long while.
	maxSuperseded = 4096
	// maxPagers bounds the snapshots that keep what their later pages need (the nodes read): the newest ones.
	maxPagers = 16
)

// element is what a ref resolves to: the accessible and the facts compare-and-act checks.
type element struct {
	ref     objRef
	role    string
	name    string
	actions []string
	ifaces  ifaces
}

// snapshot is a stored snapshot: its target and its elements by ref.
type snapshot struct {
	id       string
	app      appRef
	windowID string
	elements map[string]*element // refs handed out so far (store.mu)
	pager    *pager              // nil once the store dropped it (store.mu)
}

// key is the snapshot's target: refs resolve only while their snapshot is the newest for it.
func (s *snapshot) key() string { return s.app.id() + "/" + s.app.bus + "/" + s.windowID }

// store keeps the newest snapshot of each target and remembers superseded ids.
type store struct {
	ids        *snapid.Namer
	mu         sync.Mutex
	newest     map[string]*snapshot // by target key
	byID       map[string]*snapshot
	order      []string          // target keys, oldest first
	superseded map[string]string // id -> the id that replaced it
	oldOrder   []string
	paged      []*snapshot // snapshots holding a pager, oldest first
}

func newStore() *store {
	return &store{ids: snapid.New("as"), newest: map[string]*snapshot{}, byID: map[string]*snapshot{}, superseded: map[string]string{}}
}

// next returns a new snapshot id, unlike those of any other agent process.
func (s *store) next() string { return s.ids.Next() }

// put makes snap the newest snapshot of its target; the previous one is superseded.
func (s *store) put(snap *snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := snap.key()
	if prev, ok := s.newest[k]; ok {
		s.retire(prev, snap.id)
	} else {
		s.order = append(s.order, k)
		if len(s.order) > maxTargets {
			old := s.order[0]
			s.order = s.order[1:]
			s.retire(s.newest[old], "")
			delete(s.newest, old)
		}
	}
	s.newest[k] = snap
	s.byID[snap.id] = snap
	if snap.pager != nil {
		s.paged = append(s.paged, snap)
		for len(s.paged) > maxPagers || len(s.paged) > 0 && s.byID[s.paged[0].id] == nil {
			s.paged[0].pager = nil
			s.paged = s.paged[1:]
		}
	}
}

// get finds a snapshot that is still the newest for its target, with its pager (nil when dropped).
func (s *store) get(id string) (*snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap, ok := s.byID[id]
	if !ok {
		if _, old := s.superseded[id]; old {
			return nil, errgrpc.WithCause(fmt.Errorf("snapshot %s is no longer the newest of its target: take a new snapshot: %w", id, errdefs.ErrSnapshotSuperseded), errgrpc.CauseSuperseded)
		}
		return nil, s.ids.Unknown(id)
	}
	cp := *snap
	return &cp, nil
}

// register makes refs of snap resolvable.
func (s *store) register(snap *snapshot, refs map[string]*element) {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap = s.byID[snap.id]
	if snap == nil {
		return // superseded meanwhile: its refs resolve no more
	}
	for r, el := range refs {
		snap.elements[r] = el
	}
}

// retire forgets prev's elements and remembers its id as superseded by next ("" when evicted).
func (s *store) retire(prev *snapshot, next string) {
	if prev == nil {
		return
	}
	delete(s.byID, prev.id)
	prev.pager = nil
	s.superseded[prev.id] = next
	s.oldOrder = append(s.oldOrder, prev.id)
	if len(s.oldOrder) > maxSuperseded {
		delete(s.superseded, s.oldOrder[0])
		s.oldOrder = s.oldOrder[1:]
	}
}

// resolve finds a ref of a snapshot that is still the newest for its target.
func (s *store) resolve(snapID, ref string) (*snapshot, *element, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap, ok := s.byID[snapID]
	if !ok {
		if next, old := s.superseded[snapID]; old {
			if next == "" {
				return nil, nil, errgrpc.WithCause(fmt.Errorf("snapshot %s is too old: take a new snapshot: %w", snapID, errdefs.ErrSnapshotSuperseded), errgrpc.CauseSuperseded)
			}
			return nil, nil, errgrpc.WithCause(fmt.Errorf("snapshot %s was superseded by %s: use refs from the newest snapshot: %w", snapID, next, errdefs.ErrSnapshotSuperseded), errgrpc.CauseSuperseded)
		}
		return nil, nil, s.ids.Unknown(snapID)
	}
	el, ok := snap.elements[ref]
	if !ok {
		// A snapshot's refs are those its pages handed out: this one never was.
		return nil, nil, errgrpc.WithCause(fmt.Errorf("snapshot %s has no element %s: %w", snapID, ref, errdefs.ErrNotFound), errgrpc.CauseNoSuchRef)
	}
	return snap, el, nil
}
