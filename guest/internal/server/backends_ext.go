package server

import (
	"fmt"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// isElementAction reports whether r's action is an accessibility element action.
func isElementAction(r *agentv1.ActRequest) bool {
	switch r.GetAction().(type) {
	case *agentv1.ActRequest_ElementClick, *agentv1.ActRequest_ElementFocus, *agentv1.ActRequest_ElementSetValue,
		*agentv1.ActRequest_ElementSelectText, *agentv1.ActRequest_ElementDoAction, *agentv1.ActRequest_ElementScrollIntoView:
		return true
	}
	return false
}

// isPageAction reports whether r's action is a browser page action.
func isPageAction(r *agentv1.ActRequest) bool {
	switch r.GetAction().(type) {
	case *agentv1.ActRequest_NewTab, *agentv1.ActRequest_CloseTab, *agentv1.ActRequest_ActivateTab,
		*agentv1.ActRequest_Navigate, *agentv1.ActRequest_Reload, *agentv1.ActRequest_StopLoading,
		*agentv1.ActRequest_History, *agentv1.ActRequest_PageClick, *agentv1.ActRequest_Fill,
		*agentv1.ActRequest_PageType, *agentv1.ActRequest_Press, *agentv1.ActRequest_PageKeyDown,
		*agentv1.ActRequest_PageKeyUp, *agentv1.ActRequest_SetValue, *agentv1.ActRequest_PageSelectText,
		*agentv1.ActRequest_Paste, *agentv1.ActRequest_PageScroll, *agentv1.ActRequest_Hover,
		*agentv1.ActRequest_PageDrag, *agentv1.ActRequest_SetViewport, *agentv1.ActRequest_WaitFor,
		*agentv1.ActRequest_SecondaryAction:
		return true
	}
	return false
}

// needBackend fails with CAPABILITY_UNAVAILABLE when the backend r's action needs is missing. Element actions
// need the accessibility backend (their pointer fallback uses input when present); page actions need only the
// browser backend; everything else needs XTEST input.
func (a *actService) needBackend(r *agentv1.ActRequest, in Input) error {
	switch {
	case isElementAction(r):
		if a.s.b().Accessibility == nil {
			return fmt.Errorf("accessibility: %s: %w", a.s.missing(agentv1.Backend_BACKEND_ACCESSIBILITY), errdefs.ErrCapabilityUnavailable)
		}
	case isPageAction(r):
		if a.s.b().Browser == nil {
			return fmt.Errorf("browser: %s: %w", a.s.missing(agentv1.Backend_BACKEND_BROWSER), errdefs.ErrCapabilityUnavailable)
		}
	case in == nil:
		return fmt.Errorf("input: no X display connection with XTEST: %w", errdefs.ErrCapabilityUnavailable)
	}
	return nil
}
