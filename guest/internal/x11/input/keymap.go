package input

import (
	"fmt"
	"slices"
	"time"

	"github.com/jezek/xgb/xproto"

	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/keysym"
)

// Keysyms the device presses for shift levels.
const (
	symShiftL      keysym.Keysym = 0xffe1
	symLevel3Shift keysym.Keysym = 0xfe03
)

// keyPos is where a keysym sits on the keyboard: a keycode and the shift level that produces it
// (0 plain, 1 Shift, 2 ISO_Level3_Shift, 3 both).
type keyPos struct {
	code  xproto.Keycode
	level int
}

// keymap is the core keyboard mapping as the server reports it, indexed by keysym.
type keymap struct {
	at     map[keysym.Keysym]keyPos
	shift  xproto.Keycode // 0 when the keymap has no Shift_L
	level3 xproto.Keycode // 0 when the keymap has no ISO_Level3_Shift
}

// levelColumns are the core keymap columns of levels 0..3 for group 1 as XKB lays them out: columns 2 and
// 3 are group 2, columns 4 and 5 are level 3 and 4 of group 1.
var levelColumns = [4]int{0, 1, 4, 5}

// refreshKeymap fetches the keyboard mapping, rebuilds the keysym index and finds the spare keycodes (no
// keysym at all). Keycodes bound by the device to typed characters are neither indexed nor spare.
func (d *Device) refreshKeymap() error {
	d.stale.Store(false)
	setup := xproto.Setup(d.conn)
	count := int(setup.MaxKeycode) - int(setup.MinKeycode) + 1
	r, err := xproto.GetKeyboardMapping(d.conn, setup.MinKeycode, byte(count)).Reply()
	if err != nil {
		return fmt.Errorf("keyboard mapping: %w: %w", errdefs.ErrUnavailable, err)
	}
	per := int(r.KeysymsPerKeycode)
	km := &keymap{at: make(map[keysym.Keysym]keyPos)}
	var empty []xproto.Keycode
	for i := 0; i < count && (i+1)*per <= len(r.Keysyms); i++ {
		code := xproto.Keycode(int(setup.MinKeycode) + i)
		syms := r.Keysyms[i*per : (i+1)*per]
		if d.spares.isBound(code) {
			continue
		}
		if !slices.ContainsFunc(syms, func(s xproto.Keysym) bool { return s != 0 }) {
			empty = append(empty, code)
			continue
		}
		for level, col := range levelColumns {
			if col >= per || syms[col] == 0 {
				continue
			}
			ks := keysym.Keysym(syms[col])
			if old, ok := km.at[ks]; !ok || level < old.level {
				km.at[ks] = keyPos{code: code, level: level}
			}
		}
	}
	if p, ok := km.at[symShiftL]; ok && p.level == 0 {
		km.shift = p.code
	}
	if p, ok := km.at[symLevel3Shift]; ok && p.level == 0 {
		km.level3 = p.code
	}
	d.km = km
	d.spares.setFree(empty)
	return nil
}

// usable reports whether the device can produce level p.level on its own: it needs the level's modifiers.
func (km *keymap) usable(p keyPos) bool {
	if p.level&1 != 0 && km.shift == 0 {
		return false
	}
	if p.level&2 != 0 && km.level3 == 0 {
		return false
	}
	return true
}

// spares tracks the keycodes with no keysym that the device binds to characters missing from the keymap.
type spares struct {
	free  []xproto.Keycode // sorted; unbound
	bound map[xproto.Keycode]*binding
	bySym map[keysym.Keysym]xproto.Keycode
}

// binding is a spare keycode bound to a keysym.
type binding struct {
	sym    keysym.Keysym
	pinned int       // presses still held through this keycode; it cannot be rebound while pinned
	used   time.Time // last key event sent through it
	burst  uint64    // the bind burst that last used it; a keycode is not rebound within its own burst
}

func newSpares() *spares {
	return &spares{bound: make(map[xproto.Keycode]*binding), bySym: make(map[keysym.Keysym]xproto.Keycode)}
}

func (s *spares) isBound(code xproto.Keycode) bool { _, ok := s.bound[code]; return ok }

func (s *spares) setFree(codes []xproto.Keycode) { s.free = codes }

// rebindGuard is how long a spare keycode keeps its character after a key event went through it before it
// may be bound to another one in the same burst of typing: the client must have handled the key first.
const rebindGuard = 40 * time.Millisecond

