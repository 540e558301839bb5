// Package windows describes the top-level client windows of an X11 desktop as the window manager (EWMH)
// and the clients (ICCCM) present them, finds the window at a point and activates windows.
package windows

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"glovebox.dev/guest/internal/x11/xconn"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// Activation bounds: how long the window manager gets to honour _NET_ACTIVE_WINDOW, then how long the direct
// SetInputFocus fallback gets.
const (
	activateWait = time.Second
	fallbackWait = 500 * time.Millisecond
	focusPoll    = 5 * time.Millisecond
)

// maxPropertyWords bounds every property read (titles longer than 16 KiB are cut).
const maxPropertyWords = 4096

// Windows reads window state over its own X connection. It is safe for concurrent use (xgb serializes
// requests; every method only reads, except Activate).
//
// The client list and the active window are read on the hot path of every keyboard action (the target
// acted on), so they are cached: the root's PropertyNotify events, read by an event loop, invalidate them
// when the window manager changes _NET_CLIENT_LIST(_STACKING) or _NET_ACTIVE_WINDOW, and the next read
// asks the server again. A cached value lags a change only by the time its event takes to arrive.
type Windows struct {
	conn  *xgb.Conn
	root  xproto.Window
	atoms atoms

	mu sync.Mutex
	// gen counts invalidations, so a reply read across one is not cached as current.
	gen          uint64
	clientsCache []xproto.Window // nil: unknown; never modified once stored
	activeCache  xproto.Window
	activeKnown  bool
	loopDone     chan struct{}
}

type atoms struct {
	clientListStacking, clientList, activeWindow, wmName, utf8String, wmPID, wmState xproto.Atom
	compoundText, wmProtocols, wmTakeFocus                                           xproto.Atom
}

// New connects to the X display (empty: $DISPLAY).
func New(display string) (*Windows, error) {
	conn, err := xconn.Open(display)
	if err != nil {
		return nil, err
	}
	w := &Windows{conn: conn, root: xproto.Setup(conn).DefaultScreen(conn).Root, loopDone: make(chan struct{})}
	names := []string{"_NET_CLIENT_LIST_STACKING", "_NET_CLIENT_LIST", "_NET_ACTIVE_WINDOW", "_NET_WM_NAME",
		"UTF8_STRING", "_NET_WM_PID", "WM_STATE", "COMPOUND_TEXT", "WM_PROTOCOLS", "WM_TAKE_FOCUS"}
	cookies := make([]xproto.InternAtomCookie, len(names))
	for i, n := range names {
		cookies[i] = xproto.InternAtom(conn, false, uint16(len(n)), n)
	}
	dst := []*xproto.Atom{&w.atoms.clientListStacking, &w.atoms.clientList, &w.atoms.activeWindow, &w.atoms.wmName,
		&w.atoms.utf8String, &w.atoms.wmPID, &w.atoms.wmState, &w.atoms.compoundText, &w.atoms.wmProtocols,
		&w.atoms.wmTakeFocus}
	for i, c := range cookies {
		r, err := c.Reply()
		if err != nil {
			conn.Close()
			return nil, fmt.Errorf("intern %s: %w", names[i], err)
		}
		*dst[i] = r.Atom
	}
	// Selected before anything is cached: every later change to a root property is then notified.
	if err := xproto.ChangeWindowAttributesChecked(conn, w.root, xproto.CwEventMask,
		[]uint32{xproto.EventMaskPropertyChange}).Check(); err != nil {
		conn.Close()
		return nil, fmt.Errorf("watch root properties: %w", err)
	}
	go w.loop()
	return w, nil
}

// Close closes the X connection.
func (w *Windows) Close() error {
	w.conn.Close()
	<-w.loopDone
	return nil
}

// loop invalidates the cached client list and active window when their root properties change.
func (w *Windows) loop() {
	defer close(w.loopDone)
	for {
		ev, xerr := w.conn.WaitForEvent()
		if ev == nil && xerr == nil {
			return
		}
		e, ok := ev.(xproto.PropertyNotifyEvent)
		if !ok || e.Window != w.root {
			continue
		}
		w.mu.Lock()
		switch e.Atom {
		case w.atoms.clientListStacking, w.atoms.clientList:
			w.gen++
			w.clientsCache = nil
		case w.atoms.activeWindow:
			w.gen++
			w.activeKnown = false
		}
		w.mu.Unlock()
	}
}

// cached returns the cached client list and active window (nil and false when unknown) and the current
// invalidation count.
func (w *Windows) cached() (clients []xproto.Window, active xproto.Window, activeKnown bool, gen uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.clientsCache, w.activeCache, w.activeKnown, w.gen
}

// clients returns the client windows bottom of the stack first: _NET_CLIENT_LIST_STACKING, else
// _NET_CLIENT_LIST, else the root's children that carry WM_STATE (no EWMH window manager).
func (w *Windows) clients() ([]xproto.Window, error) {
	ids, _, _, gen := w.cached()
	if ids != nil {
		return ids, nil
	}
	for _, a := range []xproto.Atom{w.atoms.clientListStacking, w.atoms.clientList} {
		r, err := xproto.GetProperty(w.conn, false, w.root, a, xproto.AtomWindow, 0, maxPropertyWords).Reply()
		if err != nil {
			return nil, fmt.Errorf("client list: %w", err)
		}
		if r.Format == 32 {
			// Present, even empty: an EWMH window manager keeps it, and its changes are notified.
			ids := windowList(r.Value)
			w.mu.Lock()
			if w.gen == gen {
				w.clientsCache = ids
			}
			w.mu.Unlock()
			return ids, nil
		}
	}
	t, err := xproto.QueryTree(w.conn, w.root).Reply()
	if err != nil {
		return nil, fmt.Errorf("query tree: %w", err)
	}
	cookies := make([]xproto.GetPropertyCookie, len(t.Children))
	for i, c := range t.Children {
		cookies[i] = xproto.GetProperty(w.conn, false, c, w.atoms.wmState, xproto.GetPropertyTypeAny, 0, 1)
	}
	var out []xproto.Window
	for i, c := range cookies {
		if r, err := c.Reply(); err == nil && r.Format != 0 {
			out = append(out, t.Children[i])
		}
	}
	return out, nil
}

