package validate

import (
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// ActRequest checks every field of r and returns a *errdefs.BadRequest naming each bad one, or nil.
func ActRequest(r *agentv1.ActRequest) error {
	var v errdefs.Violations
	if r.GetOwner() == "" {
		v.Addf("owner", "required")
	}
	if r.GetAction() == nil {
		v.Addf("action", "required")
	}
	return v.Err()
}
