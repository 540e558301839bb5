package server

import (
	"context"
	"fmt"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// freeze resolves the request's target just before input, inside the mutation queue, so nothing can change
// it between the check and the action (compare and act):
//   - an explicit window must exist and be mapped (else TARGET_GONE); keyboard actions focus it first, and
//     every point of a pointer action must fall on it (not outside it, not on a window covering it);
//   - an explicit display is the display;
//   - no target: the focused window (keyboard) or the window under the action's first point, or under the
//     pointer (pointer), with source ACTIVE.
func (a *actService) freeze(ctx context.Context, r *agentv1.ActRequest, p *plan) (*agentv1.FrozenTarget, error) {
	ft := &agentv1.FrozenTarget{Generation: a.s.opts.Generation, Source: agentv1.TargetSource_TARGET_SOURCE_ACTIVE}
	if p.kind == kindElement || p.kind == kindPage {
		// Element and page actions name their target inside the action (snapshot ref, tab); the backend checks
		// it again just before acting and fills the frozen ids in.
		ft.Source = agentv1.TargetSource_TARGET_SOURCE_EXPLICIT
		return ft, nil
	}
	win := p.be.Windows
	t := r.GetTarget()
	switch {
	case t.GetWindow() != nil:
		ft.Source = agentv1.TargetSource_TARGET_SOURCE_EXPLICIT
		id := t.GetWindow().GetWindowId()
		ft.WindowId = id
		if p.kind == kindOther {
			return ft, nil
		}
		if win == nil {
			return nil, fmt.Errorf("window %d: no window backend: %w", id, errdefs.ErrCapabilityUnavailable)
		}
		w, err := win.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if !w.GetMapped() {
			return nil, fmt.Errorf("window %d is not mapped: %w", id, errdefs.ErrTargetGone)
		}
		ft.WindowTitle = w.GetTitle()
		switch p.kind {
		case kindKeyboard:
			focused, err := win.Focused(ctx)
			if err != nil {
				return nil, err
			}
			if focused != id {
				if err := win.Activate(ctx, id); err != nil {
					return nil, fmt.Errorf("focus window %d: %w", id, err)
				}
			}
		case kindPointer:
			if err := pointsOn(ctx, id, p); err != nil {
				return nil, err
			}
		}
		return ft, nil

	case t.GetDisplay() != nil:
		ft.Source = agentv1.TargetSource_TARGET_SOURCE_EXPLICIT
		ft.DisplayId = t.GetDisplay().GetDisplayId()
		return ft, nil
	}

	if win == nil || p.kind == kindOther {
		return ft, nil
	}
	var id uint32
	var err error
	if p.kind == kindKeyboard {
		id, err = win.Focused(ctx)
	} else {
		var x, y int32
		x, y, err = firstPoint(ctx, p)
		if err == nil {
			id, err = win.At(ctx, x, y)
		}
	}
	if err != nil {
		return nil, err
	}
	ft.WindowId = id
	if id != 0 {
		// The title is informative only: a window closing right now does not fail the action.
		if w, err := win.Get(ctx, id); err == nil {
			ft.WindowTitle = w.GetTitle()
		}
	}
	return ft, nil
}

// firstPoint is where a pointer action starts: its first explicit point, or the pointer.
func firstPoint(ctx context.Context, p *plan) (int32, int32, error) {
	if len(p.points) > 0 {
		return p.points[0].p.GetX(), p.points[0].p.GetY(), nil
	}
	return p.be.Input.Pointer(ctx)
}

// pointsOn checks that every point of a pointer action (or the pointer, when it has none) is on window id.
func pointsOn(ctx context.Context, id uint32, p *plan) error {
	points := p.points
	if len(points) == 0 {
		x, y, err := p.be.Input.Pointer(ctx)
		if err != nil {
			return err
		}
		points = []fieldPoint{{"pointer", &agentv1.Point{X: x, Y: y}}}
	}
	var v errdefs.Violations
	for _, fp := range points {
		at, err := p.be.Windows.At(ctx, fp.p.GetX(), fp.p.GetY())
		if err != nil {
			return err
		}
		switch {
		case at == id:
		case at == 0:
			v.Addf(fp.field, "(%d,%d) is outside target window %d", fp.p.GetX(), fp.p.GetY(), id)
		default:
			v.Addf(fp.field, "(%d,%d) is on window %d, not on target window %d (outside it or covered)",
				fp.p.GetX(), fp.p.GetY(), at, id)
		}
	}
	return v.Err()
}
