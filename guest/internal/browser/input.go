package browser

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/domkey"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// releaseTimeout bounds a release sent after a failure (or by release_all): it is sent whatever the caller's
// context says, but a page whose script never yields acknowledges no input, and the release must not hang.
const releaseTimeout = 2 * time.Second

// releaseCtx is the context of a release: not cancelled with ctx, bounded by releaseTimeout.
func releaseCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
}

// heldKey is a key held by page_key_down.
type heldKey struct {
	key domkey.Key
}

// heldMods are the modifier bits of the keys owner holds on t.
func (b *Backend) heldMods(owner string, t *tab) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	m := 0
	for _, k := range b.held[owner][t.tabKey()] {
		m |= k.key.Modifier
	}
	return m
}

var buttonNames = map[agentv1.MouseButton]input.MouseButton{
	agentv1.MouseButton_MOUSE_BUTTON_UNSPECIFIED: input.MouseButtonLeft, agentv1.MouseButton_MOUSE_BUTTON_LEFT: input.MouseButtonLeft,
	agentv1.MouseButton_MOUSE_BUTTON_MIDDLE: input.MouseButtonMiddle, agentv1.MouseButton_MOUSE_BUTTON_RIGHT: input.MouseButtonRight,
	agentv1.MouseButton_MOUSE_BUTTON_BACK: input.MouseButtonBack, agentv1.MouseButton_MOUSE_BUTTON_FORWARD: input.MouseButtonForward,
}

var buttonBits = map[input.MouseButton]int64{input.MouseButtonLeft: 1, input.MouseButtonRight: 2, input.MouseButtonMiddle: 4, input.MouseButtonBack: 8, input.MouseButtonForward: 16}

var modifierBits = map[string]int{"shift": domkey.ModShift, "ctrl": domkey.ModCtrl, "alt": domkey.ModAlt, "meta": domkey.ModMeta}

func (t *tab) mouse(ctx context.Context, typ input.DispatchMouseEventType, x, y float64, button input.MouseButton, buttons int64, count int64, mods int) error {
	p := input.DispatchMouseEventParams{Type: typ, X: x, Y: y, Modifiers: int64(mods), Buttons: buttons, ClickCount: count}
	if typ != input.DispatchMouseEventTypeMouseMoved {
		p.Button = button
	}
	_, err := cdp.Call(ctx, t.s, input.DispatchMouseEvent, p)
	return err
}

// click clicks an element (scrolled into view, refused when covered) or a point with trusted mouse events.
func (b *Backend) click(ctx context.Context, t *tab, owner string, c *agentv1.PageClick, resp *agentv1.ActResponse) error {
	loc, err := t.locate(ctx, c.GetLocator(), "page_click")
	if err != nil {
		return err
	}
	resp.Target.ElementRef, resp.Target.SnapshotId = loc.ref, loc.snap
	x, y, err := t.point(ctx, loc, "page_click", true)
	if err != nil {
		return err
	}
	mods := b.heldMods(owner, t)
	for _, m := range c.GetModifiers() {
		mods |= modifierBits[m]
	}
	button := buttonNames[c.GetButton()]
	bits := buttonBits[button]
	// Move, then press and release count times, sent as one batch (see conn.batch).
	ev := func(typ input.DispatchMouseEventType, b input.MouseButton, buttons, count int64) command {
		return command{method: "Input.dispatchMouseEvent", params: input.DispatchMouseEventParams{Type: typ, X: x, Y: y, Modifiers: int64(mods),
			Button: b, Buttons: buttons, ClickCount: count}}
	}
	cmds := []command{ev(input.DispatchMouseEventTypeMouseMoved, input.MouseButtonNone, 0, 0)}
	for i := int64(1); i <= int64(max(c.GetCount(), 1)); i++ {
		cmds = append(cmds, ev(input.DispatchMouseEventTypeMousePressed, button, bits, i), ev(input.DispatchMouseEventTypeMouseReleased, button, 0, i))
	}
	if err := t.c.conn.batch(ctx, t.s, cmds); err != nil {
		// Never leave the button down: a release for a press that did not happen is harmless.
		rctx, cancel := releaseCtx(ctx)
		defer cancel()
		t.mouse(rctx, input.DispatchMouseEventTypeMouseReleased, x, y, button, 0, 1, mods)
		return err
	}
	resp.Pointer = &agentv1.Point{X: int32(x), Y: int32(y)}
	return nil
}

