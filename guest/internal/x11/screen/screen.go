// Package screen captures the X11 screen fast: one persistent X connection, one MIT-SHM segment (GetImage
// when shared memory cannot attach), XDamage on the root window so an unchanged screen is answered from the
// last encoded frame, and XFixes for the cursor image.
package screen

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/damage"
	"github.com/jezek/xgb/xfixes"
	"github.com/jezek/xgb/xinerama"
	"github.com/jezek/xgb/xproto"

	"glovebox.dev/guest/internal/x11/xconn"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// syncTimeout bounds the wait for the event loop to catch up with the X server before a cached frame is
// trusted; past it the frame is captured again instead.
const syncTimeout = 2 * time.Second

// maxCachedFrames bounds the encoded frames kept for "unchanged" answers (one per distinct options).
const maxCachedFrames = 16

// WindowAt finds the top-level client window at a root point; the windows package provides it.
type WindowAt interface {
	At(ctx context.Context, x, y int32) (uint32, error)
}

// Screen is the X11 screen backend. It is safe for concurrent use.
type Screen struct {
	log     *slog.Logger
	conn    *xgb.Conn
	root    xproto.Window
	width   int
	height  int
	windows WindowAt

	displays []*agentv1.Display
	degraded string

	// marker is an unmapped window of ours that receives the ClientMessage markers sync sends itself.
	marker     xproto.Window
	markerAtom xproto.Atom
	damage     damage.Damage

	grab *grabber

	mu  sync.Mutex
	seq uint64 // bumped by each damage notification
	// bandSeq holds, for each band of bandRows screen rows, the seq of the last damage notification that
	// touched it.
	bandSeq []uint64
	// tiles holds the columns damaged per band since WatchScreen's tiles last read them (tiles.go).
	tiles   tileColumns
	lastDmg time.Time // when the last damage notification arrived
	// dmgLog holds the latest damage rectangles, oldest first; dmgDropped is the newest seq no longer in it.
	dmgLog     []damageRect
	dmgDropped uint64
	sent       uint32 // last marker sent
	seen       uint32 // newest marker the event loop saw
	changed    chan struct{}
	closed     bool
	frames     map[frameKey]*frame
	loopDone   chan struct{}
}

// New connects to the X display (empty: $DISPLAY), attaches the shared memory segment, subscribes to damage on
// the root window and enumerates the displays. windows may be nil (Cursor then reports no window).
func New(display string, windows WindowAt, log *slog.Logger) (*Screen, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	conn, err := xconn.Open(display)
	if err != nil {
		return nil, err
	}
	s := &Screen{log: log, conn: conn, windows: windows, changed: make(chan struct{}),
		frames: map[frameKey]*frame{}, loopDone: make(chan struct{})}
	if err := s.init(); err != nil {
		conn.Close()
		return nil, err
	}
	go s.loop()
	return s, nil
}

func (s *Screen) init() error {
	setup := xproto.Setup(s.conn)
	scr := setup.DefaultScreen(s.conn)
	s.root = scr.Root
	s.width, s.height = int(scr.WidthInPixels), int(scr.HeightInPixels)
	if err := checkFormat(setup, scr); err != nil {
		return err
	}
	if err := xconn.Require(s.conn, xconn.XFixes); err != nil {
		return err
	}
	if _, err := xfixes.QueryVersion(s.conn, 5, 0).Reply(); err != nil {
		return fmt.Errorf("xfixes version: %w", err)
	}
	if err := xconn.Require(s.conn, xconn.Damage); err != nil {
		return err
	}
	if _, err := damage.QueryVersion(s.conn, 1, 1).Reply(); err != nil {
		return fmt.Errorf("damage version: %w", err)
	}
	dmg, err := damage.NewDamageId(s.conn)
	if err != nil {
		return err
	}
	// Delta rectangles: a notification for each area added to the damage region, which is emptied after each
	// burst, so every change is notified with where it happened.
	if err := damage.CreateChecked(s.conn, dmg, xproto.Drawable(s.root), damage.ReportLevelDeltaRectangles).Check(); err != nil {
		return fmt.Errorf("damage on root: %w", err)
	}
	s.damage = dmg

	atom, err := xproto.InternAtom(s.conn, false, uint16(len("_GLOVEBOX_SYNC")), "_GLOVEBOX_SYNC").Reply()
	if err != nil {
		return fmt.Errorf("intern atom: %w", err)
	}
	s.markerAtom = atom.Atom
	wid, err := xproto.NewWindowId(s.conn)
	if err != nil {
		return err
	}
	if err := xproto.CreateWindowChecked(s.conn, 0, wid, s.root, -1, -1, 1, 1, 0,
		xproto.WindowClassInputOnly, 0, 0, nil).Check(); err != nil {
		return fmt.Errorf("marker window: %w", err)
	}
	s.marker = wid

	s.displays = s.enumerateDisplays()
	s.grab = newGrabber(s.conn, s.root, s.width, s.height)
	if s.degraded = s.grab.degraded(); s.degraded != "" {
		s.log.Warn("screen capture degraded", "reason", s.degraded)
	}
	return nil
}

