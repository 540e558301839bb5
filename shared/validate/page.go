package validate

import (
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// pageAction checks a browser page action and reports whether r holds one. (skeleton: completed by the browser
// work)
func pageAction(v *errdefs.Violations, r *agentv1.ActRequest) bool {
	switch r.GetAction().(type) {
	case *agentv1.ActRequest_NewTab, *agentv1.ActRequest_CloseTab, *agentv1.ActRequest_ActivateTab,
		*agentv1.ActRequest_Navigate, *agentv1.ActRequest_Reload, *agentv1.ActRequest_StopLoading,
		*agentv1.ActRequest_History, *agentv1.ActRequest_PageClick, *agentv1.ActRequest_Fill,
		*agentv1.ActRequest_PageType, *agentv1.ActRequest_Press, *agentv1.ActRequest_PageKeyDown,
		*agentv1.ActRequest_PageKeyUp, *agentv1.ActRequest_SetValue, *agentv1.ActRequest_PageSelectText,
		*agentv1.ActRequest_Paste, *agentv1.ActRequest_PageScroll, *agentv1.ActRequest_Hover,
		*agentv1.ActRequest_PageDrag, *agentv1.ActRequest_SetViewport, *agentv1.ActRequest_WaitFor,
		*agentv1.ActRequest_SecondaryAction:
		v.Addf("action", "page actions are not validated yet")
		return true
	}
	return false
}
