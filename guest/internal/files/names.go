package files

import (
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxSavedNameBytes bounds a saved name: below NAME_MAX (255) with room for a "NN-" prefix.
const MaxSavedNameBytes = 200

// SanitizeName turns a declared name into one safe to create in the drop directory: path separators and
// control characters become '_', leading dots and spaces are removed (no hidden files, no "." or ".."),
// trailing dots and spaces too, the result is cut to MaxSavedNameBytes at a character boundary keeping the
// extension (when it is short), and an empty result becomes "file". Invalid UTF-8 becomes '_'.
func SanitizeName(name string) string {
	var b strings.Builder
	for i, r := range name {
		switch {
		case r == utf8.RuneError && !validAt(name, i):
			b.WriteByte('_')
		case r == '/' || r == '\\' || unicode.IsControl(r) || r == 0x7f || unicode.Is(unicode.Cf, r):
			// Cf: bidi overrides and zero-width characters that make a name read as another.
			b.WriteByte('_')
		default:
			b.WriteRune(r)
		}
	}
	s := strings.TrimLeft(b.String(), ". ")
	s = strings.TrimRight(s, ". ")
	if len(s) > MaxSavedNameBytes {
		ext := filepath.Ext(s)
		if len(ext) > 16 {
			ext = ""
		}
		s = cut(s[:len(s)-len(ext)], MaxSavedNameBytes-len(ext)) + ext
	}
	if s == "" {
		return "file"
	}
	return s
}

// validAt reports whether s holds a valid encoding at byte i (a literal U+FFFD, not a decoding error).
func validAt(s string, i int) bool {
	_, size := utf8.DecodeRuneInString(s[i:])
	return size > 1
}

// cut shortens s to at most n bytes without splitting a character.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// candidate is the k-th name tried for name (k from 1): name itself, then "2-name", "3-name", ...
func candidate(name string, k int) string {
	if k == 1 {
		return name
	}
	return strconv.Itoa(k) + "-" + name
}
