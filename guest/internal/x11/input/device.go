// Package input drives the X11 keyboard and pointer through XTEST on one persistent connection. Every action
// ends with a round trip, so it returns once the X server has processed its events. Keys and buttons pressed
// by an action belong to an owner: key_down and mouse_down keep them pressed, ReleaseAll releases them, an
// action that fails part way releases what it pressed, and Close releases everything.
package input

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"glovebox.dev/guest/internal/x11/xconn"
	"glovebox.dev/shared/errdefs"
)

// restoreDelay is how long spare keycodes stay bound to the characters typed through them after the last
// action that used them. Clients translate a keycode with the keymap they fetch when they handle the
// MappingNotify, which can be well after the server processed our key events; restoring at once (as xdotool
// does) lets a busy client see the restored, empty keycode and lose the character.
const restoreDelay = 250 * time.Millisecond

// Device is the XTEST input device. It is safe for concurrent use; actions run one at a time.
type Device struct {
	log  *slog.Logger
	conn *xgb.Conn
	// raw carries the XTEST events of an action as one write, closed by one round trip (nil: they go
	// through conn one request at a time). The keymap and queries stay on conn.
	raw   *xconn.Raw
	xtest byte // XTEST's major opcode
	root  xproto.Window
	w, h  int32

	// life ends when Close starts, so an action waiting (hold_key, drag delays, typing delays) stops at once.
	life context.Context
	kill context.CancelFunc
	// stale is set by the event loop on MappingNotify: the keymap is fetched again before the next lookup.
	stale atomic.Bool
	// lastX, lastY are the pointer position seen by the last sync.
	lastX, lastY atomic.Int32

	mu      sync.Mutex
	closed  bool
	km      *keymap
	spares  *spares
	holds   holds
	restore *time.Timer
	bursts  uint64
	// released holds the state bits of the buttons the action in progress released on the X server (and
	// did not press again): it waits until the server has them up before it returns (awaitThaw).
	released uint16
	// lastMask is the pointer state (buttons and modifiers down) seen by the last round trip.
	lastMask uint16
}

// Open connects to the X display (empty: $DISPLAY) and initialises XTEST.
func Open(display string, log *slog.Logger) (*Device, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	conn, err := xconn.Open(display)
	if err != nil {
		return nil, fmt.Errorf("x display %q: %w: %w", display, errdefs.ErrUnavailable, err)
	}
	if err := xconn.Require(conn, xconn.XTest); err != nil {
		conn.Close()
		return nil, fmt.Errorf("xtest: %w: %w", errdefs.ErrCapabilityUnavailable, err)
	}
	setup := xproto.Setup(conn)
	scr := setup.DefaultScreen(conn)
	d := &Device{
		log:   log,
		conn:  conn,
		root:  scr.Root,
		w:     int32(scr.WidthInPixels),
		h:     int32(scr.HeightInPixels),
		holds: newHolds(),
	}
	d.life, d.kill = context.WithCancel(context.Background())
	d.spares = newSpares()
	conn.ExtLock.RLock()
	d.xtest = conn.Extensions[xconn.XTest]
	conn.ExtLock.RUnlock()
	if raw, err := xconn.OpenRaw(display); err == nil {
		d.raw = raw
	} else {
		log.Warn("input events go through the main X connection, one request at a time", "err", err)
	}
	go d.events()
	d.mu.Lock()
	err = d.refreshKeymap()
	d.mu.Unlock()
	if err != nil {
		conn.Close()
		return nil, err
	}
	return d, nil
}

// Root returns the size of the root window in pixels.
func (d *Device) Root() (width, height int32) { return d.w, d.h }

