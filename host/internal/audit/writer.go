package audit

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"google.golang.org/protobuf/proto"
)

// batch is the group of records one write covers: every Append that arrived while the writer was busy with
// the previous batch. written is closed once all of them are written to the file in order (seq, prev_hash
// and hash assigned), or writeErr says why not; done is closed once all of them are durable, or err says why
// not.
type batch struct {
	recs     []*brokerv1.AuditRecord
	enc      []encoded
	writeErr error
	written  chan struct{}
	err      error
	done     chan struct{}

	// Set by the writer once written, for the syncer.
	f   *os.File // the file the batch ends in
	end int64    // f's size just after the batch
}

// guestLog is one guest's chain: its files, its writer lock, its syncer and its watchers. Appending goroutines
// write batches themselves, one at a time under wmu; a sync round makes what was written durable, one
// fdatasync for every batch written since the previous round, run by a durable Append that finds no round
// under way or else by the syncer goroutine. Writing never waits for an fsync under way.
type guestLog struct {
	l    *Log
	name string
	dir  string

	// wmu is held to write: whoever holds it writes the waiting batch (cur), its own record and any that
	// joined it, in one write(2).
	wmu sync.Mutex

	mu          sync.Mutex
	cur         *batch // records waiting to be written
	closed      bool
	durable     uint64 // last durable seq
	durableHash string
	pending     *batch    // the last batch written but not yet durable (nil: none)
	segs        []segment // files, ascending first seq
	subs        map[*subscriber]struct{}
	syncWake    *sync.Cond // on mu: batches wait for a round and none is under way, or syncStop
	drained     *sync.Cond // on mu: a round ended while drainers > 0
	drainers    int        // goroutines in drain
	unsynced    []*batch   // written, waiting for the syncer
	syncing     bool       // the syncer holds batches it took from unsynced
	syncErr     error      // a sync failed: the syncer fails every batch until the writer recovered
	synced      int64      // size of the current file through its last durable batch
	syncStop    bool       // the log is closed: the syncer returns once unsynced is empty
	syncExited  chan struct{}

	// Under wmu only (and recover before the guest is shared).
	f      *os.File
	size   int64
	next   uint64
	last   string
	broken bool // state must be recovered from disk before the next write
	buf    []byte
	hbuf   []byte
}

func newGuestLog(l *Log, name string) *guestLog {
	g := &guestLog{
		l: l, name: name, dir: filepath.Join(l.dir, name),
		syncExited: make(chan struct{}), subs: map[*subscriber]struct{}{}, next: 1,
	}
	g.syncWake, g.drained = sync.NewCond(&g.mu), sync.NewCond(&g.mu)
	return g
}

func (g *guestLog) start() { go g.syncLoop() }

func (g *guestLog) hasLog() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.segs) > 0
}

// write queues rec and returns its batch once written (or failed): the first goroutine to take wmu writes
// the waiting batch, so records appended concurrently share one write(2).
func (g *guestLog) write(rec *brokerv1.AuditRecord, enc encoded) (*batch, error) {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil, ErrClosed
	}
	b := g.cur
	if b == nil {
		b = &batch{written: make(chan struct{}), done: make(chan struct{})}
		g.cur = b
	}
	b.recs = append(b.recs, rec)
	b.enc = append(b.enc, enc)
	g.mu.Unlock()
	g.wmu.Lock()
	defer g.wmu.Unlock()
	g.writeWaiting()
	return b, nil
}

// writeWaiting writes the waiting batch, if any; wmu must be held.
func (g *guestLog) writeWaiting() {
	g.mu.Lock()
	b := g.cur
	g.cur = nil
	g.mu.Unlock()
	if b != nil {
		g.commit(b)
	}
}

// stop writes what is queued, waits until it is durable (or failed), stops the syncer, closes the file and
// ends the watchers.
func (g *guestLog) stop() error {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	g.wmu.Lock()
	defer g.wmu.Unlock()
	g.writeWaiting()
	g.drain()
	g.mu.Lock()
	stopped := g.syncStop
	g.syncStop = true
	g.syncWake.Signal()
	g.mu.Unlock()
	if stopped {
		return nil
	}
	<-g.syncExited
	if g.f != nil {
		g.f.Close()
		g.f = nil
	}
	g.mu.Lock()
	for s := range g.subs {
		g.dropLocked(s, ErrClosed)
	}
	g.mu.Unlock()
	return nil
}

