package bidi

import (
	"context"
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	"glovebox.dev/guest/internal/browser"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/domkey"
	"glovebox.dev/shared/errdefs"
)

// releaseTimeout bounds a release sent after a failure (or by release_all): it is sent whatever the caller's
// context says, but a page whose script never yields acknowledges no input, and the release must not hang.
const releaseTimeout = 2 * time.Second

// typeChunk bounds the characters of one input.performActions of page_type and fill.
const typeChunk = 512

// Input source ids: the same ids across calls, so Firefox's input state keeps what page_key_down holds.
const (
	keyboardID = "glovebox-keyboard"
	mouseID    = "glovebox-mouse"
)

func releaseCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
}

// heldKey is a key held by page_key_down.
type heldKey struct {
	key domkey.Key
}

// webdriverKeys are the WebDriver key values (the spec's table of code points in the Private Use Area) of the
// non-character keys.
var webdriverKeys = map[string]string{
	"Backspace": "\uE003", "Tab": "\uE004", "Enter": "\uE007", "Shift": "\uE008", "Control": "\uE009", "Alt": "\uE00A",
	"Escape": "\uE00C", "PageUp": "\uE00E", "PageDown": "\uE00F", "End": "\uE010", "Home": "\uE011",
	"ArrowLeft": "\uE012", "ArrowUp": "\uE013", "ArrowRight": "\uE014", "ArrowDown": "\uE015", "Insert": "\uE016",
	"Delete": "\uE017", "Meta": "\uE03D",
	"F1": "\uE031", "F2": "\uE032", "F3": "\uE033", "F4": "\uE034", "F5": "\uE035", "F6": "\uE036",
	"F7": "\uE037", "F8": "\uE038", "F9": "\uE039", "F10": "\uE03A", "F11": "\uE03B", "F12": "\uE03C",
}

// keyValue is the WebDriver key value of a key; keys WebDriver has no value for (CapsLock, ContextMenu) are
// UNSUPPORTED_ACTION.
func keyValue(k domkey.Key) (string, error) {
	if v, ok := webdriverKeys[k.Key]; ok {
		return v, nil
	}
	if utf8.RuneCountInString(k.Key) == 1 {
		return k.Key, nil
	}
	return "", unsupported("key " + k.Key)
}

// action is one WebDriver input action (key, pointer or pause).
type action struct {
	Type     string   `json:"type"`
	Value    string   `json:"value,omitempty"`
	Button   *int     `json:"button,omitempty"`
	X        *float64 `json:"x,omitempty"`
	Y        *float64 `json:"y,omitempty"`
	Origin   string   `json:"origin,omitempty"`
	Duration *int     `json:"duration,omitempty"`
}

// source is one input source's actions.
type source struct {
	Type       string         `json:"type"`
	ID         string         `json:"id"`
	Parameters map[string]any `json:"parameters,omitempty"`
	Actions    []action       `json:"actions"`
}

func keys(actions ...action) source { return source{Type: "key", ID: keyboardID, Actions: actions} }

func mouse(actions ...action) source {
	return source{Type: "pointer", ID: mouseID, Parameters: map[string]any{"pointerType": "mouse"}, Actions: actions}
}

func keyDown(v string) action { return action{Type: "keyDown", Value: v} }
func keyUp(v string) action   { return action{Type: "keyUp", Value: v} }
func pause() action           { return action{Type: "pause"} }

func move(x, y float64) action {
	// WebDriver points are integers in the viewport.
	x, y = math.Round(x), math.Round(y)
	return action{Type: "pointerMove", X: &x, Y: &y, Origin: "viewport"}
}

func down(button int) action { return action{Type: "pointerDown", Button: &button} }
func up(button int) action   { return action{Type: "pointerUp", Button: &button} }

// perform sends key input (input.performActions) to the tab: trusted input, dispatched tick by tick (one action
// of each source per tick), answered once dispatched, in the browsing context that has the focus (focusedFrame:
// the tab's, or a frame's of it).
func (t *tab) perform(ctx context.Context, sources ...source) error {
	return t.performIn(ctx, t.focusedFrame(ctx), sources...)
}

var buttonNumbers = map[agentv1.MouseButton]int{
	agentv1.MouseButton_MOUSE_BUTTON_UNSPECIFIED: 0, agentv1.MouseButton_MOUSE_BUTTON_LEFT: 0,
	agentv1.MouseButton_MOUSE_BUTTON_MIDDLE: 1, agentv1.MouseButton_MOUSE_BUTTON_RIGHT: 2,
	agentv1.MouseButton_MOUSE_BUTTON_BACK: 3, agentv1.MouseButton_MOUSE_BUTTON_FORWARD: 4,
}

