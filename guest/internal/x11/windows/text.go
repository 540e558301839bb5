package windows

import (
	"strings"
	"unicode/utf8"
)

// legacyText decodes a WM_NAME of type STRING (ISO 8859-1) or COMPOUND_TEXT into UTF-8. Of COMPOUND_TEXT
// it understands what X clients write for Unicode titles: Latin-1 by default, and UTF-8 between ESC % G and
// ESC % @ (Xutf8SetWMProperties, xterm). Other designated character sets are dropped rather than shown as
// mojibake; other escape sequences are skipped.
func legacyText(b []byte, compound bool) string {
	var sb strings.Builder
	utf8Mode := false
	other := false // inside a character set this decoder does not know
	for i := 0; i < len(b); {
		c := b[i]
		if compound && c == 0x1b {
			n, mode := escape(b[i:])
			switch mode {
			case "utf8":
				utf8Mode, other = true, false
			case "latin1":
				utf8Mode, other = false, false
			case "other":
				utf8Mode, other = false, true
			}
			i += n
			continue
		}
		switch {
		case utf8Mode:
			r, n := utf8.DecodeRune(b[i:])
			sb.WriteRune(r)
			i += n
		case other:
			i++
		default:
			sb.WriteRune(rune(c)) // Latin-1 is the first 256 code points
			i++
		}
	}
	return sb.String()
}

// escape measures the escape sequence at the start of b and says what it switches to: "utf8", "latin1"
// (ASCII or ISO 8859-1 halves), "other", or "" when it designates nothing this decoder tracks.
func escape(b []byte) (int, string) {
	if len(b) >= 3 && b[1] == '%' {
		switch b[2] {
		case 'G':
			return 3, "utf8"
		case '@':
			return 3, "latin1"
		}
	}
	// ESC, intermediates 0x20..0x2f, then a final byte 0x30..0x7e.
	n := 1
	for n < len(b) && b[n] >= 0x20 && b[n] <= 0x2f {
		n++
	}
	if n < len(b) {
		n++
	}
	seq := string(b[1:n])
	switch seq {
	case "(B", "-A": // ASCII into GL, ISO 8859-1 right half into GR
		return n, "latin1"
	}
	if n > 1 && (b[1] == '(' || b[1] == ')' || b[1] == '-' || b[1] == '$') {
		return n, "other"
	}
	return n, ""
}

// utf8Text returns property bytes meant as UTF-8 as a string protobuf can carry: a character the read cut
// short (cut: the property is longer than was read) is dropped, other invalid bytes become U+FFFD.
func utf8Text(b []byte, cut bool) string {
	if cut {
		for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
			if utf8.RuneStart(b[len(b)-i]) {
				if !utf8.FullRune(b[len(b)-i:]) {
					b = b[:len(b)-i]
				}
				break
			}
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