// bindSyms binds every keysym of syms that is neither in the keymap nor bound already to a spare keycode,
// in one burst: keycodes used by this burst (burst) are never taken back for another keysym. It returns how
// many of syms it could bind (a prefix); the caller types that prefix and starts a new burst for the rest.
func (d *Device) bindSyms(syms []keysym.Keysym, burst uint64) (int, error) {
	s := d.spares
	type change struct {
		code xproto.Keycode
		sym  keysym.Keysym
	}
	var changes []change
	var waitUntil time.Time
	n := 0
	for _, ks := range syms {
		if p, ok := d.km.at[ks]; ok && d.km.usable(p) {
			n++
			continue
		}
		if code, ok := s.bySym[ks]; ok {
			s.bound[code].burst = burst
			n++
			continue
		}
		code, ok := s.take(burst)
		if !ok {
			break
		}
		if b := s.bound[code]; b != nil {
			if t := b.used.Add(rebindGuard); t.After(waitUntil) {
				waitUntil = t
			}
			delete(s.bySym, b.sym)
		}
		s.bound[code] = &binding{sym: ks, burst: burst}
		s.bySym[ks] = code
		changes = append(changes, change{code, ks})
		n++
	}
	if len(changes) == 0 {
		return n, nil
	}
	if w := time.Until(waitUntil); w > 0 {
		time.Sleep(w)
	}
	slices.SortFunc(changes, func(a, b change) int { return int(a.code) - int(b.code) })
	// One request per run of consecutive keycodes: each request makes every client fetch the keymap again.
	for i := 0; i < len(changes); {
		j := i + 1
		for j < len(changes) && changes[j].code == changes[j-1].code+1 {
			j++
		}
		syms := make([]xproto.Keysym, 0, 2*(j-i))
		for _, c := range changes[i:j] {
			// Both columns, so the character comes out whether or not Shift is down (as xdotool does).
			syms = append(syms, xproto.Keysym(c.sym), xproto.Keysym(c.sym))
		}
		xproto.ChangeKeyboardMapping(d.conn, byte(j-i), changes[i].code, 2, syms)
		i = j
	}
	// The new mapping must be in force before the events that use it, which travel on another connection.
	return n, d.syncX()
}

// take returns a spare keycode for a new binding: a free one first, else the least recently used bound one
// that is neither pinned nor used by the current burst.
func (s *spares) take(burst uint64) (xproto.Keycode, bool) {
	if len(s.free) > 0 {
		code := s.free[0]
		s.free = s.free[1:]
		return code, true
	}
	var best xproto.Keycode
	var bestB *binding
	for code, b := range s.bound {
		if b.pinned > 0 || b.burst == burst {
			continue
		}
		if bestB == nil || b.used.Before(bestB.used) || (b.used.Equal(bestB.used) && code < best) {
			best, bestB = code, b
		}
	}
	return best, bestB != nil
}

// restoreSpares maps every bound spare keycode that no held key pins back to no keysym.
func (d *Device) restoreSpares() {
	s := d.spares
	var codes []xproto.Keycode
	for code, b := range s.bound {
		if b.pinned == 0 {
			codes = append(codes, code)
		}
	}
	if len(codes) == 0 {
		return
	}
	slices.Sort(codes)
	for i := 0; i < len(codes); {
		j := i + 1
		for j < len(codes) && codes[j] == codes[j-1]+1 {
			j++
		}
		xproto.ChangeKeyboardMapping(d.conn, byte(j-i), codes[i], 2, make([]xproto.Keysym, 2*(j-i)))
		i = j
	}
	for _, code := range codes {
		delete(s.bySym, s.bound[code].sym)
		delete(s.bound, code)
	}
	s.free = append(s.free, codes...)
	slices.Sort(s.free)
}

// scheduleRestore restores the spare keycodes restoreDelay after the last action that used them.
func (d *Device) scheduleRestore() {
	if len(d.spares.bound) == 0 {
		return
	}
	if d.restore != nil {
		d.restore.Stop()
	}
	d.restore = time.AfterFunc(restoreDelay, func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.closed {
			return
		}
		d.restoreSpares()
		if err := d.syncX(); err != nil {
			d.log.Warn("restore spare keycodes", "err", err)
		}
	})
}

// lookup returns where ks is: in the keymap, or on a spare keycode bound to it (level 0). ok is false when
// ks must be bound first.
func (d *Device) lookup(ks keysym.Keysym) (keyPos, bool) {
	if p, ok := d.km.at[ks]; ok && d.km.usable(p) {
		return p, true
	}
	if code, ok := d.spares.bySym[ks]; ok {
		return keyPos{code: code}, true
	}
	return keyPos{}, false
}
