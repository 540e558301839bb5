package keysym

import (
	"fmt"
	"slices"
	"strings"

	"glovebox.dev/shared/errdefs"
)

// MaxComboKeys bounds the keys of one combo.
const MaxComboKeys = 8

// Combo is a key combination in press order; it is released in reverse order.
type Combo []Keysym

// String joins the keysym names with '+'.
func (c Combo) String() string {
	parts := make([]string, len(c))
	for i, k := range c {
		parts[i] = k.String()
	}
	return strings.Join(parts, "+")
}

// ComboError says what is wrong with a combo. It wraps errdefs.ErrInvalidArgument; its message names the
// bad part and is meant as a field violation's description.
type ComboError struct {
	// Part is the offending key name ("" for an empty part).
	Part string
	// Problem is what is wrong.
	Problem string
}

// Error is the problem with the part quoted.
func (e *ComboError) Error() string { return e.Problem }

// Unwrap makes errors.Is(err, errdefs.ErrInvalidArgument) hold.
func (e *ComboError) Unwrap() error { return errdefs.ErrInvalidArgument }

// ParseCombo parses key names joined by '+' into a Combo in press order: "ctrl+s", "alt+Tab", "Return",
// "super", "F5", "ctrl+shift+t". A '+' where a key name is expected is the plus key, so "ctrl++" is ctrl and
// plus (as is "ctrl+plus"). Each name is resolved with Lookup; spaces around names are ignored. At most
// MaxComboKeys keys; empty parts, unknown names and a key named twice are errors naming the part.
func ParseCombo(s string) (Combo, error) {
	var c Combo
	rest := s
	for {
		var name string
		if strings.HasPrefix(rest, "+") {
			name, rest = "+", rest[1:]
		} else if i := strings.IndexByte(rest, '+'); i >= 0 {
			name, rest = rest[:i], rest[i:]
		} else {
			name, rest = rest, ""
		}
		name = strings.TrimSpace(name)
		switch {
		case name == "" && len(c) == 0 && rest == "":
			return nil, &ComboError{Problem: "empty combo"}
		case name == "":
			return nil, &ComboError{Problem: fmt.Sprintf("empty key name at position %d", len(c)+1)}
		}
		k, ok := Lookup(name)
		if !ok {
			return nil, &ComboError{Part: name, Problem: fmt.Sprintf("unknown key %q", name)}
		}
		if slices.Contains(c, k) {
			return nil, &ComboError{Part: name, Problem: fmt.Sprintf("key %q named twice", name)}
		}
		if len(c) == MaxComboKeys {
			return nil, &ComboError{Part: name, Problem: fmt.Sprintf("more than %d keys", MaxComboKeys)}
		}
		c = append(c, k)
		if rest == "" {
			return c, nil
		}
		if rest[0] != '+' { // only after a literal '+': "+x"
			return nil, &ComboError{Part: "+" + rest, Problem: fmt.Sprintf("unknown key %q", "+"+rest)}
		}
		rest = rest[1:] // the separator
		if rest == "" {
			return nil, &ComboError{Problem: fmt.Sprintf("empty key name at position %d", len(c)+1)}
		}
	}
}
