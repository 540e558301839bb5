package input

import (
	"context"
	"fmt"
	"time"

	"github.com/jezek/xgb/xproto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/keysym"
)

// Keysyms typed for control characters.
const (
	symReturn keysym.Keysym = 0xff0d
	symTab    keysym.Keysym = 0xff09
)

// Wheel buttons: X reports the wheel as buttons 4 (up), 5 (down), 6 (left), 7 (right).
const (
	wheelUp, wheelDown, wheelLeft, wheelRight byte = 4, 5, 6, 7
)

// run performs one action: fn presses through a, and a failure (error or ctx ended) releases everything a
// still holds. On success it syncs with the X server; keep says who keeps what a still holds.
func (d *Device) run(ctx context.Context, what string, fn func(ctx context.Context, a *act) error, keep string) error {
	ctx, done, err := d.begin(ctx)
	if err != nil {
		return err
	}
	defer done()
	if d.stale.Load() {
		if err := d.refreshKeymap(); err != nil {
			return err
		}
	}
	d.released = 0
	a := d.newAct()
	if err := fn(ctx, a); err != nil {
		a.abort()
		return err
	}
	if err := ctx.Err(); err != nil {
		a.abort()
		return interrupted(ctx, what)
	}
	if err := d.sync(); err != nil {
		a.abort()
		return err
	}
	if d.released != 0 {
		d.awaitThaw(ctx)
	}
	if keep != "" {
		a.keep(keep)
	} else if len(a.pressed) > 0 {
		a.abort()
	}
	return nil
}

// motion moves the pointer to p (nil: stays where it is).
func (d *Device) motion(p *agentv1.Point) {
	if p != nil {
		d.fake(xproto.MotionNotify, 0, int16(p.GetX()), int16(p.GetY()))
	}
}

// Move moves the pointer to to.
func (d *Device) Move(ctx context.Context, to *agentv1.Point) error {
	return d.run(ctx, "move", func(context.Context, *act) error {
		d.motion(to)
		return nil
	}, "")
}

// Click clicks button count times at at (nil: where the pointer is) with mods held.
func (d *Device) Click(ctx context.Context, at *agentv1.Point, button agentv1.MouseButton, count int, mods keysym.Combo) error {
	return d.run(ctx, "click", func(ctx context.Context, a *act) error {
		if err := a.pressCombo(mods); err != nil {
			return err
		}
		d.motion(at)
		b := press{button: true, code: XButton(button)}
		for range max(count, 1) {
			a.press(hold{press: b})
			a.release(b)
		}
		a.releaseAll()
		return nil
	}, "")
}

// MouseDown presses button at at (nil: where the pointer is); owner holds it afterwards.
func (d *Device) MouseDown(ctx context.Context, owner string, at *agentv1.Point, button agentv1.MouseButton) error {
	return d.run(ctx, "mouse down", func(ctx context.Context, a *act) error {
		d.motion(at)
		a.press(hold{press: press{button: true, code: XButton(button)}})
		return nil
	}, owner)
}

// MouseUp moves to at (nil: stays) and releases button if owner holds it; a button owner does not hold is
// left alone (another owner may hold it).
func (d *Device) MouseUp(ctx context.Context, owner string, at *agentv1.Point, button agentv1.MouseButton) error {
	return d.run(ctx, "mouse up", func(ctx context.Context, a *act) error {
		d.motion(at)
		d.releaseOwned(owner, press{button: true, code: XButton(button)})
		return nil
	}, "")
}

// Drag presses button at path[0] with mods held, moves through the path pausing stepDelay after each
// motion, and releases at the last point. Failing or cancelled part way, it releases button and mods.
func (d *Device) Drag(ctx context.Context, path []*agentv1.Point, button agentv1.MouseButton, stepDelay time.Duration, mods keysym.Combo) error {
	return d.run(ctx, "drag", func(ctx context.Context, a *act) error {
		if len(path) == 0 {
			return fmt.Errorf("drag: empty path: %w", errdefs.ErrInvalidArgument)
		}
		if err := a.pressCombo(mods); err != nil {
			return err
		}
		d.motion(path[0])
		b := press{button: true, code: XButton(button)}
		a.press(hold{press: b})
		for _, p := range path[1:] {
			if stepDelay > 0 {
				if err := d.sync(); err != nil {
					return err
				}
				if err := sleep(ctx, stepDelay, "drag"); err != nil {
					return err
				}
			} else if ctx.Err() != nil {
				return interrupted(ctx, "drag")
			}
			d.motion(p)
		}
		a.releaseAll()
		return nil
	}, "")
}

