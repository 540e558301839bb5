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

// batch is the group of records one commit writes: every Append that arrived while the previous commit
// was running. written is closed once all of them are written to the file in order (seq, prev_hash and hash
// assigned), or writeErr says why not; done is closed once all of them are durable, or err says why not.
type batch struct {
	recs     []*brokerv1.AuditRecord
	enc      []encoded
	writeErr error
	written  chan struct{}
	err      error
	done     chan struct{}
}

// guestLog is one guest's chain: its files, its writer goroutine and its watchers.
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
	return &guestLog{
		l: l, name: name, dir: filepath.Join(l.dir, name),
		wake: make(chan struct{}, 1), stopped: make(chan struct{}), exited: make(chan struct{}),
		subs: map[*subscriber]struct{}{}, next: 1,
	}
}

func (g *guestLog) start() { go g.run() }

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

// run is the writer: it takes whatever batch is waiting, commits it, and repeats. Because Appends that arrive
// during a commit join the next batch, one fsync serves every record queued while the previous one ran.
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

// commit writes and fsyncs a batch, then publishes it to watchers and acknowledges it. Those who only wait
// for the batch to be written (AppendWritten) are released between the write and the fsync.
func (g *guestLog) commit(b *batch) {
	defer close(b.done)
	wrote := false
	defer func() {
		if !wrote {
			b.writeErr = b.err
			close(b.written)
		}
	}()
	fail := func(err error) {
		b.err = fmt.Errorf("audit log of guest %q: %w: %w", g.name, errdefs.ErrUnavailable, err)
		g.l.opts.Logger.Error("audit write failed", "guest", g.name, "records", len(b.recs), "err", err)
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
	g.mu.Lock()
	g.pending = b
	g.mu.Unlock()
	wrote = true
	close(b.written)
	start := time.Now()
	if err := g.l.datasync(g.f); err != nil {
		fail(err)
		return
	}
	if o := g.l.opts.Observer; o != nil {
		o.ObserveFsync(g.name, time.Since(start), len(b.recs))
	}
	g.size += int64(len(g.buf))
	g.publish(b.recs)
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
	g.mu.Unlock()
	return nil
}

// abandonFile drops the current file after a failed write: the next commit recovers the chain from what is
// on disk (truncating a torn line), so a transient error (disk full) does not stop the log for good and a
// record that was never acknowledged is never half-kept.
func (g *guestLog) abandonFile() {
	if g.f != nil {
		g.f.Truncate(g.size)
		g.f.Close()
		g.f = nil
	}
	g.broken = true
}

// publish marks records durable and hands them to watchers. Watchers get a copy, since the caller of Append
// owns rec again once it returns.
func (g *guestLog) publish(recs []*brokerv1.AuditRecord) {
	last := recs[len(recs)-1]
	g.mu.Lock()
	defer g.mu.Unlock()
	g.durable, g.durableHash = last.GetSeq(), last.GetHash()
	g.pending = nil
	if len(g.subs) == 0 {
		return
	}
	for _, rec := range recs {
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
	g.mu.Unlock()
	return nil
}
