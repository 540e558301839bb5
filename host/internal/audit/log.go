package audit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"sort"
	"sync"
	"time"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// DefaultRotateBytes is the file size at which a guest's log starts a new file: large enough that rotation
// is rare, small enough that a file is easy to copy and page through.
const DefaultRotateBytes = 64 << 20

// DefaultWatchBuffer is how many durable records a watcher may fall behind the writer before it stops
// receiving them live and catches up by reading the files instead (the writer never waits for a watcher).
const DefaultWatchBuffer = 1024

// Options configures a Log. The zero value is usable.
type Options struct {
	// RotateBytes starts a new file when the current one would grow past it; 0 means DefaultRotateBytes.
	// A single record larger than RotateBytes still gets written, alone in its file.
	RotateBytes int64
	// WatchBuffer is each watcher's live buffer in records; 0 means DefaultWatchBuffer.
	WatchBuffer int
	// Observer receives fsync latency and queue depth; nil: none.
	Observer Observer
	// Logger receives write errors and recovery notes (never record contents); nil: discard.
	Logger *slog.Logger
}

// Observer receives the log's metrics. Calls for a guest come one at a time, from the goroutine running its
// sync round (an appender or the guest's syncer), and must not block.
type Observer interface {
	// ObserveFsync is called after each group commit with the fsync (fdatasync) latency and how many
	// records it made durable.
	ObserveFsync(guest string, d time.Duration, records int)
	// ObserveQueueDepth is called when a sync round starts, with the number of records that were
	// waiting for it.
	ObserveQueueDepth(guest string, depth int)
}

// Log is the broker's audit log directory: one hash chain per guest, each with its own writer goroutine
// doing group commit. It is safe for concurrent use.
type Log struct {
	dir  string
	key  Key
	opts Options

	// syncFault, when set (tests only, before the first append), is called before each sync of a batch
	// and fails it with its error.
	syncFault func() error

	mu     sync.Mutex
	guests map[string]*guestLog
	closed bool
}

var guestNameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$`)

// ErrClosed is returned by a Log that was closed (class errdefs.ErrUnavailable).
var ErrClosed = fmt.Errorf("audit log closed: %w", errdefs.ErrUnavailable)

// checkGuest refuses a guest name that cannot be a directory name as is.
func checkGuest(guest string) error {
	if !guestNameRE.MatchString(guest) {
		return fmt.Errorf("audit guest %q: want 1..128 bytes of [A-Za-z0-9._-], not starting with '.' or '-': %w",
			guest, errdefs.ErrInvalidArgument)
	}
	return nil
}

// Open opens the log in dir (created 0700 if absent) and recovers every guest found there: a torn final line
// is truncated away and each chain continues from its last complete record. key is the HMAC key Redact uses
// for this log's records (see Log.Redact).
func Open(dir string, key Key, opts Options) (*Log, error) {
	if len(key) == 0 {
		return nil, fmt.Errorf("audit: empty key: %w", errdefs.ErrInvalidArgument)
	}
	if opts.RotateBytes <= 0 {
		opts.RotateBytes = DefaultRotateBytes
	}
	if opts.WatchBuffer <= 0 {
		opts.WatchBuffer = DefaultWatchBuffer
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	l := &Log{dir: dir, key: key, opts: opts, guests: map[string]*guestLog{}}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	for _, e := range ents {
		if !e.IsDir() || checkGuest(e.Name()) != nil {
			continue
		}
		g := newGuestLog(l, e.Name())
		if err := g.recover(); err != nil {
			l.Close()
			return nil, err
		}
		l.guests[e.Name()] = g
		g.start()
	}
	return l, nil
}

// datasync makes f's written data durable: fdatasync in the calling goroutine. (Linux AIO for concurrent
// syncs was tried and removed: BenchmarkSyncAIO showed no clear gain, see docs/ARCHITECTURE.md.)
func (l *Log) datasync(f *os.File) error {
	if l.syncFault != nil {
		if err := l.syncFault(); err != nil {
			return err
		}
	}
	return datasync(f)
}

// Redact is Redact with the log's key.
func (l *Log) Redact(m proto.Message) *structpb.Struct { return Redact(l.key, m) }

// Guests returns the guests that have a log, sorted.
func (l *Log) Guests() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var names []string
	for n, g := range l.guests {
		if g.hasLog() {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Head returns the guest's last durable seq and its hash (0 and "" for a guest without records), e.g. to
// anchor the chain outside the log.
func (l *Log) Head(guest string) (seq uint64, hash string, err error) {
	g, err := l.guest(guest, false)
	if err != nil {
		return 0, "", err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.durable, g.durableHash, nil
}

// guest returns the guest's log, creating its state (not yet its directory) when create is set.
func (l *Log) guest(name string, create bool) (*guestLog, error) {
	if err := checkGuest(name); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, ErrClosed
	}
	g := l.guests[name]
	if g == nil {
		if !create {
			return nil, fmt.Errorf("audit log of guest %q: %w", name, errdefs.ErrNotFound)
		}
		g = newGuestLog(l, name)
		g.broken = true // recover (finds nothing, or what another process left) before the first write
		l.guests[name] = g
		g.start()
	}
	return g, nil
}

// Append assigns rec the guest's next seq, the previous record's hash as prev_hash, its own hash and, when
// unset, the current time, and returns once the record is written and fsynced. Records appended
// concurrently are committed together (one write and one fsync per batch). rec.guest is required. rec
// belongs to the log from the call on (the writer fills it in even if ctx ends first); read it after a nil
// error. An error means the record is not known to be durable, not that it is absent: when ctx ends first,
// or a write fails after part of a batch reached a rotated file, it may still be in the log (the chain stays
// valid either way). A failed write makes the next batch recover the guest's files from disk first.
func (l *Log) Append(ctx context.Context, rec *brokerv1.AuditRecord) (uint64, error) {
	g, b, err := l.write(rec)
	if err != nil {
		return 0, err
	}
	if b.writeErr != nil {
		return 0, b.writeErr
	}
	g.lead()
	select {
	case <-b.done:
	case <-ctx.Done():
		return 0, fmt.Errorf("audit append: %w", ctx.Err())
	}
	if b.err != nil {
		return 0, b.err
	}
	return rec.GetSeq(), nil
}

// AppendWritten is Append for records whose answer need not wait for the disk (the broker's observations,
// see the package doc): it returns once rec is written to the guest's file in chain order, with its seq,
// prev_hash and hash assigned, and leaves making it durable to the guest's next sync round (nobody waits for
// that fsync; the write itself never waits for an fsync under way). Every record appended to the guest after it, and so every later mutation's intent,
// lands behind it in the file and is durable only once it is. A crash before that fsync can lose it, and its
// seq is then given to the next record. List and Watch show it once it is durable; List waits for that.
func (l *Log) AppendWritten(ctx context.Context, rec *brokerv1.AuditRecord) (uint64, error) {
	g, b, err := l.write(rec)
	if err != nil {
		return 0, err
	}
	g.kick()
	if b.writeErr != nil {
		return 0, b.writeErr
	}
	return rec.GetSeq(), nil
}

// write checks and encodes rec and writes it to its guest's file (see guestLog.write).
func (l *Log) write(rec *brokerv1.AuditRecord) (*guestLog, *batch, error) {
	if rec == nil {
		return nil, nil, fmt.Errorf("audit: nil record: %w", errdefs.ErrInvalidArgument)
	}
	g, err := l.guest(rec.GetGuest(), true)
	if err != nil {
		return nil, nil, err
	}
	if rec.Time == nil {
		rec.Time = timestamppb.Now()
	}
	enc, err := preencode(rec)
	if err == nil {
		enc, err = l.bound(rec, enc)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("audit record: %w: %w", errdefs.ErrInvalidArgument, err)
	}
	b, err := g.write(rec, enc)
	return g, b, err
}

// Close writes what is queued, stops the writers, ends every watcher and closes the files. Appends after
// Close fail with ErrClosed.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	guests := make([]*guestLog, 0, len(l.guests))
	for _, g := range l.guests {
		guests = append(guests, g)
	}
	l.mu.Unlock()
	var errs []error
	for _, g := range guests {
		errs = append(errs, g.stop())
	}
	return errors.Join(errs...)
}
