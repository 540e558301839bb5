package server

import (
	"context"
	"fmt"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// Accessibility is the AT-SPI backend: the AccessibilityService reads and the element_* actions of Act.
type Accessibility interface {
	capable
	ListApps(ctx context.Context, r *agentv1.ListAppsRequest) (*agentv1.ListAppsResponse, error)
	GetApp(ctx context.Context, r *agentv1.GetAppRequest) (*agentv1.GetAppResponse, error)
	SnapshotApp(ctx context.Context, r *agentv1.SnapshotAppRequest) (*agentv1.SnapshotAppResponse, error)
	SnapshotWindow(ctx context.Context, r *agentv1.SnapshotWindowRequest) (*agentv1.SnapshotWindowResponse, error)
	// Act performs a validated element action inside the agent's mutation queue: it re-checks the ref just before
	// acting (compare and act) and fills resp's target ids (app, snapshot, element) and the action's results.
	Act(ctx context.Context, r *agentv1.ActRequest, resp *agentv1.ActResponse) error
}

// Browser is the Chromium (CDP) backend: the BrowserService reads and the page actions of Act.
type Browser interface {
	capable
	ListBrowsers(ctx context.Context, r *agentv1.ListBrowsersRequest) (*agentv1.ListBrowsersResponse, error)
	GetBrowser(ctx context.Context, r *agentv1.GetBrowserRequest) (*agentv1.GetBrowserResponse, error)
	ListTabs(ctx context.Context, r *agentv1.ListTabsRequest) (*agentv1.ListTabsResponse, error)
	SnapshotTab(ctx context.Context, r *agentv1.SnapshotTabRequest) (*agentv1.SnapshotTabResponse, error)
	Extract(ctx context.Context, r *agentv1.ExtractRequest) (*agentv1.ExtractResponse, error)
	CaptureTab(ctx context.Context, r *agentv1.CaptureTabRequest) (*agentv1.CaptureTabResponse, error)
	// Act performs a validated page action inside the agent's mutation queue on the tab it names (never another),
	// and fills resp's target ids (browser, tab, element) and the action's results.
	Act(ctx context.Context, r *agentv1.ActRequest, resp *agentv1.ActResponse) error
}

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
		if a.s.b.Accessibility == nil {
			return fmt.Errorf("accessibility: %s: %w", a.s.missing(agentv1.Backend_BACKEND_ACCESSIBILITY), errdefs.ErrCapabilityUnavailable)
		}
	case isPageAction(r):
		if a.s.b.Browser == nil {
			return fmt.Errorf("browser: %s: %w", a.s.missing(agentv1.Backend_BACKEND_BROWSER), errdefs.ErrCapabilityUnavailable)
		}
	case in == nil:
		return fmt.Errorf("input: no X display connection with XTEST: %w", errdefs.ErrCapabilityUnavailable)
	}
	return nil
}

// accessibilityService serves AccessibilityService. (skeleton: filled by the accessibility work)
type accessibilityService struct {
	agentv1.UnimplementedAccessibilityServiceServer
	s *Services
}

func newAccessibilityService(s *Services) *accessibilityService { return &accessibilityService{s: s} }

// browserService serves BrowserService. (skeleton: filled by the browser work)
type browserService struct {
	agentv1.UnimplementedBrowserServiceServer
	s *Services
}

func newBrowserService(s *Services) *browserService { return &browserService{s: s} }
