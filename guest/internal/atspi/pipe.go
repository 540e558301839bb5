package atspi

import (
	"context"
	"sync"

	"github.com/godbus/dbus/v5"
)

// pipe sends D-Bus calls without waiting for each answer (pipelining), at most Options.InFlight outstanding,
// each bounded by the per-call timeout and all by ctx. Callbacks run on their own goroutines, may issue
// more calls, and must synchronize what they share; wait returns once every call, including those issued by
// callbacks, has been answered or has failed.
type pipe struct {
	b   *Backend
	ctx context.Context
	sem chan struct{}
	wg  sync.WaitGroup

	// Calls on a fastConn: at most cap(sem) in flight, the others queued (callbacks run on the connection's
	// reader and must not block, so a call never waits for a slot there).
	mu       sync.Mutex
	inFlight int
	queue    []fastQueued
	head     int
}

// fastQueued is a call for a fastConn.
type fastQueued struct {
	f      *fastConn
	dest   string
	path   dbus.ObjectPath
	method string
	args   []any
	done   func(*dbus.Call)
}

func (b *Backend) newPipe(ctx context.Context) *pipe {
	return &pipe{b: b, ctx: ctx, sem: make(chan struct{}, b.opts.InFlight)}
}

// do calls method on dest/path and hands the answered (or failed) call to done.
func (p *pipe) do(dest string, path dbus.ObjectPath, method string, args []any, done func(*dbus.Call)) {
	p.wg.Add(1)
	if f := p.b.fast(dest); f != nil && fastArgs(args) {
		q := fastQueued{f: f, dest: dest, path: path, method: method, args: args, done: done}
		p.mu.Lock()
		if p.inFlight >= cap(p.sem) {
			p.queue = append(p.queue, q)
			p.mu.Unlock()
			return
		}
		p.inFlight++
		p.mu.Unlock()
		p.send(q)
		return
	}
	// Acquiring the slot on the caller's goroutine keeps the number of goroutines bounded too; a callback
	// issuing a call while all slots are taken waits for one, and slots free up as answers arrive.
	select {
	case p.sem <- struct{}{}:
	case <-p.ctx.Done():
		p.wg.Done()
		done(&dbus.Call{Err: p.ctx.Err()})
		return
	}
	ctx, cancel := context.WithTimeout(p.ctx, p.b.opts.CallTimeout)
	ch := make(chan *dbus.Call, 1)
	p.b.peer(dest).Object(dest, path).GoWithContext(ctx, method, 0, ch, args...)
	go func() {
		c := <-ch
		cancel()
		<-p.sem
		done(c)
		p.wg.Done()
	}()
}

// wait waits for every call.
func (p *pipe) wait() { p.wg.Wait() }

// fastArgs reports whether fastConn encodes args.
func fastArgs(args []any) bool {
	for _, a := range args {
		switch a.(type) {
		case string, int32, uint32, bool:
		default:
			return false
		}
	}
	return true
}

// send sends q on its fastConn (its slot taken), then, as long as a call fails before it is sent, finishes it
// and sends the next queued one in the same slot.
func (p *pipe) send(q fastQueued) {
	for {
		err := p.ctx.Err()
		if err == nil {
			err = q.f.call(p.ctx, p.b.opts.CallTimeout, q.dest, q.path, q.method, q.args, func(c *dbus.Call) { p.finish(q, c) })
		}
		if err == nil {
			return
		}
		q.done(&dbus.Call{Method: q.method, Err: err})
		p.wg.Done()
		next, ok := p.next()
		if !ok {
			return
		}
		q = next
	}
}

// finish hands an answered call to its callback and gives its slot to the next queued call.
func (p *pipe) finish(q fastQueued, c *dbus.Call) {
	q.done(c)
	p.wg.Done()
	if next, ok := p.next(); ok {
		p.send(next)
	}
}

// next takes the next queued call, keeping the slot, or frees the slot.
func (p *pipe) next() (fastQueued, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.head < len(p.queue) {
		q := p.queue[p.head]
		p.queue[p.head] = fastQueued{}
		p.head++
		if p.head == len(p.queue) {
			p.queue, p.head = p.queue[:0], 0
		}
		return q, true
	}
	p.inFlight--
	return fastQueued{}, false
}
