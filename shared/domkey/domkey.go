// Package domkey parses DOM key names ("Enter", "Control+a", "Shift+ArrowLeft") as page actions name them, and
// says for each key what a browser's key event carries: key, code, Windows virtual key code and text. It holds no
// CDP code: the agent's browser backend turns a Key into Input.dispatchKeyEvent, shared/validate checks names.
package domkey

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"glovebox.dev/shared/errdefs"
)

// MaxKeys bounds the keys of one combination.
const MaxKeys = 8

// Modifier bits as the DevTools protocol numbers them (Input.dispatchKeyEvent modifiers).
const (
	ModAlt   = 1
	ModCtrl  = 2
	ModMeta  = 4
	ModShift = 8
)

// Key is one key of a combination.
type Key struct {
	// Key is the DOM KeyboardEvent.key value ("Enter", "a", "Shift").
	Key string
	// Code is the DOM KeyboardEvent.code value ("Enter", "KeyA", "ShiftLeft"); empty for characters that no US
	// keyboard key produces.
	Code string
	// KeyCode is the Windows virtual key code (KeyboardEvent.keyCode); 0 when none.
	KeyCode int
	// Text is what the key types without modifiers ("\r" for Enter, "a" for a); empty for non-printing keys.
	Text string
	// ShiftText is what it types with Shift held ("A" for a); empty when the same as Text.
	ShiftText string
	// Modifier is the key's modifier bit (ModShift for Shift), 0 for other keys.
	Modifier int
	// Location is KeyboardEvent.location (1 for the left modifiers).
	Location int
}

// TextWith is what the key types with the modifier bits held: nothing when Control, Alt or Meta is held.
func (k Key) TextWith(mods int) string {
	if mods&(ModCtrl|ModAlt|ModMeta) != 0 {
		return ""
	}
	if mods&ModShift != 0 && k.ShiftText != "" {
		return k.ShiftText
	}
	return k.Text
}

// named are the non-character keys, with the aliases people write.
var named = map[string]Key{}

// namedFold are the named keys and aliases by lower case: the providers' tool shapes send "ENTER", "ESC",
// "ARROWLEFT", "CMD", "OPTION". Single characters never fold ("A" is Shift+a's key, not "a").
var namedFold = map[string]Key{}

func add(k Key, aliases ...string) {
	for _, n := range append([]string{k.Key}, aliases...) {
		named[n] = k
		if utf8.RuneCountInString(n) > 1 {
			namedFold[strings.ToLower(n)] = k
		}
	}
}

func init() {
	add(Key{Key: "Shift", Code: "ShiftLeft", KeyCode: 16, Modifier: ModShift, Location: 1})
	add(Key{Key: "Control", Code: "ControlLeft", KeyCode: 17, Modifier: ModCtrl, Location: 1}, "Ctrl")
	add(Key{Key: "Alt", Code: "AltLeft", KeyCode: 18, Modifier: ModAlt, Location: 1}, "Option")
	add(Key{Key: "Meta", Code: "MetaLeft", KeyCode: 91, Modifier: ModMeta, Location: 1}, "Command", "Cmd", "Super", "Win")
	add(Key{Key: "Enter", Code: "Enter", KeyCode: 13, Text: "\r"}, "Return")
	add(Key{Key: "Tab", Code: "Tab", KeyCode: 9})
	add(Key{Key: "Backspace", Code: "Backspace", KeyCode: 8})
	add(Key{Key: "Delete", Code: "Delete", KeyCode: 46}, "Del")
	add(Key{Key: "Escape", Code: "Escape", KeyCode: 27}, "Esc")
	add(Key{Key: " ", Code: "Space", KeyCode: 32, Text: " "}, "Space")
	add(Key{Key: "ArrowLeft", Code: "ArrowLeft", KeyCode: 37}, "Left")
	add(Key{Key: "ArrowUp", Code: "ArrowUp", KeyCode: 38}, "Up")
	add(Key{Key: "ArrowRight", Code: "ArrowRight", KeyCode: 39}, "Right")
	add(Key{Key: "ArrowDown", Code: "ArrowDown", KeyCode: 40}, "Down")
	add(Key{Key: "Home", Code: "Home", KeyCode: 36})
	add(Key{Key: "End", Code: "End", KeyCode: 35})
	add(Key{Key: "PageUp", Code: "PageUp", KeyCode: 33}, "Page_Up", "PgUp")
	add(Key{Key: "PageDown", Code: "PageDown", KeyCode: 34}, "Page_Down", "PgDn")
	add(Key{Key: "Insert", Code: "Insert", KeyCode: 45}, "Ins")
	add(Key{Key: "CapsLock", Code: "CapsLock", KeyCode: 20})
	add(Key{Key: "ContextMenu", Code: "ContextMenu", KeyCode: 93})
	for i := 1; i <= 12; i++ {
		n := fmt.Sprintf("F%d", i)
		add(Key{Key: n, Code: n, KeyCode: 111 + i})
	}
	for c := 'a'; c <= 'z'; c++ {
		lower, upper := string(c), string(c-'a'+'A')
		k := Key{Key: lower, Code: "Key" + upper, KeyCode: int(c - 'a' + 'A'), Text: lower, ShiftText: upper}
		chars[lower] = k
		ku := k
		ku.Key, ku.Text, ku.ShiftText = upper, upper, ""
		chars[upper] = ku
	}
	const shifted = ")!@#$%^&*("
	for d := '0'; d <= '9'; d++ {
		s := string(d)
		chars[s] = Key{Key: s, Code: "Digit" + s, KeyCode: int(d), Text: s, ShiftText: string(shifted[d-'0'])}
		sk := chars[s]
		sk.Key, sk.Text, sk.ShiftText = string(shifted[d-'0']), string(shifted[d-'0']), ""
		if _, ok := chars[sk.Key]; !ok {
			chars[sk.Key] = sk
		}
	}
	for _, p := range []struct {
		plain, shift, code string
		vk                 int
	}{
		{"-", "_", "Minus", 189}, {"=", "+", "Equal", 187}, {"[", "{", "BracketLeft", 219},
		{"]", "}", "BracketRight", 221}, {"\\", "|", "Backslash", 220}, {";", ":", "Semicolon", 186},
		{"'", "\"", "Quote", 222}, {",", "<", "Comma", 188}, {".", ">", "Period", 190},
		{"/", "?", "Slash", 191}, {"`", "~", "Backquote", 192},
	} {
		chars[p.plain] = Key{Key: p.plain, Code: p.code, KeyCode: p.vk, Text: p.plain, ShiftText: p.shift}
		chars[p.shift] = Key{Key: p.shift, Code: p.code, KeyCode: p.vk, Text: p.shift}
	}
}

