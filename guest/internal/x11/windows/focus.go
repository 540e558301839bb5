package windows

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	"github.com/jezek/xgb/xproto"

	"glovebox.dev/shared/errdefs"
)

// Focused returns the active client window: _NET_ACTIVE_WINDOW when the window manager sets it to a client,
// else the window with the input focus mapped up to its client window; 0 for none.
//
// With an EWMH window manager this costs no round trip: both the client list and _NET_ACTIVE_WINDOW are
// cached and kept current by the root's PropertyNotify events.
func (w *Windows) Focused(ctx context.Context) (uint32, error) {
	ids, err := w.clients()
	if err != nil {
		return 0, err
	}
	a, err := w.active()
	if err != nil {
		return 0, err
	}
	if a != 0 && slices.Contains(ids, a) {
		return uint32(a), nil
	}
	return w.inputFocus(ids)
}

// active returns _NET_ACTIVE_WINDOW (0 when unset), from the cache when no change was notified since it
// was read.
func (w *Windows) active() (xproto.Window, error) {
	_, a, known, gen := w.cached()
	if known {
		return a, nil
	}
	r, err := xproto.GetProperty(w.conn, false, w.root, w.atoms.activeWindow, xproto.AtomWindow, 0, 1).Reply()
	if err != nil {
		return 0, fmt.Errorf("active window: %w", err)
	}
	a = 0
	if r.Format == 32 && len(r.Value) >= 4 {
		a = xproto.Window(binary.LittleEndian.Uint32(r.Value))
	}
	w.mu.Lock()
	if w.gen == gen {
		w.activeCache, w.activeKnown = a, true
	}
	w.mu.Unlock()
	return a, nil
}

// inputFocus maps the X input focus to the client window holding it: the focus window itself, an ancestor
// (focus on a child of the client) or a descendant (focus on the window manager's frame).
func (w *Windows) inputFocus(ids []xproto.Window) (uint32, error) {
	f, err := xproto.GetInputFocus(w.conn).Reply()
	if err != nil {
		return 0, fmt.Errorf("input focus: %w", err)
	}
	win := f.Focus
	if win == xproto.InputFocusNone || win == xproto.InputFocusPointerRoot || win == w.root {
		return 0, nil
	}
	for hop := 0; hop < 16 && win != 0 && win != w.root; hop++ {
		if slices.Contains(ids, win) {
			return uint32(win), nil
		}
		t, err := xproto.QueryTree(w.conn, win).Reply()
		if err != nil {
			return 0, nil // focus window destroyed meanwhile: nothing focused
		}
		if t.Parent == w.root {
			// win is a top-level frame: the client is inside it.
			return uint32(w.clientIn(win, ids, 3)), nil
		}
		win = t.Parent
	}
	return 0, nil
}

// clientIn searches the window tree under frame, depth levels deep, for a client window.
func (w *Windows) clientIn(frame xproto.Window, ids []xproto.Window, depth int) xproto.Window {
	if slices.Contains(ids, frame) {
		return frame
	}
	if depth == 0 {
		return 0
	}
	t, err := xproto.QueryTree(w.conn, frame).Reply()
	if err != nil {
		return 0
	}
	// Window managers put the client right inside the frame, next to decoration windows: look at the
	// children before descending into any of them, which saves a round trip per decoration.
	for _, c := range t.Children {
		if slices.Contains(ids, c) {
			return c
		}
	}
	for _, c := range t.Children {
		if id := w.clientIn(c, ids, depth-1); id != 0 {
			return id
		}
	}
	return 0
}

// At returns the topmost client window whose frame (title bar and borders included) contains the root
// point, 0 for none. The X server's own hit test finds the top-level window at the point; when that is not a
// managed frame (a menu, a tooltip), the client frames are searched top down by geometry.
func (w *Windows) At(ctx context.Context, x, y int32) (uint32, error) {
	ids, err := w.clients()
	if err != nil {
		return 0, err
	}
	t, err := xproto.TranslateCoordinates(w.conn, w.root, w.root, int16(x), int16(y)).Reply()
	if err != nil {
		return 0, fmt.Errorf("translate coordinates: %w", err)
	}
	if t.Child == 0 {
		return 0, nil
	}
	if id := w.clientIn(t.Child, ids, 3); id != 0 {
		return uint32(id), nil
	}
	for i := len(ids) - 1; i >= 0; i-- {
		frame := w.frameOf(ids[i])
		a, err := xproto.GetWindowAttributes(w.conn, frame).Reply()
		if err != nil || a.MapState != xproto.MapStateViewable {
			continue
		}
		g, err := xproto.GetGeometry(w.conn, xproto.Drawable(frame)).Reply()
		if err != nil {
			continue
		}
		bw := int32(g.BorderWidth)
		if x >= int32(g.X) && x < int32(g.X)+int32(g.Width)+2*bw && y >= int32(g.Y) && y < int32(g.Y)+int32(g.Height)+2*bw {
			return uint32(ids[i]), nil
		}
	}
	return 0, nil
}