func windowList(b []byte) []xproto.Window {
	out := make([]xproto.Window, len(b)/4)
	for i := range out {
		out[i] = xproto.Window(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// pending holds the requests describing one window, sent together so a listing costs one round trip.
type pending struct {
	id                        xproto.Window
	netName, name, class, pid xproto.GetPropertyCookie
	attrs                     xproto.GetWindowAttributesCookie
	geom                      xproto.GetGeometryCookie
	origin                    xproto.TranslateCoordinatesCookie
}

func (w *Windows) request(id xproto.Window) *pending {
	return &pending{
		id:      id,
		netName: xproto.GetProperty(w.conn, false, id, w.atoms.wmName, w.atoms.utf8String, 0, maxPropertyWords),
		name:    xproto.GetProperty(w.conn, false, id, xproto.AtomWmName, xproto.GetPropertyTypeAny, 0, maxPropertyWords),
		class:   xproto.GetProperty(w.conn, false, id, xproto.AtomWmClass, xproto.AtomString, 0, maxPropertyWords),
		pid:     xproto.GetProperty(w.conn, false, id, w.atoms.wmPID, xproto.AtomCardinal, 0, 1),
		attrs:   xproto.GetWindowAttributes(w.conn, id),
		geom:    xproto.GetGeometry(w.conn, xproto.Drawable(id)),
		origin:  xproto.TranslateCoordinates(w.conn, id, w.root, 0, 0),
	}
}

// collect reads the replies; a window destroyed meanwhile fails with errdefs.ErrTargetGone.
func (p *pending) collect(focused uint32, compoundText xproto.Atom) (*agentv1.Window, error) {
	gone := func(err error) error {
		var bw xproto.WindowError
		var bd xproto.DrawableError
		if errors.As(err, &bw) || errors.As(err, &bd) {
			return fmt.Errorf("window %d: %w", p.id, errdefs.ErrTargetGone)
		}
		return fmt.Errorf("window %d: %w", p.id, err)
	}
	attrs, err := p.attrs.Reply()
	if err != nil {
		return nil, gone(err)
	}
	geom, err := p.geom.Reply()
	if err != nil {
		return nil, gone(err)
	}
	origin, err := p.origin.Reply()
	if err != nil {
		return nil, gone(err)
	}
	win := &agentv1.Window{
		Id:       uint32(p.id),
		Geometry: &agentv1.Rect{X: int32(origin.DstX), Y: int32(origin.DstY), Width: int32(geom.Width), Height: int32(geom.Height)},
		Mapped:   attrs.MapState == xproto.MapStateViewable,
		Focused:  uint32(p.id) == focused,
	}
	if r, err := p.netName.Reply(); err == nil && r.Format == 8 && r.ValueLen > 0 {
		win.Title = utf8Text(r.Value, r.BytesAfter > 0)
	} else if r, err := p.name.Reply(); err == nil && r.Format == 8 {
		win.Title = legacyText(r.Value, r.Type == compoundText)
	} else if err != nil {
		return nil, gone(err)
	}
	if r, err := p.class.Reply(); err == nil && r.Format == 8 {
		// WM_CLASS is "instance\0class\0".
		parts := splitNul([]byte(utf8Text(r.Value, r.BytesAfter > 0)))
		if len(parts) > 0 {
			win.InstanceName = parts[0]
		}
		if len(parts) > 1 {
			win.ClassName = parts[1]
		}
	}
	if r, err := p.pid.Reply(); err == nil && r.Format == 32 && len(r.Value) >= 4 {
		win.Pid = int32(binary.LittleEndian.Uint32(r.Value))
	}
	return win, nil
}

func splitNul(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := slices.Index(b, 0)
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, string(b[:i]))
		b = b[i+1:]
	}
	return out
}

// List returns the client windows, bottom of the stack first. Windows destroyed while listing are left out.
func (w *Windows) List(ctx context.Context, includeUnmapped bool) ([]*agentv1.Window, error) {
	ids, err := w.clients()
	if err != nil {
		return nil, err
	}
	focused, err := w.Focused(ctx)
	if err != nil {
		return nil, err
	}
	ps := make([]*pending, len(ids))
	for i, id := range ids {
		ps[i] = w.request(id)
	}
	out := make([]*agentv1.Window, 0, len(ids))
	for _, p := range ps {
		win, err := p.collect(focused, w.atoms.compoundText)
		if errors.Is(err, errdefs.ErrTargetGone) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if win.Mapped || includeUnmapped {
			out = append(out, win)
		}
	}
	return out, nil
}

// Get returns one client window; an id that is not a client window fails with errdefs.ErrTargetGone.
func (w *Windows) Get(ctx context.Context, id uint32) (*agentv1.Window, error) {
	ids, err := w.clients()
	if err != nil {
		return nil, err
	}
	if !slices.Contains(ids, xproto.Window(id)) {
		return nil, fmt.Errorf("window %d is not a client window: %w", id, errdefs.ErrTargetGone)
	}
	focused, err := w.Focused(ctx)
	if err != nil {
		return nil, err
	}
	return w.request(xproto.Window(id)).collect(focused, w.atoms.compoundText)
}
