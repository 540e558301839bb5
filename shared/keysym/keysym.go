// Package keysym names X11 keysyms: a table generated from the X headers (keysymdef.h, XF86keysym.h),
// lookups with friendly aliases ("ctrl", "enter", "pgup", single characters), and key combos such as
// "ctrl+shift+t". It imports nothing of X11: the guest maps keysyms to keycodes itself.
package keysym

//go:generate go run gen.go

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Keysym is an X11 keysym value. 0 is NoSymbol.
type Keysym uint32

// unicodeBase is the offset of the keysyms that stand for a Unicode character directly (0x01000000 + code
// point), as X defines them for characters without a legacy keysym.
const unicodeBase = 0x01000000

// entry is one row of the generated table.
type entry struct {
	name      string
	value     Keysym
	unicode   rune
	canonical bool
}

// Keysyms used by the aliases and the modifier set.
const (
	ShiftL         Keysym = 0xffe1
	ShiftR         Keysym = 0xffe2
	ControlL       Keysym = 0xffe3
	ControlR       Keysym = 0xffe4
	MetaL          Keysym = 0xffe7
	MetaR          Keysym = 0xffe8
	AltL           Keysym = 0xffe9
	AltR           Keysym = 0xffea
	SuperL         Keysym = 0xffeb
	SuperR         Keysym = 0xffec
	HyperL         Keysym = 0xffed
	HyperR         Keysym = 0xffee
	ISOLevel3Shift Keysym = 0xfe03
	ISOLevel5Shift Keysym = 0xfe11
	ModeSwitch     Keysym = 0xff7e
	Return         Keysym = 0xff0d
	Tab            Keysym = 0xff09
	BackSpace      Keysym = 0xff08
	Escape         Keysym = 0xff1b
	Delete         Keysym = 0xffff
	Plus           Keysym = 0x002b
)

// modifiers are the names accepted by Modifier (and by the modifiers fields of pointer actions).
var modifiers = map[string]Keysym{
	"shift":   ShiftL,
	"ctrl":    ControlL,
	"control": ControlL,
	"alt":     AltL,
	"super":   SuperL,
	"meta":    MetaL,
	"hyper":   HyperL,
	"altgr":   ISOLevel3Shift,
}

// aliases are friendly names beyond the X names, matched case-insensitively.
var aliases = map[string]Keysym{
	"win":     SuperL,
	"cmd":     SuperL,
	"command": SuperL,
	"option":  AltL,
	// DOM names, as the providers' tool shapes send them (ArrowLeft, ARROWLEFT).
	"arrowleft":   0xff51, // Left
	"arrowup":     0xff52, // Up
	"arrowright":  0xff53, // Right
	"arrowdown":   0xff54, // Down
	"enter":       Return,
	"esc":         Escape,
	"del":         Delete,
	"ins":         0xff63, // Insert
	"pgup":        0xff55, // Prior
	"pageup":      0xff55,
	"pgdn":        0xff56, // Next
	"pagedown":    0xff56,
	"capslock":    0xffe5, // Caps_Lock
	"numlock":     0xff7f, // Num_Lock
	"scrolllock":  0xff14, // Scroll_Lock
	"printscreen": 0xff61, // Print
	"prtsc":       0xff61,
	"menu":        0xff67, // Menu
}

// byLower maps lower-cased X names to keysyms; when two names differ only in case ("Agrave", "agrave") the
// first in table order wins, and an exact-case lookup finds the other.
var byLower = sync.OnceValue(func() map[string]Keysym {
	m := make(map[string]Keysym, len(table))
	for _, e := range table {
		l := strings.ToLower(e.name)
		if _, ok := m[l]; !ok {
			m[l] = e.value
		}
	}
	return m
})

// byValue is the table indexes of canonical names sorted by value, for String, and the legacy keysym of each
// Unicode character, for ForRune.
var byValue = sync.OnceValues(func() ([]int, map[rune]Keysym) {
	var idx []int
	uni := map[rune]Keysym{}
	for i, e := range table {
		if e.canonical {
			idx = append(idx, i)
		}
		if e.unicode != 0 {
			if k, ok := uni[e.unicode]; !ok || e.value < k {
				uni[e.unicode] = e.value
			}
		}
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(table[a].value, table[b].value) })
	return idx, uni
})