var modifierKeys = map[string]string{"shift": "Shift", "ctrl": "Control", "alt": "Alt", "meta": "Meta"}

// point scrolls the element into view and answers its center, where pointer input goes (framePoint); with
// check, a point where another element is on top is refused, naming that element (browser.Scripts.Point).
func (t *tab) point(ctx context.Context, loc *located, what string, check bool) (pointAt, error) {
	if loc.isPoint {
		return pointAt{in: t.id, x: loc.x, y: loc.y, topX: loc.x, topY: loc.y}, nil
	}
	var p framedPoint
	if err := t.call(ctx, loc, browser.Scripts.Point, what, &p, check); err != nil {
		return pointAt{}, err
	}
	return t.framePoint(ctx, loc, p, what, check)
}

// performIn is perform in browsing context in (the tab's, or a frame's of it).
func (t *tab) performIn(ctx context.Context, in string, sources ...source) error {
	return t.f.conn.call(ctx, "input.performActions", map[string]any{"context": in, "actions": sources}, nil)
}

// click clicks an element (scrolled into view, refused when covered) or a point with trusted pointer input: the
// move, presses and releases (and the modifiers asked for) in one input.performActions.
func (b *Backend) click(ctx context.Context, t *tab, owner string, c *agentv1.PageClick, resp *agentv1.ActResponse) error {
	loc, err := t.locate(c.GetLocator())
	if err != nil {
		return err
	}
	resp.Target.ElementRef, resp.Target.SnapshotId = loc.ref, loc.snap
	at, err := t.point(ctx, loc, "page_click", true)
	if err != nil {
		return err
	}
	x, y := at.x, at.y
	button := buttonNumbers[c.GetButton()]
	var mods []string
	for _, m := range c.GetModifiers() {
		mods = append(mods, webdriverKeys[modifierKeys[m]])
	}
	// Tick by tick: the modifiers go down, then the pointer moves, presses and releases, then the modifiers
	// come up; the other source pauses meanwhile.
	var kb, ms []action
	for _, m := range mods {
		kb, ms = append(kb, keyDown(m)), append(ms, pause())
	}
	kb, ms = append(kb, pause()), append(ms, move(x, y))
	for range max(c.GetCount(), 1) {
		kb, ms = append(kb, pause(), pause()), append(ms, down(button), up(button))
	}
	for i := len(mods) - 1; i >= 0; i-- {
		kb, ms = append(kb, keyUp(mods[i])), append(ms, pause())
	}
	sources := []source{mouse(ms...)}
	if len(mods) > 0 {
		sources = append(sources, keys(kb...))
	}
	if err := t.performIn(ctx, at.in, sources...); err != nil {
		// Never leave the button or a modifier down: releasing what is not pressed is harmless.
		rctx, cancel := releaseCtx(ctx)
		defer cancel()
		rel := []source{mouse(up(button))}
		if len(mods) > 0 {
			var ups []action
			for _, m := range mods {
				ups = append(ups, keyUp(m))
			}
			rel = append(rel, keys(ups...))
		}
		t.performIn(rctx, at.in, rel...)
		return err
	}
	resp.Pointer = &agentv1.Point{X: int32(at.topX), Y: int32(at.topY)}
	return nil
}

// hover moves the pointer over an element.
func (t *tab) hover(ctx context.Context, h *agentv1.Hover, resp *agentv1.ActResponse) error {
	loc, err := t.locate(h.GetLocator())
	if err != nil {
		return err
	}
	resp.Target.ElementRef, resp.Target.SnapshotId = loc.ref, loc.snap
	at, err := t.point(ctx, loc, "hover", true)
	if err != nil {
		return err
	}
	resp.Pointer = &agentv1.Point{X: int32(at.topX), Y: int32(at.topY)}
	return t.performIn(ctx, at.in, mouse(move(at.x, at.y)))
}