// checkFormat accepts the layouts the converter handles: 24 or 32 bit depth stored as 32 bits per pixel,
// least significant byte first (BGRX in memory), which is what Xorg and Xvfb use on little-endian machines.
func checkFormat(setup *xproto.SetupInfo, scr *xproto.ScreenInfo) error {
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		return errors.New("unsupported host byte order (big endian)")
	}
	if setup.ImageByteOrder != xproto.ImageOrderLSBFirst {
		return errors.New("unsupported X image byte order (MSB first)")
	}
	for _, f := range setup.PixmapFormats {
		if f.Depth == scr.RootDepth {
			if f.BitsPerPixel != 32 {
				return fmt.Errorf("unsupported X pixel format: depth %d at %d bits per pixel", f.Depth, f.BitsPerPixel)
			}
			return nil
		}
	}
	return fmt.Errorf("no pixmap format for root depth %d", scr.RootDepth)
}

// enumerateDisplays lists the monitors the way kbinani/screenshot does (Xinerama QueryScreens, the first one
// primary), but on this connection, so it describes the configured display rather than $DISPLAY. Without
// Xinerama the whole screen is one display.
func (s *Screen) enumerateDisplays() []*agentv1.Display {
	whole := []*agentv1.Display{{Id: "display-0", Bounds: &agentv1.Rect{Width: int32(s.width), Height: int32(s.height)},
		Scale: 1, Primary: true}}
	if err := xconn.Require(s.conn, xconn.Xinerama); err != nil {
		return whole
	}
	r, err := xinerama.QueryScreens(s.conn).Reply()
	if err != nil || len(r.ScreenInfo) == 0 {
		return whole
	}
	var ds []*agentv1.Display
	for i, si := range r.ScreenInfo {
		ds = append(ds, &agentv1.Display{
			Id:      fmt.Sprintf("display-%d", i),
			Bounds:  &agentv1.Rect{X: int32(si.XOrg), Y: int32(si.YOrg), Width: int32(si.Width), Height: int32(si.Height)},
			Scale:   1,
			Primary: i == 0,
		})
	}
	return ds
}

// Degraded says why capture runs through GetImage instead of shared memory; empty when it does not.
// (The screen does not import package server, whose tests use it; server.AdaptScreen turns this into a
// Capability.)
func (s *Screen) Degraded() string { return s.degraded }

// Displays returns the monitors found at start.
func (s *Screen) Displays() []*agentv1.Display { return s.displays }

// Size returns the X screen size in pixels.
func (s *Screen) Size() (width, height int) { return s.width, s.height }

// Close detaches the shared memory and closes the X connection.
func (s *Screen) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.grab.close()
	s.conn.Close()
	<-s.loopDone
	return nil
}

// loop reads X events: each damage notification is subtracted (so the next drawing notifies again) before the
// frame sequence is bumped, which orders every capture that reads the new sequence after the subtraction.
func (s *Screen) loop() {
	defer close(s.loopDone)
	for {
		ev, xerr := s.conn.WaitForEvent()
		if ev == nil && xerr == nil {
			s.mu.Lock()
			s.closed = true
			s.notifyLocked()
			s.mu.Unlock()
			return
		}
		if xerr != nil {
			s.log.Debug("x error on screen connection", "err", xerr.Error())
			continue
		}
		switch e := ev.(type) {
		case damage.NotifyEvent:
			if e.Level&damageNotifyMore == 0 {
				damage.Subtract(s.conn, s.damage, 0, 0)
			}
			s.mu.Lock()
			s.seq++
			s.markLocked(int(e.Area.Y), int(e.Area.Y)+int(e.Area.Height))
			s.tiles.mark(s.height, int(e.Area.X), int(e.Area.Y), int(e.Area.X)+int(e.Area.Width), int(e.Area.Y)+int(e.Area.Height))
			s.logDamageLocked(image.Rect(int(e.Area.X), int(e.Area.Y), int(e.Area.X)+int(e.Area.Width), int(e.Area.Y)+int(e.Area.Height)))
			s.lastDmg = time.Now()
			s.notifyLocked()
			s.mu.Unlock()
		case xproto.ClientMessageEvent:
			if e.Window == s.marker && e.Type == s.markerAtom {
				s.mu.Lock()
				// Markers are numbered under s.mu but sent after it, so they may come back out of order:
				// seen only moves forward. A marker seen covers every sync numbered before it, whose call
				// began before that marker was sent.
				if n := e.Data.Data32[0]; int32(n-s.seen) > 0 {
					s.seen = n
				}
				s.notifyLocked()
				s.mu.Unlock()
			}
		}
	}
}

// damageNotifyMore is set in a notification's level when more notifications for the same change follow.
const damageNotifyMore = 0x80

// bandRows is the height of the bands whose damage is tracked: the encoders' smallest band.
const bandRows = 16

