// Package clipboard reads and writes the X selections CLIPBOARD and PRIMARY as text over its own X
// connection, following the ICCCM: reads convert to UTF8_STRING with a STRING fallback and accept INCR
// transfers; writes take ownership with a real server timestamp and keep answering TARGETS, UTF8_STRING,
// STRING, TEXT, TIMESTAMP and MULTIPLE requests (INCR above the request size limit) from the event goroutine
// until another client takes the selection or Close is called. Contents are never logged.
package clipboard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"glovebox.dev/guest/internal/x11/xconn"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

const (
	// MaxText bounds a selection's text in both directions, as the API does (16 MiB of UTF-8).
	MaxText = 16 << 20
	// ReplyTimeout bounds every wait on another client: the owner's SelectionNotify, each INCR step of a
	// read, and our own timestamp round trip.
	ReplyTimeout = 5 * time.Second
	// transferTimeout drops an INCR transfer whose requestor stopped deleting the property, so a vanished
	// or stuck requestor costs memory for a bounded time only.
	transferTimeout = 5 * time.Second
	// maxChunk caps one property write, below the core protocol's 256 KiB request limit even when the
	// server would accept more.
	maxChunk = 256 << 10
	// readChunk is how much one GetProperty asks for when reading a converted selection.
	readChunk = 4 << 20
)

// Clipboard is one X connection serving and reading selections through an unmapped InputOnly window.
// Its methods are safe for concurrent use; reads are serialized (one conversion in flight).
type Clipboard struct {
	conn  *xgb.Conn
	win   xproto.Window
	log   *slog.Logger
	atoms atoms
	chunk int // bytes per property write; larger contents are sent with INCR
	// timeout bounds waits on other clients (ReplyTimeout; tests shorten it).
	timeout time.Duration

	readMu sync.Mutex  // one conversion in flight on our window
	prop   xproto.Atom // the property reads convert into (guarded by readMu); replaced after an abandoned read
	nprop  int         // how many properties were used, for naming the next one

	ownMu sync.Mutex // orders ownership changes (Write, SelectionClear, Close)

	atomMu   sync.Mutex
	atomByID map[xproto.Atom]string // names of atoms seen in TARGETS lists and interned targets
	idByName map[string]xproto.Atom

	mu      sync.Mutex
	offers  map[xproto.Atom]*offer // selection -> what we offer while we own it
	reader  *queue                 // events for the read in flight, nil when none
	readFor xproto.Atom            // the property of the read in flight
	stamped []chan xproto.Timestamp
	// lastTime is the newest server time from a timestamp round trip, 0 before the first.
	lastTime xproto.Timestamp

	transfers map[transferKey]*transfer // INCR sends in progress; event goroutine only
	// served counts the content requests answered for offers a paste watches (guarded by mu).
	served map[*offer]int
	// press is what XdndSelection held when the agent's press in progress began, nil without one (mu).
	press *pressSnapshot

	events    *queue
	loopDone  chan struct{}
	closeOnce sync.Once
}

// offer is what we serve for one selection, immutable once published.
type offer struct {
	// hasText says whether the text targets (UTF8_STRING, TEXT, STRING) are offered; an image alone is not.
	hasText bool
	text    []byte
	latin1  []byte // nil when the text is not representable in Latin-1 (STRING refused)
	// extra are further targets and their bytes (image/png, text/uri-list, ...), served with their own atom
	// as the type.
	extra map[xproto.Atom][]byte
	time  xproto.Timestamp
}

type atoms struct {
	clipboard, utf8, text, targets, timestamp, multiple, incr, atomPair, stamp xproto.Atom
}

// Open connects to display (empty: $DISPLAY) and starts the event goroutine.
func Open(display string, log *slog.Logger) (*Clipboard, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	conn, err := xconn.Open(display)
	if err != nil {
		return nil, fmt.Errorf("clipboard: connect to display %q: %w", display, errors.Join(errdefs.ErrUnavailable, err))
	}
	c := &Clipboard{
		conn:      conn,
		log:       log,
		offers:    map[xproto.Atom]*offer{},
		transfers: map[transferKey]*transfer{},
		served:    map[*offer]int{},
		atomByID:  map[xproto.Atom]string{},
		idByName:  map[string]xproto.Atom{},
		events:    newQueue(),
		loopDone:  make(chan struct{}),
		timeout:   ReplyTimeout,
	}
	if err := c.init(); err != nil {
		conn.Close()
		return nil, err
	}
	go c.pump()
	go c.loop()
	c.prefetchTimestamp()
	return c, nil
}

