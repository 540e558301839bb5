package server

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"

	"google.golang.org/protobuf/proto"

	"glovebox.dev/shared/errdefs"
)

// fifo is a lock granted in arrival order: mutations on one agent run one at a time, first come first
// served (sync.Mutex gives no order). A waiter whose context ends leaves the queue.
type fifo struct {
	mu      sync.Mutex
	busy    bool
	waiters []chan struct{}
}

// lock waits for the queue; ctx ending first returns its error.
func (q *fifo) lock(ctx context.Context) error {
	q.mu.Lock()
	if !q.busy {
		q.busy = true
		q.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	q.waiters = append(q.waiters, ch)
	q.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		q.mu.Lock()
		defer q.mu.Unlock()
		for i, w := range q.waiters {
			if w == ch {
				q.waiters = append(q.waiters[:i], q.waiters[i+1:]...)
				return ctx.Err()
			}
		}
		// Granted while giving up: pass it on.
		q.handOff()
		return ctx.Err()
	}
}

// unlock grants the queue to the next waiter.
func (q *fifo) unlock() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.handOff()
}

func (q *fifo) handOff() {
	if len(q.waiters) == 0 {
		q.busy = false
		return
	}
	next := q.waiters[0]
	q.waiters = q.waiters[1:]
	close(next)
}

// maxRememberedRequests bounds the request_id log (the contract in act.proto).
const maxRememberedRequests = 1024

// requestLog remembers the outcome of the last requests that carried a request_id, so a retry is answered
// from it instead of being done twice.
type requestLog[R any] struct {
	mu      sync.Mutex
	max     int
	entries map[string]*requestEntry[R]
	order   []string // keys of finished entries, oldest first
}

type requestEntry[R any] struct {
	hash [sha256.Size]byte // of the request's content: a retry must be the same request
	done bool
	resp R
	err  error
}

func newRequestLog[R any](max int) *requestLog[R] {
	return &requestLog[R]{max: max, entries: make(map[string]*requestEntry[R])}
}

// begin claims key for a request whose content hashes to hash. done is true when the request must not run:
// it finished before (resp, err are its outcome), it is running now, or the id was used for other content
// (err is ErrDuplicateRequest).
func (l *requestLog[R]) begin(key string, hash [sha256.Size]byte) (resp R, err error, done bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.entries[key]; ok {
		switch {
		case e.hash != hash:
			return resp, fmt.Errorf("request id used for a request with other content: %w", errdefs.ErrDuplicateRequest), true
		case !e.done:
			return resp, fmt.Errorf("request id in flight: %w", errdefs.ErrDuplicateRequest), true
		}
		return e.resp, e.err, true
	}
	l.entries[key] = &requestEntry[R]{hash: hash}
	return resp, nil, false
}

// contentHash is the SHA-256 of r's deterministic encoding, what a retry is compared by.
func contentHash(r proto.Message) [sha256.Size]byte {
	b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(r)
	return sha256.Sum256(b)
}

// finish records the outcome of key; an outcome without input sent (remember false) is forgotten so a
// retry runs.
func (l *requestLog[R]) finish(key string, resp R, err error, remember bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !remember {
		delete(l.entries, key)
		return
	}
	e := l.entries[key]
	e.done, e.resp, e.err = true, resp, err
	l.order = append(l.order, key)
	for len(l.order) > l.max {
		delete(l.entries, l.order[0])
		l.order = l.order[1:]
	}
}
