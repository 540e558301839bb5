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

// guestLog is one guest's chain: its files, its writer and syncer goroutines and its watchers. The writer
// seals and writes batches; the syncer makes what was written durable, one fdatasync for every batch written
// since its previous one, so the writer writes the next batch while an fsync is under way.
type guestLog struct {
	l    *Log
	name string
	dir  string

	wake    chan struct{} // a batch is waiting (capacity 1)
	stopped chan struct{} // closed by stop
	exited  chan struct{} // closed when the writer returns

	mu          sync.Mutex
	cur         *batch // records waiting for the next commit
	closed      bool
	durable     uint64 // last durable seq
	durableHash string
	pending     *batch    // the last batch written but not yet durable (nil: none)
	segs        []segment // files, ascending first seq
	subs        map[*subscriber]struct{}
	cond        *sync.Cond // on mu: signals changes of unsynced and syncing
	unsynced    []*batch   // written, waiting for the syncer
	syncing     bool       // the syncer holds batches it took from unsynced
	syncErr     error      // a sync failed: the syncer fails every batch until the writer recovered
	synced      int64      // size of the current file through its last durable batch
	syncStop    bool       // the writer has stopped: the syncer returns once unsynced is empty
	syncExited  chan struct{}

	// Writer goroutine only (and recover before the writer starts).
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
		wake: make(chan struct{}, 1), stopped: make(chan struct{}), exited: make(chan struct{}),
		syncExited: make(chan struct{}), subs: map[*subscriber]struct{}{}, next: 1,
	}
	g.cond = sync.NewCond(&g.mu)
	return g
}

func (g *guestLog) start() {
	go g.run()
	go g.syncLoop()
}

func (g *guestLog) hasLog() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.segs) > 0
}

func (g *guestLog) enqueue(rec *brokerv1.AuditRecord, enc encoded) (*batch, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil, ErrClosed
	}
	b := g.cur
	if b == nil {
		b = &batch{written: make(chan struct{}), done: make(chan struct{})}
		g.cur = b
		select {
		case g.wake <- struct{}{}:
		default:
		}
	}
	b.recs = append(b.recs, rec)
	b.enc = append(b.enc, enc)
	return b, nil
}

func (g *guestLog) stop() error {
	g.mu.Lock()
	if !g.closed {
		g.closed = true
		close(g.stopped)
	}
	g.mu.Unlock()
	<-g.exited
	return nil
}

// run is the writer: it takes whatever batch is waiting, writes it, hands it to the syncer, and repeats.
// Appends that arrive while it writes join the next batch, and the syncer's one fsync serves every batch
// written while its previous fsync ran.
func (g *guestLog) run() {
	defer close(g.exited)
	for {
		select {
		case <-g.wake:
		case <-g.stopped:
		}
		g.mu.Lock()
		b, closing := g.cur, g.closed
		g.cur = nil
		g.mu.Unlock()
		if b != nil {
			if o := g.l.opts.Observer; o != nil {
				o.ObserveQueueDepth(g.name, len(b.recs))
			}
			g.commit(b)
		}
		if closing {
			break
		}
	}
	g.drain()
	g.mu.Lock()
	g.syncStop = true
	g.cond.Broadcast()
	g.mu.Unlock()
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
}

// commit writes a batch and hands it to the syncer. Those who only wait for the batch to be written
// (AppendWritten) are released at once; the syncer releases those waiting in Append.
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
	g.cond.Broadcast()
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

// drain waits until the syncer has finished with every batch written so far.
func (g *guestLog) drain() {
	g.mu.Lock()
	for len(g.unsynced) > 0 || g.syncing {
		g.cond.Wait()
	}
	g.mu.Unlock()
}

// syncLoop is the syncer: it takes every batch written since its last round, makes them durable with one
// fdatasync of the file they end in (rotation waits for the syncer, so they are all in that file), publishes
// them and releases their Appends. After a failed sync it fails every batch it takes, without syncing, until
// the writer has abandoned the file (truncating it to what is durable) and cleared syncErr.
func (g *guestLog) syncLoop() {
	defer close(g.syncExited)
	g.mu.Lock()
	for {
		g.syncing = false
		g.cond.Broadcast()
		for len(g.unsynced) == 0 && !g.syncStop {
			g.cond.Wait()
		}
		if len(g.unsynced) == 0 {
			g.mu.Unlock()
			return
		}
		bs := g.unsynced
		g.unsynced = nil
		g.syncing = true
		failed := g.syncErr
		g.mu.Unlock()
		last := bs[len(bs)-1]
		if failed == nil {
			start := time.Now()
			if err := g.l.datasync(last.f); err != nil {
				failed = fmt.Errorf("audit log of guest %q: %w: %w", g.name, errdefs.ErrUnavailable, err)
				g.l.opts.Logger.Error("audit sync failed", "guest", g.name, "batches", len(bs), "err", err)
			} else if o := g.l.opts.Observer; o != nil {
				n := 0
				for _, b := range bs {
					n += len(b.recs)
				}
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
		g.mu.Lock()
		if failed != nil && g.syncErr == nil {
			g.syncErr = failed
		}
	}
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