func (c *Clipboard) init() error {
	setup := xproto.Setup(c.conn)
	c.chunk = min(int(setup.MaximumRequestLength)*4-32, maxChunk) &^ 3
	names := []string{"CLIPBOARD", "UTF8_STRING", "TEXT", "TARGETS", "TIMESTAMP", "MULTIPLE", "INCR", "ATOM_PAIR",
		"GLOVEBOX_TIMESTAMP", "GLOVEBOX_SELECTION"}
	got, err := internAtoms(c.conn, names)
	if err != nil {
		return err
	}
	c.atoms = atoms{clipboard: got[0], utf8: got[1], text: got[2], targets: got[3], timestamp: got[4],
		multiple: got[5], incr: got[6], atomPair: got[7], stamp: got[8]}
	c.prop = got[9]
	win, err := xproto.NewWindowId(c.conn)
	if err != nil {
		return fmt.Errorf("clipboard: window id: %w", errors.Join(errdefs.ErrUnavailable, err))
	}
	root := setup.DefaultScreen(c.conn).Root
	// PropertyChangeMask on our own window gives us timestamps and the steps of INCR reads.
	if err := xproto.CreateWindowChecked(c.conn, 0, win, root, -10, -10, 1, 1, 0, xproto.WindowClassInputOnly, 0,
		xproto.CwEventMask, []uint32{xproto.EventMaskPropertyChange}).Check(); err != nil {
		return fmt.Errorf("clipboard: create window: %w", errors.Join(errdefs.ErrUnavailable, err))
	}
	c.win = win
	return nil
}

func internAtoms(conn *xgb.Conn, names []string) ([]xproto.Atom, error) {
	cookies := make([]xproto.InternAtomCookie, len(names))
	for i, n := range names {
		cookies[i] = xproto.InternAtom(conn, false, uint16(len(n)), n)
	}
	out := make([]xproto.Atom, len(names))
	for i, ck := range cookies {
		r, err := ck.Reply()
		if err != nil || r == nil {
			return nil, fmt.Errorf("clipboard: intern atom %s: %w", names[i], errors.Join(errdefs.ErrUnavailable, err))
		}
		out[i] = r.Atom
	}
	return out, nil
}

// Available reports whether the backend works: a Clipboard exists only with a working connection, so it
// is unavailable only once that connection is closed.
func (c *Clipboard) Available() (ok bool, reason string) {
	select {
	case <-c.loopDone:
		return false, "X connection closed"
	default:
		return true, ""
	}
}

// Close gives up the selections we own, closes the connection and waits for the event goroutine.
func (c *Clipboard) Close() error {
	c.closeOnce.Do(func() {
		c.ownMu.Lock()
		c.mu.Lock()
		for sel, o := range c.offers {
			// With our own timestamp this has no effect when another client took the selection since.
			xproto.SetSelectionOwner(c.conn, xproto.AtomNone, sel, o.time)
		}
		c.offers = map[xproto.Atom]*offer{}
		c.mu.Unlock()
		c.ownMu.Unlock()
		xproto.GetInputFocus(c.conn).Reply() // flush the releases before closing
		c.conn.Close()
		<-c.loopDone
	})
	return nil
}

// selectionAtom maps the API's selection; unspecified is CLIPBOARD.
func (c *Clipboard) selectionAtom(sel agentv1.Selection) (xproto.Atom, error) {
	switch sel {
	case agentv1.Selection_SELECTION_UNSPECIFIED, agentv1.Selection_SELECTION_CLIPBOARD:
		return c.atoms.clipboard, nil
	case agentv1.Selection_SELECTION_PRIMARY:
		return xproto.AtomPrimary, nil
	case agentv1.Selection_SELECTION_XDND:
		return c.atom("XdndSelection")
	}
	return 0, fmt.Errorf("selection %d: %w", sel, errdefs.ErrInvalidArgument)
}

// timestamp returns a current server time: an empty append to a property of our window makes the server
// send a PropertyNotify carrying it (ICCCM 2.1: CurrentTime must not be used to acquire a selection).
func (c *Clipboard) timestamp(ctx context.Context) (xproto.Timestamp, error) {
	ch := make(chan xproto.Timestamp, 1)
	c.mu.Lock()
	c.stamped = append(c.stamped, ch)
	c.mu.Unlock()
	c.prefetchTimestamp()
	t := time.NewTimer(c.timeout)
	defer t.Stop()
	select {
	case ts := <-ch:
		return ts, nil
	case <-ctx.Done():
		return 0, fmt.Errorf("server timestamp: %w", ctx.Err())
	case <-t.C:
		return 0, fmt.Errorf("server timestamp: %w", errdefs.ErrTimeout)
	case <-c.loopDone:
		return 0, fmt.Errorf("server timestamp: connection closed: %w", errdefs.ErrUnavailable)
	}
}

// prefetchTimestamp asks for a server time without waiting: its PropertyNotify updates lastTime.
func (c *Clipboard) prefetchTimestamp() {
	xproto.ChangeProperty(c.conn, xproto.PropModeAppend, c.win, c.atoms.stamp, xproto.AtomInteger, 32, 0, nil)
}