// Scroll turns the wheel at at (nil: where the pointer is) with mods held: dy > 0 down, dx > 0 right.
func (d *Device) Scroll(ctx context.Context, at *agentv1.Point, dx, dy int, mods keysym.Combo) error {
	return d.run(ctx, "scroll", func(ctx context.Context, a *act) error {
		if err := a.pressCombo(mods); err != nil {
			return err
		}
		d.motion(at)
		turn := func(n int, neg, pos byte) {
			code := pos
			if n < 0 {
				code, n = neg, -n
			}
			for range n {
				b := press{button: true, code: code}
				a.press(hold{press: b})
				a.release(b)
			}
		}
		turn(dy, wheelUp, wheelDown)
		turn(dx, wheelLeft, wheelRight)
		a.releaseAll()
		return nil
	}, "")
}

// Key presses and releases combo repeat times.
func (d *Device) Key(ctx context.Context, combo keysym.Combo, repeat int) error {
	return d.run(ctx, "key", func(ctx context.Context, a *act) error {
		for range max(repeat, 1) {
			if ctx.Err() != nil {
				return interrupted(ctx, "key")
			}
			if err := a.pressCombo(combo); err != nil {
				return err
			}
			a.releaseAll()
		}
		return nil
	}, "")
}

// KeyDown presses combo; owner holds it afterwards.
func (d *Device) KeyDown(ctx context.Context, owner string, combo keysym.Combo) error {
	return d.run(ctx, "key down", func(ctx context.Context, a *act) error {
		return a.pressCombo(combo)
	}, owner)
}

// KeyUp releases the keys of combo that owner holds, in reverse order; keys owner does not hold are left
// alone.
func (d *Device) KeyUp(ctx context.Context, owner string, combo keysym.Combo) error {
	return d.run(ctx, "key up", func(ctx context.Context, a *act) error {
		for i := len(combo) - 1; i >= 0; i-- {
			p, ok := d.lookup(combo[i])
			if !ok {
				continue // never pressed: it is on no keycode
			}
			d.releaseOwned(owner, press{code: byte(p.code)})
			for _, m := range d.levelMods(p.level) {
				d.releaseOwned(owner, press{code: byte(m.code)})
			}
		}
		return nil
	}, "")
}

// HoldKey presses combo, holds it for dur and releases it; cancelled, it releases at once.
func (d *Device) HoldKey(ctx context.Context, combo keysym.Combo, dur time.Duration) error {
	return d.run(ctx, "hold key", func(ctx context.Context, a *act) error {
		if err := a.pressCombo(combo); err != nil {
			return err
		}
		if err := d.sync(); err != nil {
			return err
		}
		if err := sleep(ctx, dur, "hold key"); err != nil {
			return err
		}
		a.releaseAll()
		return nil
	}, "")
}

// ReleaseAll releases everything owner holds, most recent first, and says what it released.
func (d *Device) ReleaseAll(ctx context.Context, owner string) ([]*agentv1.HeldInput, error) {
	ctx, done, err := d.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	d.released = 0
	out := d.releaseOwner(owner)
	if err := d.sync(); err != nil {
		return out, err
	}
	if d.released != 0 {
		d.awaitThaw(ctx)
	}
	return out, nil
}

// Held returns what owner holds, in press order.
func (d *Device) Held(owner string) []*agentv1.HeldInput {
	d.mu.Lock()
	defer d.mu.Unlock()
	list := d.holds.owned[owner]
	out := make([]*agentv1.HeldInput, len(list))
	for i, h := range list {
		out[i] = h.report()
	}
	return out
}

