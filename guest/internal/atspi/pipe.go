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
}

func (b *Backend) newPipe(ctx context.Context) *pipe {
	return &pipe{b: b, ctx: ctx, sem: make(chan struct{}, b.opts.InFlight)}
}

// do calls method on dest/path and hands the answered (or failed) call to done.
func (p *pipe) do(dest string, path dbus.ObjectPath, method string, args []any, done func(*dbus.Call)) {
	p.wg.Add(1)
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