// frameOf returns the top-level ancestor of a client (its window manager frame, or itself when unmanaged).
func (w *Windows) frameOf(id xproto.Window) xproto.Window {
	win := id
	for hop := 0; hop < 16; hop++ {
		t, err := xproto.QueryTree(w.conn, win).Reply()
		if err != nil || t.Parent == w.root || t.Parent == 0 {
			return win
		}
		win = t.Parent
	}
	return win
}

// Activate raises and focuses a client window: it asks the window manager (_NET_ACTIVE_WINDOW, source
// indication 2 as a pager would, so focus-stealing prevention does not refuse it), waits up to a second for
// the input focus to arrive, then falls back to SetInputFocus and raising the frame itself.
func (w *Windows) Activate(ctx context.Context, id uint32) error {
	ids, err := w.clients()
	if err != nil {
		return err
	}
	win := xproto.Window(id)
	if !slices.Contains(ids, win) {
		return fmt.Errorf("window %d is not a client window: %w", id, errdefs.ErrTargetGone)
	}
	current, _ := w.Focused(ctx)
	ev := xproto.ClientMessageEvent{Format: 32, Window: win, Type: w.atoms.activeWindow,
		Data: xproto.ClientMessageDataUnionData32New([]uint32{2, uint32(xproto.TimeCurrentTime), current, 0, 0})}
	if err := xproto.SendEventChecked(w.conn, false, w.root,
		xproto.EventMaskSubstructureNotify|xproto.EventMaskSubstructureRedirect, string(ev.Bytes())).Check(); err != nil {
		return fmt.Errorf("activate window %d: %w", id, err)
	}
	if ok, err := w.waitFocus(ctx, win, activateWait); ok || err != nil {
		return err
	}
	if !w.acceptsFocus(win) {
		// ICCCM's No Input model: the client never wants the keyboard focus, so it is not forced on it.
		return fmt.Errorf("window %d does not take the input focus (WM_HINTS input false, no WM_TAKE_FOCUS): %w",
			id, errdefs.ErrTimeout)
	}
	frame := w.frameOf(win)
	xproto.ConfigureWindow(w.conn, frame, xproto.ConfigWindowStackMode, []uint32{xproto.StackModeAbove})
	if err := xproto.SetInputFocusChecked(w.conn, xproto.InputFocusParent, win, xproto.TimeCurrentTime).Check(); err != nil {
		return fmt.Errorf("focus window %d: %w", id, err)
	}
	if ok, err := w.waitFocus(ctx, win, fallbackWait); ok || err != nil {
		return err
	}
	return fmt.Errorf("window %d did not take the input focus within %v: %w", id, activateWait+fallbackWait, errdefs.ErrTimeout)
}

// acceptsFocus reports whether a client takes the input focus under ICCCM: its WM_HINTS input field is
// true or absent, or it lists WM_TAKE_FOCUS in WM_PROTOCOLS.
func (w *Windows) acceptsFocus(win xproto.Window) bool {
	hints := xproto.GetProperty(w.conn, false, win, xproto.AtomWmHints, xproto.AtomWmHints, 0, 2)
	protos := xproto.GetProperty(w.conn, false, win, w.atoms.wmProtocols, xproto.AtomAtom, 0, 32)
	if r, err := protos.Reply(); err == nil && r.Format == 32 {
		for i := 0; i+4 <= len(r.Value); i += 4 {
			if xproto.Atom(binary.LittleEndian.Uint32(r.Value[i:])) == w.atoms.wmTakeFocus {
				hints.Reply()
				return true
			}
		}
	}
	r, err := hints.Reply()
	if err != nil || r.Format != 32 || len(r.Value) < 8 {
		return true
	}
	const inputHint = 1
	flags, input := binary.LittleEndian.Uint32(r.Value), binary.LittleEndian.Uint32(r.Value[4:])
	return flags&inputHint == 0 || input != 0
}

// waitFocus polls until the input focus is in win, for at most wait.
func (w *Windows) waitFocus(ctx context.Context, win xproto.Window, wait time.Duration) (bool, error) {
	deadline := time.Now().Add(wait)
	for {
		ids, err := w.clients()
		if err != nil {
			return false, err
		}
		if !slices.Contains(ids, win) {
			return false, fmt.Errorf("window %d: %w", win, errdefs.ErrTargetGone)
		}
		f, err := w.inputFocus(ids)
		if err != nil {
			return false, err
		}
		if f == uint32(win) {
			return true, nil
		}
		if time.Now().After(deadline) {
			return false, nil
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(focusPoll):
		}
	}
}
