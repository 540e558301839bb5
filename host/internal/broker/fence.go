package broker

import "sync"

// maxSnapshotsRemembered bounds the snapshot ids a guest remembers the generation of (about 100 bytes each).
// The agents keep fewer (the newest per app or window, 4096 page snapshots), so a snapshot forgotten here is
// superseded there.
const maxSnapshotsRemembered = 16384

// snapshotGenerations binds every snapshot id the broker hands out (app, window and tab snapshots) to the
// broker generation it was taken in. A mutation naming a snapshot is refused with GENERATION_CHANGED unless
// the snapshot is from the current generation, whether or not the caller echoes target.generation (fencing by
// default): a ref taken before a human took control and gave it back is never acted on.
type snapshotGenerations struct {
	mu    sync.Mutex
	gen   map[string]uint64
	order []string
}

// handOut records that snapshot id was handed out in generation gen.
func (s *snapshotGenerations) handOut(id string, gen uint64) {
	if id == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen == nil {
		s.gen = map[string]uint64{}
	}
	if _, ok := s.gen[id]; !ok {
		s.order = append(s.order, id)
	}
	s.gen[id] = gen
	if len(s.order) > maxSnapshotsRemembered {
		delete(s.gen, s.order[0])
		s.order = s.order[1:]
	}
}

// generation returns the generation snapshot id was handed out in; ok false when it never was (or was
// forgotten).
func (s *snapshotGenerations) generation(id string) (gen uint64, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	gen, ok = s.gen[id]
	return gen, ok
}
