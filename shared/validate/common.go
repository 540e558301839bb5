package validate

import (
	"fmt"
	"unicode"
	"unicode/utf8"

	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/keysym"
)

// Request bounds shared by the agent and the broker. docs/API.md lists them.
const (
	// MaxIDBytes bounds owner and request_id.
	MaxIDBytes = 128
	// MaxModifiers bounds the modifiers held during a pointer action.
	MaxModifiers = 8
	// MaxComboBytes bounds a key combo string; 8 keys of the longest X names fit easily.
	MaxComboBytes = 256
	// MaxTypeBytes bounds the text of one type action.
	MaxTypeBytes = 65536
	// MaxClipboardBytes bounds WriteClipboard text (16 MiB).
	MaxClipboardBytes = 16 << 20
	// MaxListViolations bounds the violations reported for the elements of one repeated field, so a bad
	// 1000-point path yields a readable answer that fits in a status trailer.
	MaxListViolations = 10
)

// idByte reports whether c may appear in an owner or request id: [A-Za-z0-9._:-].
func idByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-'
}

// ValidID reports whether s is a non-empty owner or request id as id accepts it, for callers (the RPC log)
// that may only repeat a value that passed validation.
func ValidID(s string) bool {
	var v errdefs.Violations
	id(&v, "", s, true)
	return v.Len() == 0
}

// id checks an owner or request id: 1..MaxIDBytes bytes of [A-Za-z0-9._:-] (empty allowed unless required).
func id(v *errdefs.Violations, field, s string, required bool) {
	switch {
	case s == "":
		if required {
			v.Addf(field, "required")
		}
		return
	case len(s) > MaxIDBytes:
		v.Addf(field, "must be at most %d bytes, got %d", MaxIDBytes, len(s))
		return
	}
	for i := 0; i < len(s); i++ {
		if !idByte(s[i]) {
			v.Addf(field, "must be [A-Za-z0-9._:-] only, got byte %#02x at %d", s[i], i)
			return
		}
	}
}

// between checks lo <= n <= hi.
func between(v *errdefs.Violations, field string, n, lo, hi int32) {
	if n < lo || n > hi {
		v.Addf(field, "must be %d..%d, got %d", lo, hi, n)
	}
}

// known checks that an enum value is one the proto defines.
func known(v *errdefs.Violations, field string, n int32, names map[int32]string) {
	if _, ok := names[n]; !ok {
		v.Addf(field, "unknown value %d", n)
	}
}

// quoted is s for a violation message: quoted, and cut to 32 bytes so a huge bad value does not make a
// huge error.
func quoted(s string) string {
	const limit = 32
	if len(s) <= limit {
		return fmt.Sprintf("%q", s)
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q...", s[:cut])
}

// modifiers checks the modifier names of a pointer action.
func modifiers(v *errdefs.Violations, field string, names []string) {
	if len(names) > MaxModifiers {
		v.Addf(field, "must have at most %d modifiers, got %d", MaxModifiers, len(names))
		return
	}
	for i, n := range names {
		if _, ok := keysym.Modifier(n); !ok {
			v.Addf(fmt.Sprintf("%s[%d]", field, i), "unknown modifier %s", quoted(n))
		}
	}
}

// combo checks a key combo: present, at most MaxComboBytes, and parsed by keysym.ParseCombo.
func combo(v *errdefs.Violations, field, s string) {
	switch {
	case s == "":
		v.Addf(field, "required")
	case len(s) > MaxComboBytes:
		v.Addf(field, "must be at most %d bytes, got %d", MaxComboBytes, len(s))
	default:
		if _, err := keysym.ParseCombo(s); err != nil {
			v.Addf(field, "%v", err)
		}
	}
}

// text checks typed text: valid UTF-8 and no control characters except newline and tab.
func text(v *errdefs.Violations, field, s string) {
	for i, r := range s {
		switch {
		case r == utf8.RuneError && invalidRuneAt(s, i):
			v.Addf(field, "invalid UTF-8 at byte %d", i)
			return
		case r != '\n' && r != '\t' && unicode.IsControl(r):
			v.Addf(field, "control character %U at byte %d (only \\n and \\t are allowed)", r, i)
			return
		}
	}
}

// invalidRuneAt reports whether the RuneError at byte i of s is an invalid sequence rather than a real U+FFFD.
// It looks at that one rune only, so checking a text full of U+FFFD stays linear.
func invalidRuneAt(s string, i int) bool {
	_, size := utf8.DecodeRuneInString(s[i:])
	return size == 1
}
