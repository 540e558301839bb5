package input

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/jezek/xgb/xproto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/keysym"
)

// press is one physical key or button.
type press struct {
	button bool
	code   byte // keycode, or X button number
}

// hold is one press made by an action, with the keysym it was pressed for (keys only).
type hold struct {
	press
	sym keysym.Keysym
}

// holds is the registry of held input. A key or button pressed by several owners (or twice by one) is
// pressed once on the X server and released when its last holder releases it.
type holds struct {
	down  map[press]int
	owned map[string][]hold
}

func newHolds() holds {
	return holds{down: make(map[press]int), owned: make(map[string][]hold)}
}

func (h *holds) owners() []string {
	out := make([]string, 0, len(h.owned))
	for o := range h.owned {
		out = append(out, o)
	}
	sort.Strings(out)
	return out
}

// act is one action in progress: the presses it made and has not released yet, in order.
type act struct {
	d       *Device
	pressed []hold
}

func (d *Device) newAct() *act { return &act{d: d} }

// press presses h (unless another holder has it down already) and records it.
func (a *act) press(h hold) {
	d := a.d
	if d.holds.down[h.press] == 0 {
		if h.button {
			d.fake(xproto.ButtonPress, h.code, 0, 0)
			d.released &^= buttonMask(h.code)
		} else {
			d.fake(xproto.KeyPress, h.code, 0, 0)
		}
	}
	d.holds.down[h.press]++
	if b := d.spares.bound[xproto.Keycode(h.code)]; !h.button && b != nil {
		b.pinned++
	}
	a.pressed = append(a.pressed, h)
}

// release releases the last press of p this action made.
func (a *act) release(p press) {
	for j := len(a.pressed) - 1; j >= 0; j-- {
		if a.pressed[j].press == p {
			a.pressed = slices.Delete(a.pressed, j, j+1)
			a.d.unpress(p)
			return
		}
	}
}

// unpress drops one holder of p and releases it on the X server when it was the last.
func (d *Device) unpress(p press) {
	n := d.holds.down[p] - 1
	if n > 0 {
		d.holds.down[p] = n
	} else {
		delete(d.holds.down, p)
		if p.button {
			d.fake(xproto.ButtonRelease, p.code, 0, 0)
			d.released |= buttonMask(p.code)
		} else {
			d.fake(xproto.KeyRelease, p.code, 0, 0)
		}
	}
	if b := d.spares.bound[xproto.Keycode(p.code)]; !p.button && b != nil && b.pinned > 0 {
		b.pinned--
		if b.pinned == 0 {
			// The restore after the action that pressed it skipped the keycode while it was held; nothing
			// else would restore it (key_up and release_all bind nothing).
			d.scheduleRestore()
		}
	}
}

// abort releases everything the action still holds, in reverse order, and waits for the X server.
func (a *act) abort() {
	for i := len(a.pressed) - 1; i >= 0; i-- {
		a.d.unpress(a.pressed[i].press)
	}
	a.pressed = nil
	if err := a.d.sync(); err != nil {
		a.d.log.Warn("release after failed action", "err", err)
	}
}

// keep hands what the action still holds to owner.
func (a *act) keep(owner string) {
	if len(a.pressed) > 0 {
		a.d.holds.owned[owner] = append(a.d.holds.owned[owner], a.pressed...)
	}
	a.pressed = nil
}

// releaseOwned releases owner's last hold of p; false when owner does not hold p.
func (d *Device) releaseOwned(owner string, p press) bool {
	list := d.holds.owned[owner]
	for j := len(list) - 1; j >= 0; j-- {
		if list[j].press == p {
			list = slices.Delete(list, j, j+1)
			if len(list) == 0 {
				delete(d.holds.owned, owner)
			} else {
				d.holds.owned[owner] = list
			}
			d.unpress(p)
			return true
		}
	}
	return false
}