// chars are the printable keys of a US keyboard.
var chars = map[string]Key{}

// Lookup returns the key a single DOM key name stands for: a named key ("Enter", "ArrowLeft", "F5", an alias
// such as "Ctrl", "Cmd", "Option", "Esc"; in any case, "ENTER" or "arrowleft", as tool shapes send them), or
// any single character ("a", "é", "中"), which types itself.
func Lookup(name string) (Key, bool) {
	if k, ok := named[name]; ok {
		return k, true
	}
	if k, ok := chars[name]; ok {
		return k, true
	}
	if r, size := utf8.DecodeRuneInString(name); size == len(name) && r != utf8.RuneError && r >= ' ' && r != 0x7f {
		return Key{Key: name, Text: name}, true
	}
	if k, ok := namedFold[strings.ToLower(name)]; ok {
		return k, true
	}
	return Key{}, false
}

// Parse splits a combination ("Control+Shift+ArrowLeft", "Control++") into its keys, modifiers first as
// written. It fails with an error wrapping errdefs.ErrInvalidArgument naming the bad part.
func Parse(s string) ([]Key, error) {
	if s == "" {
		return nil, fmt.Errorf("empty key: %w", errdefs.ErrInvalidArgument)
	}
	var parts []string
	rest := s
	for rest != "" {
		i := strings.IndexByte(rest, '+')
		switch {
		case i < 0:
			parts = append(parts, rest)
			rest = ""
		case i == 0:
			// A '+' at the start of a part is the key "+" itself ("Control++", "+").
			parts = append(parts, "+")
			rest = rest[1:]
			if rest != "" {
				if rest[0] != '+' {
					return nil, fmt.Errorf("%q: '+' key must be last: %w", s, errdefs.ErrInvalidArgument)
				}
				rest = rest[1:]
				if rest == "" {
					return nil, fmt.Errorf("%q ends with '+': %w", s, errdefs.ErrInvalidArgument)
				}
			}
		default:
			parts = append(parts, rest[:i])
			rest = rest[i+1:]
			if rest == "" {
				return nil, fmt.Errorf("%q ends with '+': %w", s, errdefs.ErrInvalidArgument)
			}
		}
	}
	if len(parts) > MaxKeys {
		return nil, fmt.Errorf("%d keys, at most %d: %w", len(parts), MaxKeys, errdefs.ErrInvalidArgument)
	}
	keys := make([]Key, 0, len(parts))
	for _, p := range parts {
		k, ok := Lookup(p)
		if !ok {
			return nil, fmt.Errorf("unknown DOM key %s (names such as Enter, Tab, ArrowLeft, F5, Control, Shift, or one character): %w",
				quote(p), errdefs.ErrInvalidArgument)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// quote quotes a bad key name for an error, cut to 32 bytes.
func quote(s string) string {
	if len(s) > 32 {
		cut := 32
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return fmt.Sprintf("%q...", s[:cut])
	}
	return fmt.Sprintf("%q", s)
}
