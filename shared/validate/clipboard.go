package validate

import (
	"unicode/utf8"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// ReadClipboard checks r and returns a *errdefs.BadRequest naming each bad field, or nil.
func ReadClipboard(r *agentv1.ReadClipboardRequest) error {
	var v errdefs.Violations
	known(&v, "selection", int32(r.GetSelection()), agentv1.Selection_name)
	return v.Err()
}

// WriteClipboard checks r and returns a *errdefs.BadRequest naming each bad field, or nil. The text may be
// empty (an empty clipboard) and may hold any character; it must be valid UTF-8 of at most 16 MiB.
func WriteClipboard(r *agentv1.WriteClipboardRequest) error {
	var v errdefs.Violations
	id(&v, "owner", r.GetOwner(), false)
	known(&v, "selection", int32(r.GetSelection()), agentv1.Selection_name)
	switch t := r.GetText(); {
	case len(t) > MaxClipboardBytes:
		v.Addf("text", "must be at most %d bytes, got %d", MaxClipboardBytes, len(t))
	case !utf8.ValidString(t):
		v.Addf("text", "invalid UTF-8 at byte %d", invalidAt(t))
	}
	return v.Err()
}

// invalidAt is the offset of the first invalid UTF-8 sequence in s.
func invalidAt(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return i
			}
		}
	}
	return len(s)
}
