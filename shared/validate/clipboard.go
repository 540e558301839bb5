package validate

import (
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// ReadClipboard checks r and returns a *errdefs.BadRequest naming each bad field, or nil.
func ReadClipboard(r *agentv1.ReadClipboardRequest) error {
	var v errdefs.Violations
	return v.Err()
}

// WriteClipboard checks r and returns a *errdefs.BadRequest naming each bad field, or nil.
func WriteClipboard(r *agentv1.WriteClipboardRequest) error {
	var v errdefs.Violations
	return v.Err()
}
