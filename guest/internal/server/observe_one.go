package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// Observe answers a one-call observation: the screenshot and the pointer are read while the target's window
// is found and snapshotted, so the call costs about its slowest part.
func (o *observeService) Observe(ctx context.Context, r *agentv1.ObserveRequest) (*agentv1.ObserveResponse, error) {
	start := time.Now()
	if err := validate.Observe(r); err != nil {
		return nil, err
	}
	scr, err := o.screen()
	if err != nil {
		return nil, err
	}
	if !r.GetOmitScreenshot() {
		if err := checkAgainstDisplays(scr.Displays(), r.GetScreenshot()); err != nil {
			return nil, err
		}
	}
	resp := &agentv1.ObserveResponse{}
	var wg sync.WaitGroup
	var shotErr, cursorErr error
	if !r.GetOmitScreenshot() {
		wg.Go(func() {
			resp.Image, _, resp.FrameSeq, shotErr = scr.Capture(ctx, r.GetScreenshot())
		})
	}
	wg.Go(func() {
		var c *agentv1.GetCursorPositionResponse
		if c, cursorErr = scr.Cursor(ctx); cursorErr == nil {
			resp.Cursor, resp.CursorWindowId = c.GetPosition(), c.GetWindowId()
		}
	})
	snapErr := o.observeTarget(ctx, r, resp)
	wg.Wait()
	if err := errors.Join(snapErr, shotErr, cursorErr); err != nil {
		return nil, err
	}
	if s := resp.GetSnapshot(); s != nil {
		s.Generation = o.s.opts.Generation
		if s.Target != nil {
			s.Target.Generation = o.s.opts.Generation
		}
	}
	resp.TookUs = time.Since(start).Microseconds()
	return resp, nil
}

// observeTarget finds the window the request names (or the active one) and snapshots what it shows: the tab,
// or the window's application on the accessibility bus. A window whose application cannot be snapshotted is not
// an error: snapshot_unavailable_reason says why.
func (o *observeService) observeTarget(ctx context.Context, r *agentv1.ObserveRequest, resp *agentv1.ObserveResponse) error {
	b := o.s.b()
	opts := r.GetSnapshot()
	if opts.GetMaxBytes() == 0 && opts.GetMaxTokens() == 0 {
		opts = proto.CloneOf(opts)
		if opts == nil {
			opts = &agentv1.SnapshotOptions{}
		}
		opts.MaxBytes = validate.DefaultObserveSnapshotBytes
	}
	var err error
	switch t := r.GetTarget().GetKind().(type) {
	case *agentv1.Target_Tab:
		if r.GetOmitSnapshot() {
			return nil
		}
		if b.Browser == nil {
			return fmt.Errorf("browser: %s: %w", o.s.missing(agentv1.Backend_BACKEND_BROWSER), errdefs.ErrCapabilityUnavailable)
		}
		resp.Snapshot, resp.Focused, err = b.Browser.Observe(ctx, &agentv1.TabRef{BrowserId: t.Tab.GetBrowserId(), TabId: t.Tab.GetTabId()}, opts)
		return err
	case *agentv1.Target_App:
		if r.GetOmitSnapshot() {
			return nil
		}
		if b.Accessibility == nil {
			return fmt.Errorf("accessibility: %s: %w", o.s.missing(agentv1.Backend_BACKEND_ACCESSIBILITY), errdefs.ErrCapabilityUnavailable)
		}
		resp.Snapshot, resp.Focused, err = b.Accessibility.Observe(ctx, t.App.GetAppId(), t.App.GetWindowId(), 0, "", opts)
		return err
	}
	if b.Windows == nil {
		return fmt.Errorf("windows: no X display connection: %w", errdefs.ErrCapabilityUnavailable)
	}
	id := r.GetTarget().GetWindow().GetWindowId()
	if id == 0 {
		if id, err = b.Windows.Focused(ctx); err != nil {
			return err
		}
		if id == 0 {
			resp.SnapshotUnavailableReason = "no window has the input focus"
			return nil
		}
	}
	if resp.Window, err = b.Windows.Get(ctx, id); err != nil {
		return err
	}
	if r.GetOmitSnapshot() {
		return nil
	}
	switch pid := resp.Window.GetPid(); {
	case b.Accessibility == nil:
		resp.SnapshotUnavailableReason = "no accessibility bus: " + o.s.missing(agentv1.Backend_BACKEND_ACCESSIBILITY)
	case pid == 0:
		resp.SnapshotUnavailableReason = "the window does not name its process (_NET_WM_PID), so its application is unknown"
	default:
		resp.Snapshot, resp.Focused, err = b.Accessibility.Observe(ctx, "", "", pid, resp.Window.GetTitle(), opts)
		switch {
		case errors.Is(err, errdefs.ErrNotFound):
			resp.SnapshotUnavailableReason = fmt.Sprintf("the window's process %d is not an application on the accessibility bus", pid)
			err = nil
		case errors.Is(err, errdefs.ErrCapabilityUnavailable) || errors.Is(err, errdefs.ErrUnavailable):
			// The bus is down or not up yet: the screenshot and pointer are still worth having.
			resp.SnapshotUnavailableReason = "the accessibility bus cannot be reached now"
			err = nil
		}
	}
	return err
}