// commit writes a batch and queues it for a sync round (see lead and kick); wmu must be held. Those who only
// wait for the batch to be written (AppendWritten) are released at once; the sync round releases those
// waiting in Append.
func (g *guestLog) commit(b *batch) {
	wrote := false
	defer func() {
		if !wrote {
			b.writeErr = b.err
			close(b.written)
			close(b.done)
		}
	}()
	fail := func(err error) {
		b.err = fmt.Errorf("audit log of guest %q: %w: %w", g.name, errdefs.ErrUnavailable, err)
		g.l.opts.Logger.Error("audit write failed", "guest", g.name, "records", len(b.recs), "err", err)
		g.abandonFile()
	}
	g.mu.Lock()
	failed := g.syncErr != nil
	g.mu.Unlock()
	if failed {
		// Batches written after the failed one were failed too; start again from what is durable.
		g.abandonFile()
	}
	if g.broken {
		if err := g.recover(); err != nil {
			fail(err)
			return
		}
	}
	g.buf = g.buf[:0]
	for i, rec := range b.recs {
		mark := len(g.buf)
		g.buf, g.hbuf = seal(g.buf, g.hbuf, rec, b.enc[i], g.next, g.last)
		if g.f == nil || (g.size+int64(mark) > 0 && g.size+int64(len(g.buf)) > g.l.opts.RotateBytes) {
			if err := g.syncFailed(); err != nil {
				fail(err)
				return
			}
			if err := g.rotate(g.buf[:mark], rec.Seq); err != nil {
				fail(err)
				return
			}
			g.buf = g.buf[:copy(g.buf, g.buf[mark:])]
		}
		g.next, g.last = rec.GetSeq()+1, rec.GetHash()
	}
	if _, err := g.f.Write(g.buf); err != nil {
		fail(err)
		return
	}
	g.size += int64(len(g.buf))
	b.f, b.end = g.f, g.size
	wrote = true
	g.mu.Lock()
	g.pending = b // before written is closed: List waits for what AppendWritten returned
	g.unsynced = append(g.unsynced, b)
	g.mu.Unlock()
	close(b.written)
}

// syncFailed waits until the syncer has finished with every batch written so far and returns the error of
// a sync that failed since the writer last recovered (nil: none).
func (g *guestLog) syncFailed() error {
	g.drain()
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.syncErr
}

// drain waits until every batch written so far went through a sync round.
func (g *guestLog) drain() {
	g.mu.Lock()
	g.drainers++
	for len(g.unsynced) > 0 || g.syncing {
		if !g.syncing {
			g.syncWake.Signal()
		}
		g.drained.Wait()
	}
	g.drainers--
	g.mu.Unlock()
}

// kick wakes the syncer if batches wait for a sync round and none is under way (the round under way wakes
// it when it ends).
func (g *guestLog) kick() {
	g.mu.Lock()
	if !g.syncing && len(g.unsynced) > 0 {
		g.syncWake.Signal()
	}
	g.mu.Unlock()
}

// lead runs a sync round in the calling goroutine if batches wait for one and none is under way (the
// uncontended durable Append: no handoff to another goroutine), else it leaves them to the round under way
// and the syncer.
func (g *guestLog) lead() {
	g.mu.Lock()
	if g.syncing || len(g.unsynced) == 0 {
		g.mu.Unlock()
		return
	}
	bs, failed := g.takeLocked()
	g.mu.Unlock()
	failed = g.syncRound(bs, failed)
	g.mu.Lock()
	g.endRoundLocked(failed)
	g.mu.Unlock()
}

// takeLocked starts a sync round: it takes the batches waiting for one.
func (g *guestLog) takeLocked() ([]*batch, error) {
	bs := g.unsynced
	g.unsynced = nil
	g.syncing = true
	return bs, g.syncErr
}

// endRoundLocked ends a sync round that failed with failed (nil: none) and wakes the syncer if batches were
// written meanwhile, and anyone draining. It wakes nobody else: a goroutine woken for nothing costs a lone
// Append its P on a small machine.
func (g *guestLog) endRoundLocked(failed error) {
	if failed != nil && g.syncErr == nil {
		g.syncErr = failed
	}
	g.syncing = false
	if len(g.unsynced) > 0 {
		g.syncWake.Signal()
	}
	if g.drainers > 0 {
		g.drained.Broadcast()
	}
}

// syncLoop is the syncer goroutine: it runs a sync round whenever batches wait for one and none is under
// way, until the log is closed.
func (g *guestLog) syncLoop() {
	defer close(g.syncExited)
	g.mu.Lock()
	for {
		for (g.syncing || len(g.unsynced) == 0) && !g.syncStop {
			g.syncWake.Wait()
		}
		if g.syncing || len(g.unsynced) == 0 {
			// Stopping: stop drained the rounds before setting syncStop.
			g.mu.Unlock()
			return
		}
		bs, failed := g.takeLocked()
		g.mu.Unlock()
		failed = g.syncRound(bs, failed)
		g.mu.Lock()
		g.endRoundLocked(failed)
	}
}