// recentTime is the newest server time seen, 0 when none was yet.
func (c *Clipboard) recentTime() xproto.Timestamp {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastTime
}

// pump moves every event off xgb's bounded channel: the events of the read in flight and timestamps go
// straight to their waiter (one goroutine hop less on the hot paths), everything else to an unbounded
// queue for the event goroutine, so that goroutine may make round trips (MULTIPLE, SelectionClear) without
// xgb's reader ever stalling behind it.
func (c *Clipboard) pump() {
	for {
		ev, xerr := c.conn.WaitForEvent()
		if ev == nil && xerr == nil {
			c.mu.Lock()
			if c.reader != nil {
				c.reader.close()
			}
			c.mu.Unlock()
			c.events.close()
			return
		}
		if xerr == nil && c.route(ev) {
			continue
		}
		c.events.push(item{ev: ev, err: xerr})
	}
}

// route delivers ev to a waiting Read or timestamp and reports whether it did.
func (c *Clipboard) route(ev xgb.Event) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch ev := ev.(type) {
	case xproto.SelectionNotifyEvent:
		if ev.Requestor != c.win {
			return false
		}
		if c.reader != nil {
			c.reader.push(item{ev: ev})
		}
		return true // a late answer to an abandoned read is dropped
	case xproto.PropertyNotifyEvent:
		if ev.Window != c.win {
			return false
		}
		if ev.Atom == c.atoms.stamp {
			if ev.Time-c.lastTime < 1<<31 { // newer, modulo the 49-day wrap of X time
				c.lastTime = ev.Time
			}
			for _, ch := range c.stamped {
				ch <- ev.Time
			}
			c.stamped = nil
			return true
		}
		if c.reader != nil && ev.Atom == c.readFor && ev.State == xproto.PropertyNewValue {
			c.reader.push(item{ev: ev})
			return true
		}
	}
	return false
}

// loop is the event goroutine: it serves requestors, drives INCR sends and expires stalled ones.
func (c *Clipboard) loop() {
	defer close(c.loopDone)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-c.events.ready:
			items, closed := c.events.take()
			for _, it := range items {
				c.handle(it)
			}
			if closed {
				return
			}
		case now := <-tick.C:
			c.expire(now)
		}
	}
}

func (c *Clipboard) handle(it item) {
	if it.fn != nil {
		it.fn()
		return
	}
	if it.err != nil {
		if we, ok := it.err.(xproto.WindowError); ok {
			c.dropWindow(xproto.Window(we.BadValue), "requestor window gone")
			return
		}
		c.log.Debug("clipboard: X error", "err", it.err.Error())
		return
	}
	switch ev := it.ev.(type) {
	case xproto.SelectionRequestEvent:
		c.serve(ev)
	case xproto.SelectionClearEvent:
		if ev.Owner == c.win {
			c.cleared(ev.Selection)
		}
	case xproto.PropertyNotifyEvent:
		if ev.State == xproto.PropertyDelete {
			c.step(transferKey{ev.Window, ev.Atom})
		}
	case xproto.DestroyNotifyEvent:
		c.dropWindow(ev.Window, "requestor window destroyed")
	}
}

// inLoop runs fn in the event goroutine, after every event already received, and waits for it.
func (c *Clipboard) inLoop(fn func()) {
	done := make(chan struct{})
	c.events.push(item{fn: func() { fn(); close(done) }})
	select {
	case <-done:
	case <-c.loopDone:
	}
}

// transferCount is the number of INCR sends in progress.
func (c *Clipboard) transferCount() (n int) {
	c.inLoop(func() { n = len(c.transfers) })
	return n
}

// cleared handles SelectionClear: another client took the selection. The owner is asked again under ownMu
// so a clear that was queued before our own newer Write does not drop the newer offer.
func (c *Clipboard) cleared(sel xproto.Atom) {
	c.ownMu.Lock()
	defer c.ownMu.Unlock()
	r, err := xproto.GetSelectionOwner(c.conn, sel).Reply()
	if err != nil || r == nil || r.Owner != c.win {
		c.mu.Lock()
		delete(c.offers, sel)
		c.mu.Unlock()
		c.log.Debug("clipboard: selection taken by another client", "selection", uint32(sel))
	}
}

// queue is an unbounded FIFO of X events with a ready signal.
type queue struct {
	mu     sync.Mutex
	items  []item
	closed bool
	ready  chan struct{}
}

type item struct {
	ev  xgb.Event
	err xgb.Error
	fn  func() // run in the event goroutine (inLoop)
}

func newQueue() *queue { return &queue{ready: make(chan struct{}, 1)} }

func (q *queue) push(it item) {
	q.mu.Lock()
	q.items = append(q.items, it)
	q.mu.Unlock()
	q.signal()
}

func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

func (q *queue) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// take returns everything queued and whether the queue was closed.
func (q *queue) take() ([]item, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = nil
	return items, q.closed
}