// Close releases every key and button held by every owner, restores the spare keycodes and closes the
// connection. Actions still waiting are interrupted.
func (d *Device) Close() error {
	// Cancelled first, without the lock: the action in progress holds it until it ends, and must be
	// interrupted, not waited out. It releases its input and unlocks; everything else held is released here.
	d.kill()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	if d.restore != nil {
		d.restore.Stop()
	}
	for _, owner := range d.holds.owners() {
		d.releaseOwner(owner)
	}
	d.restoreSpares()
	err := d.sync()
	if d.raw != nil {
		// The releases went on the raw connection, the restored keymap on the main one.
		err = errors.Join(err, d.syncX())
		d.raw.Close()
	}
	d.conn.Close()
	return err
}

// events drains the connection: MappingNotify marks the keymap stale, X errors are logged.
func (d *Device) events() {
	for {
		ev, err := d.conn.WaitForEvent()
		if ev == nil && err == nil {
			return
		}
		if err != nil {
			d.log.Warn("x error on input connection", "err", err)
			continue
		}
		if m, ok := ev.(xproto.MappingNotifyEvent); ok && m.Request != xproto.MappingPointer {
			d.stale.Store(true)
		}
	}
}

// sync sends the input events of the action and waits for a round trip, so the X server has processed
// every one of them. The round trip is a QueryPointer, so the pointer position after every action comes for
// free.
func (d *Device) sync() error {
	if d.raw == nil {
		return d.syncX()
	}
	x, y, mask, err := d.raw.Sync(uint32(d.root))
	if err != nil {
		return fmt.Errorf("x round trip: %w: %w", errdefs.ErrUnavailable, err)
	}
	d.lastX.Store(int32(x))
	d.lastY.Store(int32(y))
	d.lastMask = mask
	return nil
}

// syncX waits for a round trip on the main connection, so the X server has processed every request sent
// on it (keymap changes before the events that use them).
func (d *Device) syncX() error {
	r, err := xproto.QueryPointer(d.conn, d.root).Reply()
	if err != nil {
		return fmt.Errorf("x round trip: %w: %w", errdefs.ErrUnavailable, err)
	}
	d.lastX.Store(int32(r.RootX))
	d.lastY.Store(int32(r.RootY))
	d.lastMask = r.Mask
	return nil
}

// LastPointer returns the pointer position the X server reported at the end of the last action (its
// closing round trip), without asking again.
func (d *Device) LastPointer() (x, y int32) { return d.lastX.Load(), d.lastY.Load() }

// begin takes the device for one action. The returned context ends with ctx or when the device closes.
func (d *Device) begin(ctx context.Context) (context.Context, func(), error) {
	d.mu.Lock()
	if d.closed || d.life.Err() != nil {
		d.mu.Unlock()
		return nil, nil, fmt.Errorf("input device: %w", errdefs.ErrUnavailable)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(d.life, func() { cancel(errors.New("input device closing")) })
	return ctx, func() {
		stop()
		cancel(nil)
		d.mu.Unlock()
	}, nil
}

// interrupted wraps the reason an action stopped part way.
func interrupted(ctx context.Context, what string) error {
	return fmt.Errorf("%s: %w: %w", what, errdefs.ErrInterrupted, context.Cause(ctx))
}

// sleep waits for dur or until ctx ends.
func sleep(ctx context.Context, dur time.Duration, what string) error {
	if dur <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(dur)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return interrupted(ctx, what)
	}
}

// fake queues one XTEST event; sync sends it.
func (d *Device) fake(typ byte, detail byte, x, y int16) {
	if d.raw != nil {
		d.raw.FakeInput(d.xtest, typ, detail, uint32(d.root), x, y)
		return
	}
	xtest.FakeInput(d.conn, typ, detail, 0, d.root, x, y, 0)
}

// Pointer returns the pointer position on the root window.
func (d *Device) Pointer(ctx context.Context) (x, y int32, err error) {
	r, err := xproto.QueryPointer(d.conn, d.root).Reply()
	if err != nil {
		return 0, 0, fmt.Errorf("query pointer: %w: %w", errdefs.ErrUnavailable, err)
	}
	return int32(r.RootX), int32(r.RootY), nil
}