// hover moves the pointer over an element.
func (b *Backend) hover(ctx context.Context, t *tab, owner string, h *agentv1.Hover, resp *agentv1.ActResponse) error {
	loc, err := t.locate(ctx, h.GetLocator(), "hover")
	if err != nil {
		return err
	}
	resp.Target.ElementRef, resp.Target.SnapshotId = loc.ref, loc.snap
	x, y, err := t.point(ctx, loc, "hover", true)
	if err != nil {
		return err
	}
	resp.Pointer = &agentv1.Point{X: int32(x), Y: int32(y)}
	return t.mouse(ctx, input.DispatchMouseEventTypeMouseMoved, x, y, input.MouseButtonNone, 0, 0, b.heldMods(owner, t))
}

// drag presses the left button at from, moves in steps to to and releases there; a failure part way releases
// the button.
func (b *Backend) drag(ctx context.Context, t *tab, owner string, d *agentv1.PageDrag, resp *agentv1.ActResponse) error {
	from, err := t.locate(ctx, d.GetFrom(), "page_drag.from")
	if err != nil {
		return err
	}
	fx, fy, err := t.point(ctx, from, "page_drag.from", false)
	if err != nil {
		return err
	}
	to, err := t.locate(ctx, d.GetTo(), "page_drag.to")
	if err != nil {
		return err
	}
	tx, ty, err := t.point(ctx, to, "page_drag.to", false)
	if err != nil {
		return err
	}
	resp.Target.ElementRef, resp.Target.SnapshotId = from.ref, from.snap
	mods := b.heldMods(owner, t)
	steps := int(d.GetSteps())
	if steps == 0 {
		steps = 10
	}
	if err := t.mouse(ctx, input.DispatchMouseEventTypeMouseMoved, fx, fy, input.MouseButtonNone, 0, 0, mods); err != nil {
		return err
	}
	if err := t.mouse(ctx, input.DispatchMouseEventTypeMousePressed, fx, fy, input.MouseButtonLeft, 1, 1, mods); err != nil {
		return err
	}
	for i := 1; i <= steps; i++ {
		x := fx + (tx-fx)*float64(i)/float64(steps)
		y := fy + (ty-fy)*float64(i)/float64(steps)
		if err := t.mouse(ctx, input.DispatchMouseEventTypeMouseMoved, x, y, input.MouseButtonNone, 1, 0, mods); err != nil {
			rctx, cancel := releaseCtx(ctx)
			defer cancel()
			t.mouse(rctx, input.DispatchMouseEventTypeMouseReleased, x, y, input.MouseButtonLeft, 0, 1, mods)
			return err
		}
	}
	resp.Pointer = &agentv1.Point{X: int32(tx), Y: int32(ty)}
	return t.mouse(ctx, input.DispatchMouseEventTypeMouseReleased, tx, ty, input.MouseButtonLeft, 0, 1, mods)
}

// fill focuses a field and selects all (one round trip, locating included), replaces it with text through
// Input.insertText and reads the value back.
func (t *tab) fill(ctx context.Context, f *agentv1.Fill, resp *agentv1.ActResponse) error {
	loc, err := t.locateCall(ctx, f.GetLocator(), "fill", jsFocusField)
	if err != nil {
		return err
	}
	resp.Target.ElementRef, resp.Target.SnapshotId = loc.ref, loc.snap
	var v fieldValue
	if f.GetText() == "" {
		if err := t.key(ctx, mustKey("Delete"), 0); err != nil {
			return err
		}
		if err := t.call(ctx, loc, jsValue, "fill: read back", &v); err != nil {
			return err
		}
	} else {
		// The text and a first read-back go as one batch. The read-back travels on another channel than the
		// input and may overtake it: a read that does not match, or that still finds the whole text selected as
		// focusing left it (the insert has not replaced it yet, even when the old text equals the new), is
		// repeated; by then the insert is acknowledged, so the second read comes after it.
		var res runtime.CallFunctionOnResult
		err := t.c.conn.batch(ctx, loc.s, []command{
			{method: "Input.insertText", params: input.InsertTextParams{Text: f.GetText()}},
			{method: "Runtime.callFunctionOn", params: t.callParams(loc.obj, jsValue, nil), res: &res},
		})
		if err != nil {
			return fmt.Errorf("fill: %w", err)
		}
		if err := decodeResult(res.Result, res.ExceptionDetails, "fill: read back", &v); err != nil {
			return err
		}
		if v.Whole || !v.matches(f.GetText()) {
			v = fieldValue{}
			if err := t.call(ctx, loc, jsValue, "fill: read back", &v); err != nil {
				return err
			}
		}
	}
	resp.Value = v.Value
	if !v.matches(f.GetText()) {
		// The fill was done; the page changed the value (maxlength, a mask). What it holds is page text.
		return errgrpc.WithMetadata(fmt.Errorf("fill: the value read back (%d bytes) differs from the text filled (%d bytes): the page changed or refused it; it is in metadata %s: %w",
			len(v.Value), len(f.GetText()), errgrpc.Untrusted("read_back"), errdefs.ErrValueMismatch),
			map[string]string{errgrpc.Untrusted("read_back"): errgrpc.UntrustedValue(v.Value), "read_back_bytes": strconv.Itoa(len(v.Value))})
	}
	resp.Effect = agentv1.Effect_EFFECT_VERIFIED
	return nil
}

