package broker

import (
	"sync"

	"glovebox.dev/host/internal/metrics"
)

// mutationQueue serializes one guest's mutations (the guest has one input device): each session's mutations
// run in arrival order, and sessions take turns (round-robin over per-session FIFOs) so one busy session
// cannot starve another. Observations never go through it.
type mutationQueue struct {
	guest   string
	metrics *metrics.Metrics

	mu      sync.Mutex
	fifos   map[string][]*job
	ring    []string // sessions with queued jobs, in turn order
	running bool
}

type job struct {
	fn   func()
	done chan struct{}
}

func newMutationQueue(guest string, m *metrics.Metrics) *mutationQueue {
	return &mutationQueue{guest: guest, metrics: m, fifos: map[string][]*job{}}
}

// do runs fn in owner's turn and returns when it has run. On an idle queue fn runs at once in the caller's
// goroutine (no handoff); jobs that arrive meanwhile are run by a worker goroutine started when it returns,
// which exists only while jobs are queued.
func (q *mutationQueue) do(owner string, fn func()) {
	q.mu.Lock()
	if !q.running {
		q.running = true
		q.mu.Unlock()
		fn()
		q.mu.Lock()
		if len(q.ring) == 0 {
			q.running = false
			q.mu.Unlock()
			return
		}
		q.mu.Unlock()
		go q.work()
		return
	}
	j := &job{fn: fn, done: make(chan struct{})}
	if len(q.fifos[owner]) == 0 {
		q.ring = append(q.ring, owner)
	}
	q.fifos[owner] = append(q.fifos[owner], j)
	q.mu.Unlock()
	q.metrics.MutationsQueued(q.guest, 1)
	<-j.done
}

func (q *mutationQueue) work() {
	for {
		q.mu.Lock()
		if len(q.ring) == 0 {
			q.running = false
			q.mu.Unlock()
			return
		}
		owner := q.ring[0]
		q.ring = q.ring[1:]
		f := q.fifos[owner]
		j := f[0]
		if len(f) > 1 {
			q.fifos[owner] = f[1:]
			q.ring = append(q.ring, owner)
		} else {
			delete(q.fifos, owner)
		}
		q.mu.Unlock()
		q.metrics.MutationsQueued(q.guest, -1)
		j.fn()
		close(j.done)
	}
}
