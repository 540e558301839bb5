package server

import (
	"context"
	"fmt"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// Accessibility is the AT-SPI backend: the AccessibilityService reads and the element_* actions of Act.
type Accessibility interface {
	capable
	AccessibilityIO
}

// AccessibilityIO is Accessibility without the capability report, as package atspi implements it (backends do
// not import this package; AdaptAccessibility adds the report). Requests reaching it have been validated.
type AccessibilityIO interface {
	ListApps(ctx context.Context, r *agentv1.ListAppsRequest) (*agentv1.ListAppsResponse, error)
	GetApp(ctx context.Context, r *agentv1.GetAppRequest) (*agentv1.GetAppResponse, error)
	SnapshotApp(ctx context.Context, r *agentv1.SnapshotAppRequest) (*agentv1.SnapshotAppResponse, error)
	SnapshotWindow(ctx context.Context, r *agentv1.SnapshotWindowRequest) (*agentv1.SnapshotWindowResponse, error)
	// Observe snapshots a window of an app (appID, else the app of process pid; windowID, else its active window,
	// else the one named title) for a one-call observation, and answers its focused element (nil: none).
	Observe(ctx context.Context, appID, windowID string, pid int32, title string, o *agentv1.SnapshotOptions) (*agentv1.Snapshot, *agentv1.Element, error)
	// Act performs a validated element action inside the agent's mutation queue: it re-checks the ref just before
	// acting (compare and act) and fills resp's target ids (app, snapshot, element) and the action's results.
	Act(ctx context.Context, r *agentv1.ActRequest, resp *agentv1.ActResponse) error
	// Available reports whether the backend can work, and why not.
	Available() (ok bool, reason string)
	// Degraded says why a backend that works is likely to see nothing (no application ever appeared on its
	// bus); empty when it is not.
	Degraded() string
}

// AdaptAccessibility turns an AccessibilityIO (such as *atspi.Backend) into an Accessibility whose capability
// is available, or unavailable with the implementation's reason.
func AdaptAccessibility(x AccessibilityIO) Accessibility { return adaptedAccessibility{x} }

type adaptedAccessibility struct{ AccessibilityIO }

// Capability reports the backend's availability as GetInfo shows it.
func (b adaptedAccessibility) Capability() Capability {
	if ok, reason := b.Available(); !ok {
		return Unavailable(reason)
	}
	if r := b.Degraded(); r != "" {
		return Capability{State: agentv1.CapabilityState_CAPABILITY_STATE_DEGRADED, Reason: r}
	}
	return Available
}

// accessibilityService serves AccessibilityService: it validates each request and calls the backend.
type accessibilityService struct {
	agentv1.UnimplementedAccessibilityServiceServer
	s *Services
}

func newAccessibilityService(s *Services) *accessibilityService { return &accessibilityService{s: s} }

func (a *accessibilityService) backend() (Accessibility, error) {
	acc := a.s.b().Accessibility
	if acc == nil {
		return nil, fmt.Errorf("accessibility: %s: %w", a.s.missing(agentv1.Backend_BACKEND_ACCESSIBILITY), errdefs.ErrCapabilityUnavailable)
	}
	return acc, nil
}

// ListApps lists the applications on the AT-SPI bus.
func (a *accessibilityService) ListApps(ctx context.Context, r *agentv1.ListAppsRequest) (*agentv1.ListAppsResponse, error) {
	b, err := a.backend()
	if err != nil {
		return nil, err
	}
	return b.ListApps(ctx, r)
}

// GetApp finds (or launches) one application.
func (a *accessibilityService) GetApp(ctx context.Context, r *agentv1.GetAppRequest) (*agentv1.GetAppResponse, error) {
	rep := a.s.beginReport()
	if err := validate.GetApp(r); err != nil {
		return nil, err
	}
	b, err := a.backend()
	if err != nil {
		return nil, err
	}
	rep.checked()
	resp, err := b.GetApp(ctx, r)
	if err != nil || !r.GetLaunch() {
		return resp, err
	}
	// With launch the answer says what it did: the app seen on the bus (found, or started and seen) is a
	// read-back; a process that never appeared cannot be confirmed.
	resp.Effect = agentv1.Effect_EFFECT_UNVERIFIABLE
	if resp.GetAccessible() || resp.GetApp() != nil {
		resp.Effect = agentv1.Effect_EFFECT_VERIFIED
	}
	rep.done(func(t *agentv1.FrozenTarget) { t.AppId = resp.GetApp().GetAppId() })
	resp.Target, resp.Timing = rep.target, rep.timing
	return resp, nil
}

// SnapshotApp snapshots an application's tree.
func (a *accessibilityService) SnapshotApp(ctx context.Context, r *agentv1.SnapshotAppRequest) (*agentv1.SnapshotAppResponse, error) {
	if err := validate.SnapshotApp(r); err != nil {
		return nil, err
	}
	b, err := a.backend()
	if err != nil {
		return nil, err
	}
	resp, err := b.SnapshotApp(ctx, r)
	if err != nil {
		return nil, err
	}
	a.stamp(resp.GetSnapshot())
	return resp, nil
}

// SnapshotWindow snapshots one window of an application.
func (a *accessibilityService) SnapshotWindow(ctx context.Context, r *agentv1.SnapshotWindowRequest) (*agentv1.SnapshotWindowResponse, error) {
	if err := validate.SnapshotWindow(r); err != nil {
		return nil, err
	}
	b, err := a.backend()
	if err != nil {
		return nil, err
	}
	resp, err := b.SnapshotWindow(ctx, r)
	if err != nil {
		return nil, err
	}
	a.stamp(resp.GetSnapshot())
	return resp, nil
}

// stamp marks a snapshot with the agent's generation: the service owns it, the backend does not know it.
func (a *accessibilityService) stamp(s *agentv1.Snapshot) {
	if s == nil {
		return
	}
	s.Generation = a.s.opts.Generation
	if s.Target != nil {
		s.Target.Generation = a.s.opts.Generation
	}
}