// fieldValue is a field's value read back by jsValue.
type fieldValue struct {
	Value string
	// Editable says the element is contenteditable (Value is its text); Whole that its whole text is selected.
	Editable, Whole bool
}

// matches reports whether the value read back is text; contenteditable text is compared with non-breaking
// spaces as spaces and without trailing newlines.
func (v fieldValue) matches(text string) bool {
	if !v.Editable {
		return v.Value == text
	}
	return strings.TrimRight(strings.ReplaceAll(v.Value, "\u00a0", " "), "\n") == strings.TrimRight(text, "\n")
}

// typeText types into the focused element: runs of text through Input.insertText, newlines as Enter; with a
// delay, one character at a time.
func (t *tab) typeText(ctx context.Context, text string, delay time.Duration) (int, error) {
	typed := 0
	insert := func(s string) error {
		if s == "" {
			return nil
		}
		if _, err := cdp.Call(ctx, t.s, input.InsertText, input.InsertTextParams{Text: s}); err != nil {
			return err
		}
		typed += utf8.RuneCountInString(s)
		return nil
	}
	for i, line := range strings.Split(text, "\n") {
		if i > 0 {
			if err := t.key(ctx, mustKey("Enter"), 0); err != nil {
				return typed, err
			}
			typed++
		}
		if delay == 0 {
			if err := insert(line); err != nil {
				return typed, err
			}
			continue
		}
		for _, r := range line {
			if err := insert(string(r)); err != nil {
				return typed, err
			}
			select {
			case <-time.After(delay):
			case <-ctx.Done():
				return typed, fmt.Errorf("page_type: %w: %w", errdefs.ErrInterrupted, ctx.Err())
			}
		}
	}
	return typed, nil
}

func mustKey(name string) domkey.Key {
	k, _ := domkey.Lookup(name)
	return k
}

// keyEvent sends one key event.
func (t *tab) keyEvent(ctx context.Context, down bool, k domkey.Key, mods int) error {
	p := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: k.Key, Code: k.Code, WindowsVirtualKeyCode: int64(k.KeyCode),
		NativeVirtualKeyCode: int64(k.KeyCode), Modifiers: int64(mods), Location: int64(k.Location)}
	if mods&domkey.ModShift != 0 && k.ShiftText != "" {
		// Shift held: the key is the shifted character ("A", "!"), as a keyboard reports it.
		p.Key = k.ShiftText
	}
	if down {
		p.Type = input.DispatchKeyEventTypeRawKeyDown
		if text := k.TextWith(mods); text != "" {
			p.Type, p.Text, p.UnmodifiedText = input.DispatchKeyEventTypeKeyDown, text, k.Text
		}
	}
	_, err := cdp.Call(ctx, t.s, input.DispatchKeyEvent, p)
	return err
}

// key presses and releases one key with the modifier bits held.
func (t *tab) key(ctx context.Context, k domkey.Key, mods int) error {
	if err := t.keyEvent(ctx, true, k, mods); err != nil {
		return err
	}
	return t.keyEvent(ctx, false, k, mods)
}

