package server

import (
	"fmt"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/actions"
	"glovebox.dev/shared/errdefs"
)

// needBackend fails with CAPABILITY_UNAVAILABLE when the backend r's action needs is missing. Element actions
// need the accessibility backend (their pointer fallback uses input when present); page actions need only the
// browser backend; everything else needs XTEST input.
func (a *actService) needBackend(r *agentv1.ActRequest, be *Backends) error {
	switch kind := actions.Of(r); {
	case kind == actions.Element:
		if be.Accessibility == nil {
			return fmt.Errorf("accessibility: %s: %w", a.s.missing(agentv1.Backend_BACKEND_ACCESSIBILITY), errdefs.ErrCapabilityUnavailable)
		}
	case kind == actions.Page:
		if be.Browser == nil {
			return fmt.Errorf("browser: %s: %w", a.s.missing(agentv1.Backend_BACKEND_BROWSER), errdefs.ErrCapabilityUnavailable)
		}
	case be.Input == nil:
		return fmt.Errorf("input: no X display connection with XTEST: %w", errdefs.ErrCapabilityUnavailable)
	}
	return nil
}
