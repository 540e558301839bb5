// Package keysym names X11 keysyms: a table generated from the X headers (keysymdef.h, XF86keysym.h),
// lookups with friendly aliases ("ctrl", "enter", "pgup", single characters), and key combos like
// "ctrl+shift+t". It has no X11 dependency: the guest maps keysyms to keycodes itself.
package keysym

//go:generate go run gen.go

// Keysym is an X11 keysym value.
type Keysym uint32

// Combo is a key combination in press order (modifiers first); release is in reverse order.
type Combo []Keysym

// MaxComboKeys bounds the keys of one combo.
const MaxComboKeys = 8

// Lookup finds a keysym by X name (exact first, then case-insensitively), by alias, or by a single character.
func Lookup(name string) (Keysym, bool) { return 0, false }

// String returns the X name of k, or "U+XXXX"/"0x..." when it has none.
func (k Keysym) String() string { return "" }

// ForRune returns the keysym for r.
func ForRune(r rune) Keysym { return 0 }

// ParseCombo parses "ctrl+s", "alt+Tab", "ctrl++".
func ParseCombo(s string) (Combo, error) { return nil, nil }

// IsModifier reports whether k is a modifier key.
func IsModifier(k Keysym) bool { return false }

// Modifier resolves a modifier name (shift ctrl control alt super meta hyper altgr).
func Modifier(name string) (Keysym, bool) { return 0, false }