// press presses a combination repeat times: its modifiers go down in order, the last key is pressed, the
// modifiers come up in reverse; keys held by page_key_down count as modifiers. A failure part way releases the
// modifiers it pressed.
func (b *Backend) press(ctx context.Context, t *tab, owner, combo string, repeat int) error {
	keys, err := domkey.Parse(combo)
	if err != nil {
		return err
	}
	mods := b.heldMods(owner, t)
	for range repeat {
		m := mods
		var down []domkey.Key
		var err error
		for _, k := range keys[:len(keys)-1] {
			m |= k.Modifier
			if err = t.keyEvent(ctx, true, k, m); err != nil {
				break
			}
			down = append(down, k)
		}
		if err == nil {
			last := keys[len(keys)-1]
			err = t.key(ctx, last, m|last.Modifier)
		}
		rctx, cancel := releaseCtx(ctx)
		for i := len(down) - 1; i >= 0; i-- {
			m &^= down[i].Modifier
			if e := t.keyEvent(rctx, false, down[i], m); e != nil && err == nil {
				err = e
			}
		}
		cancel()
		if err != nil {
			return err
		}
	}
	return nil
}

// keyDown presses a key and keeps it held for the owner on this tab.
func (b *Backend) keyDown(ctx context.Context, t *tab, owner, name string) error {
	k, ok := domkey.Lookup(name)
	if !ok {
		return fmt.Errorf("page_key_down: unknown key: %w", errdefs.ErrInvalidArgument)
	}
	mods := b.heldMods(owner, t) | k.Modifier
	if err := t.keyEvent(ctx, true, k, mods); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.held[owner] == nil {
		b.held[owner] = map[tabKey][]heldKey{}
	}
	b.held[owner][t.tabKey()] = append(b.held[owner][t.tabKey()], heldKey{k})
	return nil
}

// keyUp releases a key the owner holds on this tab (a key not held is still released: harmless).
func (b *Backend) keyUp(ctx context.Context, t *tab, owner, name string) error {
	k, ok := domkey.Lookup(name)
	if !ok {
		return fmt.Errorf("page_key_up: unknown key: %w", errdefs.ErrInvalidArgument)
	}
	b.mu.Lock()
	list := b.held[owner][t.tabKey()]
	for i := len(list) - 1; i >= 0; i-- {
		if list[i].key.Key == k.Key {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	b.setHeld(owner, t.tabKey(), list)
	b.mu.Unlock()
	return t.keyEvent(ctx, false, k, b.heldMods(owner, t))
}

// setHeld stores an owner's held keys on a tab; b.mu is held.
func (b *Backend) setHeld(owner string, k tabKey, list []heldKey) {
	if len(list) == 0 {
		delete(b.held[owner], k)
		if len(b.held[owner]) == 0 {
			delete(b.held, owner)
		}
		return
	}
	b.held[owner][k] = list
}

// releaseTab releases every key owner holds on t, in reverse order.
func (b *Backend) releaseTab(ctx context.Context, owner string, t *tab) {
	b.mu.Lock()
	list := b.held[owner][t.tabKey()]
	b.setHeld(owner, t.tabKey(), nil)
	b.mu.Unlock()
	ctx, cancel := releaseCtx(ctx)
	defer cancel()
	mods := 0
	for _, k := range list {
		mods |= k.key.Modifier
	}
	for i := len(list) - 1; i >= 0; i-- {
		mods &^= list[i].key.Modifier
		t.keyEvent(ctx, false, list[i].key, mods)
	}
}

// ReleaseOwner releases every key owner holds on any tab (release_all for the owner, the end of a session). It
// answers the keys released.
func (b *Backend) ReleaseOwner(ctx context.Context, owner string) []string {
	b.mu.Lock()
	var keys []tabKey
	for k := range b.held[owner] {
		keys = append(keys, k)
	}
	b.mu.Unlock()
	var released []string
	for _, k := range keys {
		b.mu.Lock()
		for _, h := range b.held[owner][k] {
			released = append(released, h.key.Key)
		}
		c := b.browsers[k.port]
		b.mu.Unlock()
		var t *tab
		if c != nil {
			c.mu.Lock()
			t = c.tabs[k.tab]
			c.mu.Unlock()
		}
		if t == nil {
			b.mu.Lock()
			b.setHeld(owner, k, nil)
			b.mu.Unlock()
			continue
		}
		b.releaseTab(ctx, owner, t)
	}
	return released
}