// releaseOwner releases everything owner holds, most recent first, and returns it in that order.
func (d *Device) releaseOwner(owner string) []*agentv1.HeldInput {
	list := d.holds.owned[owner]
	delete(d.holds.owned, owner)
	out := make([]*agentv1.HeldInput, 0, len(list))
	for j := len(list) - 1; j >= 0; j-- {
		d.unpress(list[j].press)
		out = append(out, list[j].report())
	}
	return out
}

// report describes a hold for the API.
func (h hold) report() *agentv1.HeldInput {
	if h.button {
		return &agentv1.HeldInput{Button: buttonOf(h.code)}
	}
	return &agentv1.HeldInput{Key: h.sym.String()}
}

// buttonOf maps an X button to the API's button (UNSPECIFIED for wheel buttons, never held).
func buttonOf(b byte) agentv1.MouseButton {
	switch b {
	case 1:
		return agentv1.MouseButton_MOUSE_BUTTON_LEFT
	case 2:
		return agentv1.MouseButton_MOUSE_BUTTON_MIDDLE
	case 3:
		return agentv1.MouseButton_MOUSE_BUTTON_RIGHT
	case 8:
		return agentv1.MouseButton_MOUSE_BUTTON_BACK
	case 9:
		return agentv1.MouseButton_MOUSE_BUTTON_FORWARD
	}
	return agentv1.MouseButton_MOUSE_BUTTON_UNSPECIFIED
}

// XButton maps the API's button to an X button number; LEFT when unspecified.
func XButton(b agentv1.MouseButton) byte {
	switch b {
	case agentv1.MouseButton_MOUSE_BUTTON_MIDDLE:
		return 2
	case agentv1.MouseButton_MOUSE_BUTTON_RIGHT:
		return 3
	case agentv1.MouseButton_MOUSE_BUTTON_BACK:
		return 8
	case agentv1.MouseButton_MOUSE_BUTTON_FORWARD:
		return 9
	}
	return 1
}

// ReleaseEverything releases every key and button the X server reports down, whoever pressed them (this
// device's owners, a killed earlier agent, another client), forgets every owner's holds, and says what it
// released.
func (d *Device) ReleaseEverything(ctx context.Context) ([]*agentv1.HeldInput, error) {
	_, done, err := d.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	var out []*agentv1.HeldInput
	// Ours first, most recent first, so the registry and the pins on spare keycodes stay right.
	for _, owner := range d.holds.owners() {
		out = append(out, d.releaseOwner(owner)...)
	}
	// Those releases must reach the server before it is asked what is down, or they are reported twice.
	if err := d.sync(); err != nil {
		return out, err
	}
	keys, err := xproto.QueryKeymap(d.conn).Reply()
	if err != nil {
		return out, fmt.Errorf("query keymap: %w: %w", errdefs.ErrUnavailable, err)
	}
	ptr, err := xproto.QueryPointer(d.conn, d.root).Reply()
	if err != nil {
		return out, fmt.Errorf("query pointer: %w: %w", errdefs.ErrUnavailable, err)
	}
	for i, bits := range keys.Keys {
		for bit := range 8 {
			if bits&(1<<bit) == 0 {
				continue
			}
			code := byte(i*8 + bit)
			d.fake(xproto.KeyRelease, code, 0, 0)
			out = append(out, &agentv1.HeldInput{Key: d.symAt(xproto.Keycode(code)).String()})
		}
	}
	for b := byte(1); b <= 5; b++ {
		if ptr.Mask&(xproto.ButtonMask1<<(b-1)) != 0 {
			d.fake(xproto.ButtonRelease, b, 0, 0)
			out = append(out, &agentv1.HeldInput{Button: buttonOf(b)})
		}
	}
	clear(d.holds.down)
	return out, d.sync()
}

// symAt returns the plain keysym of a keycode, 0 when it has none.
func (d *Device) symAt(code xproto.Keycode) keysym.Keysym {
	if b := d.spares.bound[code]; b != nil {
		return b.sym
	}
	var best keysym.Keysym
	for ks, p := range d.km.at {
		if p.code == code && p.level == 0 {
			best = ks
		}
	}
	return best
}
