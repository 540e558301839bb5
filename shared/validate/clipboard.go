package validate

import (
	"bytes"
	"slices"
	"strings"
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
	writable(&v, r.GetSelection())
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

// ClipboardMIMETypes are the targets ReadClipboardData and WriteClipboardData accept.
var ClipboardMIMETypes = []string{"image/png", "image/jpeg", "text/uri-list", "x-special/gnome-copied-files"}

func mimeType(v *errdefs.Violations, field, m string) {
	if !slices.Contains(ClipboardMIMETypes, m) {
		v.Addf(field, "must be one of %s, got %s", strings.Join(ClipboardMIMETypes, ", "), quoted(m))
	}
}

// ListClipboardTargets checks r and returns a *errdefs.BadRequest naming each bad field, or nil.
func ListClipboardTargets(r *agentv1.ListClipboardTargetsRequest) error {
	var v errdefs.Violations
	known(&v, "selection", int32(r.GetSelection()), agentv1.Selection_name)
	return v.Err()
}

// ReadClipboardData checks r and returns a *errdefs.BadRequest naming each bad field, or nil.
func ReadClipboardData(r *agentv1.ReadClipboardDataRequest) error {
	var v errdefs.Violations
	known(&v, "selection", int32(r.GetSelection()), agentv1.Selection_name)
	mimeType(&v, "mime_type", r.GetMimeType())
	return v.Err()
}

// WriteClipboardData checks r and returns a *errdefs.BadRequest naming each bad field, or nil: data is
// 1..16 MiB, an image starts with its format's signature, a file list is valid UTF-8.
func WriteClipboardData(r *agentv1.WriteClipboardDataRequest) error {
	var v errdefs.Violations
	id(&v, "owner", r.GetOwner(), false)
	writable(&v, r.GetSelection())
	mimeType(&v, "mime_type", r.GetMimeType())
	d := r.GetData()
	switch {
	case len(d) == 0 || len(d) > MaxClipboardBytes:
		v.Addf("data", "must hold 1..%d bytes, got %d", MaxClipboardBytes, len(d))
	case r.GetMimeType() == "image/png" && !bytes.HasPrefix(d, []byte("\x89PNG\r\n\x1a\n")):
		v.Addf("data", "is not a PNG (no PNG signature)")
	case r.GetMimeType() == "image/jpeg" && !bytes.HasPrefix(d, []byte{0xff, 0xd8, 0xff}):
		v.Addf("data", "is not a JPEG (no SOI marker)")
	case strings.HasPrefix(r.GetMimeType(), "text/") || strings.HasPrefix(r.GetMimeType(), "x-special/"):
		if !utf8.Valid(d) {
			v.Addf("data", "invalid UTF-8 at byte %d", invalidAt(string(d)))
		}
	}
	return v.Err()
}

// MaxPasteWaitMs bounds PasteTextRequest.wait_ms.
const MaxPasteWaitMs = 10000

// PasteText checks r and returns a *errdefs.BadRequest naming each bad field, or nil.
func PasteText(r *agentv1.PasteTextRequest) error {
	var v errdefs.Violations
	id(&v, "owner", r.GetOwner(), false)
	switch t := r.GetText(); {
	case t == "":
		v.Addf("text", "required")
	case len(t) > MaxClipboardBytes:
		v.Addf("text", "must be at most %d bytes, got %d", MaxClipboardBytes, len(t))
	case !utf8.ValidString(t):
		v.Addf("text", "invalid UTF-8 at byte %d", invalidAt(t))
	}
	if w := r.GetWaitMs(); w > MaxPasteWaitMs {
		v.Addf("wait_ms", "must be 0..%d, got %d", MaxPasteWaitMs, w)
	}
	return v.Err()
}

// writable checks the selection of a write: a known one, not XDND (a drag source owns that one).
func writable(v *errdefs.Violations, sel agentv1.Selection) {
	known(v, "selection", int32(sel), agentv1.Selection_name)
	if sel == agentv1.Selection_SELECTION_XDND {
		v.Addf("selection", "XDND is read only (the drag source owns it)")
	}
}