// drag presses the left button at from, moves in steps to to and releases there, in one input.performActions; a
// failure releases the button.
func (t *tab) drag(ctx context.Context, d *agentv1.PageDrag, resp *agentv1.ActResponse) error {
	from, err := t.locate(d.GetFrom())
	if err != nil {
		return err
	}
	fat, err := t.point(ctx, from, "page_drag.from", false)
	if err != nil {
		return err
	}
	to, err := t.locate(d.GetTo())
	if err != nil {
		return err
	}
	tat, err := t.point(ctx, to, "page_drag.to", false)
	if err != nil {
		return err
	}
	// Within one frame, in its browsing context; across frames, in the tab's.
	in, fx, fy, tx, ty := fat.in, fat.x, fat.y, tat.x, tat.y
	if fat.in != tat.in {
		in, fx, fy, tx, ty = t.id, fat.topX, fat.topY, tat.topX, tat.topY
	}
	resp.Target.ElementRef, resp.Target.SnapshotId = from.ref, from.snap
	steps := int(d.GetSteps())
	if steps == 0 {
		steps = 10
	}
	ms := []action{move(fx, fy), down(0)}
	for i := 1; i <= steps; i++ {
		ms = append(ms, move(fx+(tx-fx)*float64(i)/float64(steps), fy+(ty-fy)*float64(i)/float64(steps)))
	}
	ms = append(ms, up(0))
	if err := t.performIn(ctx, in, mouse(ms...)); err != nil {
		rctx, cancel := releaseCtx(ctx)
		defer cancel()
		t.performIn(rctx, in, mouse(up(0)))
		return err
	}
	resp.Pointer = &agentv1.Point{X: int32(tat.topX), Y: int32(tat.topY)}
	return nil
}

// textActions are the key actions that type text: each character pressed and released, newlines as Enter.
func textActions(text string) []action {
	var out []action
	for _, r := range text {
		v := string(r)
		if r == '\n' {
			v = webdriverKeys["Enter"]
		}
		out = append(out, keyDown(v), keyUp(v))
	}
	return out
}

// typeText types into the focused element with trusted key input, typeChunk characters per
// input.performActions; with a delay, one character at a time.
func (t *tab) typeText(ctx context.Context, text string, delay time.Duration) (int, error) {
	return t.typeTextIn(ctx, t.focusedFrame(ctx), text, delay)
}

// typeTextIn is typeText into browsing context in (the tab's, or the frame's that has the focus).
func (t *tab) typeTextIn(ctx context.Context, in, text string, delay time.Duration) (int, error) {
	typed := 0
	runes := []rune(text)
	step := typeChunk
	if delay > 0 {
		step = 1
	}
	for i := 0; i < len(runes); i += step {
		part := runes[i:min(i+step, len(runes))]
		if err := t.performIn(ctx, in, keys(textActions(string(part))...)); err != nil {
			return typed, err
		}
		typed += len(part)
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-ctx.Done():
				return typed, fmt.Errorf("page_type: %w: %w", errdefs.ErrInterrupted, ctx.Err())
			}
		}
	}
	return typed, nil
}

// fill focuses a field and selects all of it (one round trip, locating included), types the text over the
// selection with trusted key input and reads the value back: performActions answers once the keys are
// dispatched, so the read comes after them.
func (t *tab) fill(ctx context.Context, f *agentv1.Fill, resp *agentv1.ActResponse) error {
	loc, err := t.locate(f.GetLocator())
	if err != nil {
		return err
	}
	resp.Target.ElementRef, resp.Target.SnapshotId = loc.ref, loc.snap
	if loc.isPoint {
		loc.spec = &locSpec{Pt: []float64{loc.x, loc.y}}
	}
	if err := t.call(ctx, loc, browser.Scripts.FocusField, "fill", nil); err != nil {
		return err
	}
	// The keys go where the field is: the tab's context, or its frame's.
	in := t.id
	if loc.frame != nil {
		in = loc.frame.ctx
	}
	if f.GetText() == "" {
		err = t.performIn(ctx, in, keys(keyDown(webdriverKeys["Delete"]), keyUp(webdriverKeys["Delete"])))
	} else {
		_, err = t.typeTextIn(ctx, in, f.GetText(), 0)
	}
	if err != nil {
		return fmt.Errorf("fill: %w", err)
	}
	var v struct {
		Value    string
		Editable bool
	}
	if err := t.call(ctx, loc, browser.Scripts.Value, "fill: read back", &v); err != nil {
		return err
	}
	resp.Value = v.Value
	if !browser.FillMatches(v.Value, v.Editable, f.GetText()) {
		return fmt.Errorf("fill: the value read back (%d bytes) differs from the text filled (%d bytes): the page changed or refused it: %w",
			len(v.Value), len(f.GetText()), errdefs.ErrInternal)
	}
	resp.Effect = agentv1.Effect_EFFECT_VERIFIED
	return nil
}