// markLocked records damage to screen rows y0..y1 at the current seq; s.mu is held.
func (s *Screen) markLocked(y0, y1 int) {
	if s.bandSeq == nil {
		s.bandSeq = make([]uint64, (s.height+bandRows-1)/bandRows)
	}
	b0, b1 := max(y0, 0)/bandRows, (min(y1, s.height)-1)/bandRows
	for b := b0; b <= b1 && b < len(s.bandSeq); b++ {
		s.bandSeq[b] = s.seq
	}
}

// changedSince returns a function telling whether rows y0..y1 of region r may have changed since the frame
// sequence since, from the damage recorded so far.
func (s *Screen) changedSince(r image.Rectangle) func(since uint64, y0, y1 int) bool {
	s.mu.Lock()
	bands := slices.Clone(s.bandSeq)
	s.mu.Unlock()
	return func(since uint64, y0, y1 int) bool {
		if bands == nil {
			return false // no damage at all since the screen was opened
		}
		b0, b1 := (r.Min.Y+y0)/bandRows, (r.Min.Y+y1-1)/bandRows
		for b := b0; b <= b1; b++ {
			if b < 0 || b >= len(bands) || bands[b] > since {
				return true
			}
		}
		return false
	}
}

// notifyLocked wakes every waiter; s.mu is held.
func (s *Screen) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// sync returns once the event loop has handled every event the X server produced before this call, by
// sending our own marker window a ClientMessage and waiting for it to come back: events arrive in order.
func (s *Screen) sync(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errClosed
	}
	s.sent++
	n := s.sent
	s.mu.Unlock()
	ev := xproto.ClientMessageEvent{Format: 32, Window: s.marker, Type: s.markerAtom,
		Data: xproto.ClientMessageDataUnionData32New([]uint32{n, 0, 0, 0, 0})}
	xproto.SendEvent(s.conn, false, s.marker, xproto.EventMaskNoEvent, string(ev.Bytes()))
	timer := time.NewTimer(syncTimeout)
	defer timer.Stop()
	for {
		s.mu.Lock()
		done := int32(s.seen-n) >= 0
		closed := s.closed
		ch := s.changed
		s.mu.Unlock()
		if done {
			return nil
		}
		if closed {
			return errClosed
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			return errors.New("x event loop did not catch up")
		}
	}
}

var errClosed = errors.New("screen closed")

// Seq returns the current frame sequence after catching up with the X server.
func (s *Screen) Seq(ctx context.Context) (uint64, error) {
	if err := s.sync(ctx); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq, nil
}

// WaitChange blocks until the frame sequence is above seq (the screen changed) or ctx ends.
func (s *Screen) WaitChange(ctx context.Context, seq uint64) (uint64, error) {
	for {
		s.mu.Lock()
		cur, ch, closed := s.seq, s.changed, s.closed
		s.mu.Unlock()
		if cur > seq {
			return cur, nil
		}
		if closed {
			return cur, errClosed
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return cur, ctx.Err()
		}
	}
}

// WaitQuiet waits until no damage arrived for quiet, counted from the call or from the last damage,
// whichever is later, so it always waits at least quiet; after timeout it gives up and reports settled false.
func (s *Screen) WaitQuiet(ctx context.Context, quiet, timeout time.Duration) (bool, error) {
	start := time.Now()
	deadline := start.Add(timeout)
	if err := s.sync(ctx); err != nil {
		return false, err
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	for {
		s.mu.Lock()
		from := s.lastDmg
		ch, closed := s.changed, s.closed
		s.mu.Unlock()
		if closed {
			return false, errClosed
		}
		if from.Before(start) {
			from = start
		}
		now := time.Now()
		if now.Sub(from) >= quiet {
			return true, nil
		}
		if !now.Before(deadline) {
			return false, nil
		}
		wait := from.Add(quiet).Sub(now)
		if d := deadline.Sub(now); d < wait {
			wait = d
		}
		timer.Reset(wait)
		select {
		case <-ch:
			if !timer.Stop() {
				<-timer.C
			}
		case <-timer.C:
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// Cursor returns the pointer position, the top-level client window under it and its display.
func (s *Screen) Cursor(ctx context.Context) (*agentv1.GetCursorPositionResponse, error) {
	r, err := xproto.QueryPointer(s.conn, s.root).Reply()
	if err != nil {
		return nil, fmt.Errorf("query pointer: %w", err)
	}
	resp := &agentv1.GetCursorPositionResponse{Position: &agentv1.Point{X: int32(r.RootX), Y: int32(r.RootY)}}
	for _, d := range s.displays {
		b := d.Bounds
		if resp.Position.X >= b.X && resp.Position.X < b.X+b.Width && resp.Position.Y >= b.Y && resp.Position.Y < b.Y+b.Height {
			resp.DisplayId = d.Id
			break
		}
	}
	if s.windows != nil {
		id, err := s.windows.At(ctx, resp.Position.X, resp.Position.Y)
		if err != nil {
			return nil, err
		}
		resp.WindowId = id
	}
	return resp, nil
}
