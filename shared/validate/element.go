package validate

import (
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// elementAction checks an accessibility element action (element_*) and reports whether r holds one.
// (skeleton: completed by the accessibility work)
func elementAction(v *errdefs.Violations, r *agentv1.ActRequest) bool {
	switch r.GetAction().(type) {
	case *agentv1.ActRequest_ElementClick, *agentv1.ActRequest_ElementFocus, *agentv1.ActRequest_ElementSetValue,
		*agentv1.ActRequest_ElementSelectText, *agentv1.ActRequest_ElementDoAction, *agentv1.ActRequest_ElementScrollIntoView:
		v.Addf("action", "element actions are not validated yet")
		return true
	}
	return false
}