// press presses a combination repeat times in one input.performActions: its modifiers go down in order, the last
// key is pressed, the modifiers come up in reverse. Keys held by page_key_down stay down in Firefox's input
// state and apply. A failure releases the keys it pressed.
func (t *tab) press(ctx context.Context, combo string, repeat int) error {
	ks, err := domkey.Parse(combo)
	if err != nil {
		return err
	}
	vals := make([]string, len(ks))
	for i, k := range ks {
		if vals[i], err = keyValue(k); err != nil {
			return err
		}
	}
	var acts []action
	for range repeat {
		for _, v := range vals {
			acts = append(acts, keyDown(v))
		}
		for i := len(vals) - 1; i >= 0; i-- {
			acts = append(acts, keyUp(vals[i]))
		}
	}
	if err := t.perform(ctx, keys(acts...)); err != nil {
		rctx, cancel := releaseCtx(ctx)
		defer cancel()
		var ups []action
		for i := len(vals) - 1; i >= 0; i-- {
			ups = append(ups, keyUp(vals[i]))
		}
		t.perform(rctx, keys(ups...))
		return err
	}
	return nil
}

// keyDown presses a key and keeps it held for the owner on this tab.
func (b *Backend) keyDown(ctx context.Context, t *tab, owner, name string) error {
	k, ok := domkey.Lookup(name)
	if !ok {
		return fmt.Errorf("page_key_down: unknown key: %w", errdefs.ErrInvalidArgument)
	}
	v, err := keyValue(k)
	if err != nil {
		return err
	}
	if err := t.perform(ctx, keys(keyDown(v))); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.held[owner] == nil {
		b.held[owner] = map[tabKey][]heldKey{}
	}
	b.held[owner][t.key()] = append(b.held[owner][t.key()], heldKey{k})
	return nil
}

// keyUp releases a key the owner holds on this tab (a key not held is still released: harmless).
func (b *Backend) keyUp(ctx context.Context, t *tab, owner, name string) error {
	k, ok := domkey.Lookup(name)
	if !ok {
		return fmt.Errorf("page_key_up: unknown key: %w", errdefs.ErrInvalidArgument)
	}
	v, err := keyValue(k)
	if err != nil {
		return err
	}
	b.mu.Lock()
	list := b.held[owner][t.key()]
	for i := len(list) - 1; i >= 0; i-- {
		if list[i].key.Key == k.Key {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	b.setHeld(owner, t.key(), list)
	b.mu.Unlock()
	return t.perform(ctx, keys(keyUp(v)))
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
	if b.held[owner] == nil {
		b.held[owner] = map[tabKey][]heldKey{}
	}
	b.held[owner][k] = list
}

// releaseTab releases every key owner holds on t, in reverse order.
func (b *Backend) releaseTab(ctx context.Context, owner string, t *tab) []string {
	b.mu.Lock()
	list := b.held[owner][t.key()]
	b.setHeld(owner, t.key(), nil)
	b.mu.Unlock()
	if len(list) == 0 {
		return nil
	}
	ctx, cancel := releaseCtx(ctx)
	defer cancel()
	var ups []action
	var names []string
	for i := len(list) - 1; i >= 0; i-- {
		if v, err := keyValue(list[i].key); err == nil {
			ups = append(ups, keyUp(v))
		}
	}
	for _, h := range list {
		names = append(names, h.key.Key)
	}
	if t.alive() {
		t.perform(ctx, keys(ups...))
	}
	return names
}

// ReleaseOwner releases every key owner holds on any Firefox tab (release_all for the owner, the end of a
// session). It answers the keys released.
func (b *Backend) ReleaseOwner(ctx context.Context, owner string) []string {
	b.mu.Lock()
	var ks []tabKey
	for k := range b.held[owner] {
		ks = append(ks, k)
	}
	b.mu.Unlock()
	var released []string
	for _, k := range ks {
		b.mu.Lock()
		f := b.browsers[k.port]
		b.mu.Unlock()
		var t *tab
		if f != nil {
			f.mu.Lock()
			t = f.tabsByID[k.tab]
			f.mu.Unlock()
		}
		if t == nil {
			b.mu.Lock()
			for _, h := range b.held[owner][k] {
				released = append(released, h.key.Key)
			}
			b.setHeld(owner, k, nil)
			b.mu.Unlock()
			continue
		}
		released = append(released, b.releaseTab(ctx, owner, t)...)
	}
	return released
}