// syncRound makes the batches durable with one fdatasync of the file they end in (rotation drains the
// rounds first, so they are all in that file), publishes them and releases their Appends. After a failed
// sync (failed, or this one) it fails them without syncing: the next write abandons the file (truncating it
// to what is durable) and clears syncErr. It returns the round's error.
func (g *guestLog) syncRound(bs []*batch, failed error) error {
	last := bs[len(bs)-1]
	n := 0
	for _, b := range bs {
		n += len(b.recs)
	}
	if o := g.l.opts.Observer; o != nil {
		o.ObserveQueueDepth(g.name, n)
	}
	if failed == nil {
		start := time.Now()
		if err := g.l.datasync(last.f); err != nil {
			failed = fmt.Errorf("audit log of guest %q: %w: %w", g.name, errdefs.ErrUnavailable, err)
			g.l.opts.Logger.Error("audit sync failed", "guest", g.name, "records", n, "err", err)
		} else if o := g.l.opts.Observer; o != nil {
			o.ObserveFsync(g.name, time.Since(start), n)
		}
	}
	if failed == nil {
		g.publish(bs, last)
	}
	for _, b := range bs {
		b.err = failed
		close(b.done)
	}
	return failed
}

// rotate writes tail (the end of the current batch that still fits) to the current file, makes it durable,
// and starts the file whose first record is seq.
func (g *guestLog) rotate(tail []byte, seq uint64) error {
	if g.f != nil {
		if _, err := g.f.Write(tail); err != nil {
			return err
		}
		if err := g.l.datasync(g.f); err != nil {
			return err
		}
		g.f.Close()
		g.f = nil
	}
	if err := os.MkdirAll(g.dir, 0o700); err != nil {
		return err
	}
	if len(g.segs) == 0 {
		if err := syncDir(g.l.dir); err != nil {
			return err
		}
	}
	path := filepath.Join(g.dir, segmentName(seq))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if err := syncDir(g.dir); err != nil {
		f.Close()
		return err
	}
	g.f, g.size = f, 0
	g.mu.Lock()
	g.segs = append(g.segs, segment{first: seq, path: path})
	g.synced = 0
	g.mu.Unlock()
	return nil
}

// abandonFile drops the current file after a failed write or sync, once the syncer is done with what was
// written: it truncates the file to what is durable, and the next commit recovers the chain from what is on
// disk (truncating a torn line), so a transient error (disk full) does not stop the log for good and a
// record that was never acknowledged is never half-kept.
func (g *guestLog) abandonFile() {
	g.drain()
	g.mu.Lock()
	synced := g.synced
	g.syncErr = nil
	g.mu.Unlock()
	if g.f != nil {
		g.f.Truncate(synced)
		g.f.Close()
		g.f = nil
	}
	g.broken = true
}

// publish marks the batches durable (last is the last of them) and hands their records to watchers.
// Watchers get a copy, since the caller of Append owns rec again once it returns.
func (g *guestLog) publish(bs []*batch, last *batch) {
	rec := last.recs[len(last.recs)-1]
	g.mu.Lock()
	defer g.mu.Unlock()
	g.durable, g.durableHash = rec.GetSeq(), rec.GetHash()
	g.synced = last.end
	if g.pending == last {
		g.pending = nil
	}
	if len(g.subs) == 0 {
		return
	}
	for _, b := range bs {
		for _, rec := range b.recs {
			c := proto.Clone(rec).(*brokerv1.AuditRecord)
			for s := range g.subs {
				select {
				case s.ch <- c:
				default:
					g.dropLocked(s, errFellBehind)
				}
			}
		}
	}
}

// recover reads the guest's files: it removes empty files at the end (left by a rotation that crashed
// before its first record), truncates a torn final line, sets next/last from the last complete record and
// opens the last file for appending.
func (g *guestLog) recover() error {
	g.broken = true // until it succeeds
	if g.f != nil {
		g.f.Close()
		g.f = nil
	}
	segs, err := listSegments(g.dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for len(segs) > 0 {
		last := segs[len(segs)-1]
		st, err := os.Stat(last.path)
		if err != nil {
			return err
		}
		if st.Size() > 0 {
			break
		}
		if err := os.Remove(last.path); err != nil {
			return err
		}
		if err := syncDir(g.dir); err != nil {
			return err
		}
		segs = segs[:len(segs)-1]
	}
	g.next, g.last, g.size = 1, "", 0
	var lastRec *brokerv1.AuditRecord
	for i := len(segs) - 1; i >= 0 && lastRec == nil; i-- {
		if lastRec, err = lastRecord(segs[i].path, i == len(segs)-1, g.l.opts.Logger); err != nil {
			return err
		}
	}
	if lastRec != nil {
		g.next, g.last = lastRec.GetSeq()+1, lastRec.GetHash()
	}
	if n := len(segs); n > 0 {
		f, err := os.OpenFile(segs[n-1].path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return err
		}
		size, err := f.Seek(0, io.SeekEnd)
		if err != nil {
			f.Close()
			return err
		}
		g.f, g.size = f, size
	}
	g.broken = false
	g.mu.Lock()
	g.segs = segs
	g.durable, g.durableHash = g.next-1, g.last
	g.pending = nil
	g.synced = g.size
	g.mu.Unlock()
	return nil
}
