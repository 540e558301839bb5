package audit

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"

	"google.golang.org/protobuf/proto"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
)

// Filter selects records for List.
type Filter struct {
	// SessionID keeps only this session's records; "": all.
	SessionID string
	// FromSeq and ToSeq are inclusive bounds; 0: unbounded.
	FromSeq, ToSeq uint64
}

// Page size bounds for List, as in ListAuditRecordsRequest.
const (
	DefaultPageSize = 100
	MaxPageSize     = 1000
	// MaxPageBytes ends a page early, whatever its size, once its records' protobuf encoding reaches this,
	// so a page of MaxPageSize records of up to MaxRecordBytes still fits a 32 MiB message.
	MaxPageBytes = 16 << 20
)

// List returns up to pageSize of the guest's durable records matching filter, in seq order, and the token
// of the next page ("" when there is none). A token is the seq the next page starts at, so it stays valid
// for as long as the log exists. pageSize 0 means DefaultPageSize; above MaxPageSize it is clamped; a page
// ends early (with a token) once it holds MaxPageBytes.
func (l *Log) List(guest string, filter Filter, pageSize int, pageToken string) ([]*brokerv1.AuditRecord, string, error) {
	g, err := l.guest(guest, false)
	if err != nil {
		return nil, "", err
	}
	switch {
	case pageSize <= 0:
		pageSize = DefaultPageSize
	case pageSize > MaxPageSize:
		pageSize = MaxPageSize
	}
	from := max(filter.FromSeq, 1)
	if pageToken != "" {
		t, err := strconv.ParseUint(pageToken, 10, 64)
		if err != nil || t == 0 {
			return nil, "", fmt.Errorf("page_token %q: %w", pageToken, errdefs.ErrInvalidArgument)
		}
		from = max(from, t)
	}
	g.waitPending()
	g.mu.Lock()
	to, segs := g.durable, g.segs
	g.mu.Unlock()
	if filter.ToSeq != 0 {
		to = min(to, filter.ToSeq)
	}
	var out []*brokerv1.AuditRecord
	next, bytes := "", 0
	err = scanRecords(segs, from, to, func(rec *brokerv1.AuditRecord) error {
		if filter.SessionID != "" && rec.GetSessionId() != filter.SessionID {
			return nil
		}
		n := proto.Size(rec)
		if len(out) == pageSize || (len(out) > 0 && bytes+n > MaxPageBytes) {
			next = strconv.FormatUint(rec.GetSeq(), 10)
			return errStop
		}
		out = append(out, rec)
		bytes += n
		return nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("audit log of guest %q: %w", guest, err)
	}
	return out, next, nil
}

// waitPending waits until what was written when it was called is durable (or failed), so that List shows
// a record AppendWritten returned: at most the fsync under way.
func (g *guestLog) waitPending() {
	g.mu.Lock()
	b := g.pending
	g.mu.Unlock()
	if b != nil {
		<-b.done
	}
}

// scanRecords calls fn for each parsable record with from <= seq <= to. Lines that do not parse are
// skipped (Verify reports them).
func scanRecords(segs []segment, from, to uint64, fn func(*brokerv1.AuditRecord) error) error {
	if from > to {
		return nil
	}
	return scanLines(segs, from, func(_ Position, line []byte, torn bool) error {
		if torn {
			return nil
		}
		rec, err := parseLine(line)
		switch {
		case err != nil || rec.GetSeq() < from:
			return nil
		case rec.GetSeq() > to:
			return errStop
		}
		return fn(rec)
	})
}

// Scan reads a guest's log in dir offline (no Log needed, e.g. while the broker runs) and calls fn for each
// record with seq >= fromSeq in file order, until fn returns an error. Lines that do not parse and a torn
// final line are skipped: Verify reports them.
func Scan(dir, guest string, fromSeq uint64, fn func(*brokerv1.AuditRecord) error) error {
	if err := checkGuest(guest); err != nil {
		return err
	}
	segs, err := listSegments(filepath.Join(dir, guest))
	if err != nil {
		return fmt.Errorf("audit log of guest %q: %w: %w", guest, errdefs.ErrNotFound, err)
	}
	err = scanRecords(segs, fromSeq, ^uint64(0), fn)
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

// errFellBehind drops a watcher's live feed; the watcher then catches up from the files.
var errFellBehind = errors.New("watcher fell behind")

// subscriber is a watcher's live feed of durable records, filled by the writer without waiting.
type subscriber struct {
	ch  chan *brokerv1.AuditRecord
	err error // why ch was closed; set before the close
}

func (g *guestLog) subscribeLocked() *subscriber {
	s := &subscriber{ch: make(chan *brokerv1.AuditRecord, g.l.opts.WatchBuffer)}
	g.subs[s] = struct{}{}
	return s
}

func (g *guestLog) dropLocked(s *subscriber, err error) {
	if _, ok := g.subs[s]; ok {
		s.err = err
		close(s.ch)
		delete(g.subs, s)
	}
}

// Watcher is a stream of a guest's records from Log.Watch.
type Watcher struct {
	// C yields records in seq order. It is closed when the context ends, the log closes or reading fails;
	// Err then says why. The records are shared: do not modify them.
	C <-chan *brokerv1.AuditRecord

	mu  sync.Mutex
	err error
}

// Err returns why C was closed (nil before).
func (w *Watcher) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Watch streams the guest's records from fromSeq (0: only records that become durable from now on): the
// backlog from the files, then each record once it is durable. A watcher never slows the writer: one that
// falls more than Options.WatchBuffer records behind reads the files again to catch up. The stream's
// goroutine ends with ctx or Close.
func (l *Log) Watch(ctx context.Context, guest string, fromSeq uint64) (*Watcher, error) {
	g, err := l.guest(guest, true)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil, ErrClosed
	}
	sub, durable, segs := g.subscribeLocked(), g.durable, g.segs
	g.mu.Unlock()
	if fromSeq == 0 {
		fromSeq = durable + 1
	}
	out := make(chan *brokerv1.AuditRecord, 64)
	w := &Watcher{C: out}
	go func() {
		err := g.watch(ctx, sub, fromSeq, durable, segs, out)
		w.mu.Lock()
		w.err = err
		w.mu.Unlock()
		close(out)
	}()
	return w, nil
}

func (g *guestLog) watch(ctx context.Context, sub *subscriber, next, durable uint64, segs []segment, out chan<- *brokerv1.AuditRecord) error {
	unsubscribe := func() {
		g.mu.Lock()
		g.dropLocked(sub, nil)
		g.mu.Unlock()
	}
	send := func(rec *brokerv1.AuditRecord) error {
		select {
		case out <- rec:
			next = rec.GetSeq() + 1
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for {
		if err := scanRecords(segs, next, durable, send); err != nil && !errors.Is(err, errStop) {
			unsubscribe()
			return err
		}
	live:
		for {
			select {
			case rec, ok := <-sub.ch:
				if !ok {
					if !errors.Is(sub.err, errFellBehind) {
						return sub.err
					}
					break live
				}
				if rec.GetSeq() < next {
					continue
				}
				if err := send(rec); err != nil {
					unsubscribe()
					return err
				}
			case <-ctx.Done():
				unsubscribe()
				return ctx.Err()
			}
		}
		// Fell behind: take a new live feed, then read what was missed from the files.
		g.mu.Lock()
		if g.closed {
			g.mu.Unlock()
			return ErrClosed
		}
		sub, durable, segs = g.subscribeLocked(), g.durable, g.segs
		g.mu.Unlock()
	}
}

// Tail returns the last n parsable records of a guest's log in dir, offline, oldest first: it reads files
// from the newest back until it has n.
func Tail(dir, guest string, n int) ([]*brokerv1.AuditRecord, error) {
	if err := checkGuest(guest); err != nil {
		return nil, err
	}
	segs, err := listSegments(filepath.Join(dir, guest))
	if err != nil {
		return nil, fmt.Errorf("audit log of guest %q: %w: %w", guest, errdefs.ErrNotFound, err)
	}
	var out []*brokerv1.AuditRecord
	for i := len(segs) - 1; i >= 0 && len(out) < n; i-- {
		var recs []*brokerv1.AuditRecord
		err := scanFile(segs[i].path, func(_ Position, line []byte, torn bool) error {
			if rec, err := parseLine(line); !torn && err == nil {
				recs = append(recs, rec)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("audit log of guest %q: %w", guest, err)
		}
		out = append(recs[max(0, len(recs)-(n-len(out))):], out...)
	}
	return out, nil
}