// Lookup finds a keysym by name: an exact X name ("Return", "XF86AudioPlay", "a"), then an X name in any case
// ("return"), then an alias (ctrl, control, shift, alt, super, win, cmd, meta, hyper, altgr, enter, esc, del,
// ins, pgup, pageup, pgdn, pagedown, ...), then a single character ("A", "/", "é": its keysym, see ForRune),
// then "U+20AC" / "U20AC" (a Unicode keysym) and "0xff0d" (a raw value).
func Lookup(name string) (Keysym, bool) {
	if name == "" {
		return 0, false
	}
	if i, ok := slices.BinarySearchFunc(table[:], name, func(e entry, n string) int { return strings.Compare(e.name, n) }); ok {
		return table[i].value, true
	}
	lower := strings.ToLower(name)
	if k, ok := byLower()[lower]; ok {
		return k, true
	}
	if k, ok := modifiers[lower]; ok {
		return k, true
	}
	if k, ok := aliases[lower]; ok {
		return k, true
	}
	if r, size := utf8.DecodeRuneInString(name); size == len(name) && r != utf8.RuneError {
		if k := ForRune(r); k != 0 {
			return k, true
		}
	}
	switch {
	case strings.HasPrefix(lower, "u+") || (strings.HasPrefix(lower, "u") && len(lower) >= 5):
		hex := strings.TrimPrefix(strings.TrimPrefix(lower, "u"), "+")
		if n, err := strconv.ParseUint(hex, 16, 32); err == nil && len(hex) <= 6 {
			if k := ForRune(rune(n)); k != 0 {
				return k, true
			}
		}
	case strings.HasPrefix(lower, "0x") && len(lower) <= 10:
		if n, err := strconv.ParseUint(lower[2:], 16, 32); err == nil && n != 0 {
			return Keysym(n), true
		}
	}
	return 0, false
}

// String returns the canonical X name of k ("Return"), "U20AC" for a Unicode keysym without a name (X's own
// spelling), or "0x..." for a value with no name.
func (k Keysym) String() string {
	idx, _ := byValue()
	if i, ok := slices.BinarySearchFunc(idx, k, func(i int, k Keysym) int { return cmp.Compare(table[i].value, k) }); ok {
		return table[idx[i]].name
	}
	if k&0xff000000 == unicodeBase {
		return fmt.Sprintf("U%04X", uint32(k)&0xffffff)
	}
	return fmt.Sprintf("%#x", uint32(k))
}

// ForRune returns the keysym that types r: Latin-1 characters are their own keysym, newline and carriage
// return are Return, tab is Tab, backspace is BackSpace; other characters get the legacy keysym whose Unicode
// mapping is r when the X headers define one ("€" is EuroSign), else the Unicode keysym 0x01000000+r. It
// returns 0 (NoSymbol) for other control characters and for values that are not Unicode characters.
func ForRune(r rune) Keysym {
	switch {
	case r == '\n' || r == '\r':
		return Return
	case r == '\t':
		return Tab
	case r == '\b':
		return BackSpace
	case r == 0x1b:
		return Escape
	case r < 0x20 || (r >= 0x7f && r < 0xa0):
		return 0
	case r < 0x100:
		return Keysym(r)
	case !utf8.ValidRune(r):
		return 0
	}
	if _, uni := byValue(); uni[r] != 0 {
		return uni[r]
	}
	return Keysym(unicodeBase | r)
}

// Rune returns the character k types, or 0 when k types none (function keys, modifiers).
func (k Keysym) Rune() rune {
	switch {
	case k >= 0x20 && k <= 0x7e, k >= 0xa0 && k <= 0xff:
		return rune(k)
	case k&0xff000000 == unicodeBase:
		if r := rune(k & 0xffffff); utf8.ValidRune(r) && r >= 0x100 {
			return r
		}
		return 0
	}
	idx, _ := byValue()
	if i, ok := slices.BinarySearchFunc(idx, k, func(i int, k Keysym) int { return cmp.Compare(table[i].value, k) }); ok {
		return table[idx[i]].unicode
	}
	return 0
}

// IsModifier reports whether k is a modifier key: Shift, Control, Alt, Meta, Super, Hyper (left and right),
// ISO_Level3_Shift (AltGr), ISO_Level5_Shift and Mode_switch. Lock keys (Caps_Lock, Num_Lock) are not.
func IsModifier(k Keysym) bool {
	switch k {
	case ShiftL, ShiftR, ControlL, ControlR, MetaL, MetaR, AltL, AltR, SuperL, SuperR, HyperL, HyperR,
		ISOLevel3Shift, ISOLevel5Shift, ModeSwitch:
		return true
	}
	return false
}

// Modifier resolves one of the modifier names shift, ctrl, control, alt, super, meta, hyper, altgr (in any
// case) to its left-hand keysym.
func Modifier(name string) (Keysym, bool) {
	k, ok := modifiers[strings.ToLower(name)]
	return k, ok
}