// levelMods returns the modifier keys that select a shift level.
func (d *Device) levelMods(level int) []hold {
	var out []hold
	if level&1 != 0 {
		out = append(out, hold{press: press{code: byte(d.km.shift)}, sym: symShiftL})
	}
	if level&2 != 0 {
		out = append(out, hold{press: press{code: byte(d.km.level3)}, sym: symLevel3Shift})
	}
	return out
}

// pressCombo presses every key of combo in order, each with the modifiers of its shift level, binding
// keysyms missing from the keymap to spare keycodes first.
func (a *act) pressCombo(combo keysym.Combo) error {
	d := a.d
	if n, err := d.bindSyms(combo, d.nextBurst()); err != nil {
		return err
	} else if n < len(combo) {
		return fmt.Errorf("key %s: no spare keycode to bind it to: %w", combo[n], errdefs.ErrResourceExhausted)
	}
	for _, ks := range combo {
		p, _ := d.lookup(ks)
		for _, m := range d.levelMods(p.level) {
			a.press(m)
		}
		a.press(hold{press: press{code: byte(p.code)}, sym: ks})
		d.touch(p.code)
	}
	if len(combo) > 0 {
		d.scheduleRestore()
	}
	return nil
}

// releaseAll releases what the action holds, most recent first.
func (a *act) releaseAll() {
	for i := len(a.pressed) - 1; i >= 0; i-- {
		a.d.unpress(a.pressed[i].press)
	}
	a.pressed = a.pressed[:0]
}

// touch records that a key event went through code, if it is a bound spare keycode.
func (d *Device) touch(code xproto.Keycode) {
	if b := d.spares.bound[code]; b != nil {
		b.used = time.Now()
	}
}

// nextBurst starts a new burst of spare keycode bindings.
func (d *Device) nextBurst() uint64 {
	d.bursts++
	return d.bursts
}

// Type types text: \n as Return, \t as Tab, characters missing from the keymap through spare keycodes bound
// to them. It pauses delay between characters and returns how many characters it typed and how many of
// those went through a spare keycode.
func (d *Device) Type(ctx context.Context, text string, delay time.Duration) (typed, remapped int, err error) {
	syms := make([]keysym.Keysym, 0, len(text))
	for _, r := range text {
		switch r {
		case '\n':
			syms = append(syms, symReturn)
		case '\t':
			syms = append(syms, symTab)
		default:
			syms = append(syms, keysym.ForRune(r))
		}
	}
	err = d.run(ctx, "type", func(ctx context.Context, a *act) error {
		defer d.scheduleRestore()
		for i := 0; i < len(syms); {
			burst := d.nextBurst()
			n, err := d.bindSyms(syms[i:], burst)
			if err != nil {
				return err
			}
			if n == 0 {
				return fmt.Errorf("type %s: no spare keycode to bind it to: %w", syms[i], errdefs.ErrResourceExhausted)
			}
			for _, ks := range syms[i : i+n] {
				if ctx.Err() != nil {
					return interrupted(ctx, "type")
				}
				p, _ := d.lookup(ks)
				if d.spares.isBound(p.code) {
					remapped++
				}
				a.tap(p, ks)
				typed++
				if delay > 0 {
					if err := d.sync(); err != nil {
						return err
					}
					if err := sleep(ctx, delay, "type"); err != nil {
						return err
					}
				}
			}
			i += n
			if i < len(syms) {
				// The next burst may rebind these spare keycodes: the X server must have processed the events
				// typed through them first. The last burst is synced by run.
				if err := d.sync(); err != nil {
					return err
				}
			}
			now := time.Now()
			for _, b := range d.spares.bound {
				if b.burst == burst {
					b.used = now
				}
			}
		}
		return nil
	}, "")
	return typed, remapped, err
}

// tap presses and releases the key at p with the modifiers of its level.
func (a *act) tap(p keyPos, ks keysym.Keysym) {
	mods := a.d.levelMods(p.level)
	for _, m := range mods {
		a.press(m)
	}
	k := press{code: byte(p.code)}
	a.press(hold{press: k, sym: ks})
	a.release(k)
	for i := len(mods) - 1; i >= 0; i-- {
		a.release(mods[i].press)
	}
}
