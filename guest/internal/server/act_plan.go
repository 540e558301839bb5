package server

import (
	"errors"
	"fmt"
	"strings"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/actions"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/keysym"
)

// actionKind says how an action's target is resolved.
type actionKind int

const (
	// kindOther actions need no window: wait, key_up, release_all.
	kindOther actionKind = iota
	// kindKeyboard actions go to the focused window; an explicit window is focused first.
	kindKeyboard
	// kindPointer actions go to the window under their points; an explicit window must be that window.
	kindPointer
	// kindElement actions (element_*) go to the accessibility backend, which resolves their snapshot ref.
	kindElement
	// kindPage actions (navigate, page_click, fill, ...) go to the browser backend, which resolves their tab.
	kindPage
)

// plan is a request checked against the live screen, with its names parsed.
type plan struct {
	// be is the backend set the request runs on, read once when it arrived.
	be   *Backends
	kind actionKind
	// wait is set for the observations (wait, wait_for): they run outside the mutation queue.
	wait bool
	// input is set for desktop input whose effect is watched on the screen (pointer and keyboard actions).
	input bool
	// points are the action's explicit points with their field names, in order.
	points []fieldPoint
	// combo is the key combination of key, key_down, key_up and hold_key.
	combo keysym.Combo
	// mods are the modifiers held during click, drag and scroll.
	mods keysym.Combo
	// display is the explicit display target's bounds, nil for none.
	display *agentv1.Display
}

type fieldPoint struct {
	field string
	p     *agentv1.Point
}

// plan parses the action's names and checks every point against the root window (and the display target),
// returning a *errdefs.BadRequest naming each bad field. validate.ActRequest has checked everything static.
func (a *actService) plan(r *agentv1.ActRequest, be *Backends) (*plan, error) {
	var v errdefs.Violations
	p := &plan{be: be}
	pt := func(field string, q *agentv1.Point) {
		if q != nil {
			p.points = append(p.points, fieldPoint{field, q})
		}
	}
	combo := func(field, s string) {
		c, err := keysym.ParseCombo(s)
		if err != nil || len(c) == 0 {
			v.Addf(field, "not a key combination: %v", err)
		}
		p.combo = c
	}
	mods := func(field string, names []string) {
		for i, n := range names {
			k, ok := keysym.Modifier(n)
			if !ok {
				v.Addf(fmt.Sprintf("%s[%d]", field, i), "unknown modifier %q (shift ctrl alt super meta hyper altgr)", n)
			}
			p.mods = append(p.mods, k)
		}
	}
	switch act := r.GetAction().(type) {
	case *agentv1.ActRequest_MouseMove:
		p.kind = kindPointer
		pt("action.mouse_move.to", act.MouseMove.GetTo())
	case *agentv1.ActRequest_Click:
		p.kind = kindPointer
		pt("action.click.at", act.Click.GetAt())
		mods("action.click.modifiers", act.Click.GetModifiers())
	case *agentv1.ActRequest_MouseDown:
		p.kind = kindPointer
		pt("action.mouse_down.at", act.MouseDown.GetAt())
	case *agentv1.ActRequest_MouseUp:
		p.kind = kindPointer
		pt("action.mouse_up.at", act.MouseUp.GetAt())
	case *agentv1.ActRequest_Drag:
		p.kind = kindPointer
		for i, q := range act.Drag.GetPath() {
			pt(fmt.Sprintf("action.drag.path[%d]", i), q)
		}
		mods("action.drag.modifiers", act.Drag.GetModifiers())
	case *agentv1.ActRequest_Scroll:
		p.kind = kindPointer
		pt("action.scroll.at", act.Scroll.GetAt())
		mods("action.scroll.modifiers", act.Scroll.GetModifiers())
	case *agentv1.ActRequest_Key:
		p.kind = kindKeyboard
		combo("action.key.combo", act.Key.GetCombo())
	case *agentv1.ActRequest_KeyDown:
		p.kind = kindKeyboard
		combo("action.key_down.combo", act.KeyDown.GetCombo())
	case *agentv1.ActRequest_KeyUp:
		combo("action.key_up.combo", act.KeyUp.GetCombo())
	case *agentv1.ActRequest_HoldKey:
		p.kind = kindKeyboard
		combo("action.hold_key.combo", act.HoldKey.GetCombo())
	case *agentv1.ActRequest_Type:
		p.kind = kindKeyboard
	case *agentv1.ActRequest_Wait:
	case *agentv1.ActRequest_ReleaseAll:
	default:
		switch actions.Of(r) {
		case actions.Element:
			p.kind = kindElement
		case actions.Page:
			p.kind = kindPage
		default:
			v.Addf("action", "unsupported action %T", act)
		}
	}
	// The settle screenshot is checked for every action, before anything is done: an observation that could
	// only fail would answer INVALID_ARGUMENT for an action that was done.
	if o := r.GetObserve(); o != nil && be.Screen != nil && o.GetScreenshot() != nil {
		if err := checkAgainstDisplays(be.Screen.Displays(), o.GetScreenshot()); err != nil {
			var br *errdefs.BadRequest
			if !errors.As(err, &br) {
				return nil, err
			}
			for _, fv := range br.Violations {
				v.Addf("observe.screenshot."+strings.TrimPrefix(fv.Field, "options."), "%s", fv.Description)
			}
		}
	}
	p.wait = actions.Observes(r)
	_, isKeyUp := r.GetAction().(*agentv1.ActRequest_KeyUp)
	p.input = p.kind == kindPointer || p.kind == kindKeyboard || isKeyUp
	if p.kind == kindElement || p.kind == kindPage {
		// Their targets and points are the backend's to check (refs, tabs, CSS pixels).
		return p, v.Err()
	}

	bounds, boundsName := bounds(r, &v, p)
	for _, fp := range p.points {
		if bounds != nil && !inside(bounds, fp.p.GetX(), fp.p.GetY()) {
			v.Addf(fp.field, "(%d,%d) is outside %s %dx%d+%d+%d", fp.p.GetX(), fp.p.GetY(), boundsName,
				bounds.Width, bounds.Height, bounds.X, bounds.Y)
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return p, nil
}

// bounds returns the rectangle every point must fall in: the display target's, else the root window's.
func bounds(r *agentv1.ActRequest, v *errdefs.Violations, p *plan) (*agentv1.Rect, string) {
	w, h := p.be.Input.Root()
	root := &agentv1.Rect{Width: w, Height: h}
	id := r.GetTarget().GetDisplay().GetDisplayId()
	if id == "" {
		return root, "the screen"
	}
	if p.be.Screen == nil {
		v.Addf("target.display.display_id", "no screen backend to resolve display %q", id)
		return root, "the screen"
	}
	var known []string
	for _, d := range p.be.Screen.Displays() {
		if d.GetId() == id {
			p.display = d
			return d.GetBounds(), "display " + id
		}
		known = append(known, d.GetId())
	}
	v.Addf("target.display.display_id", "unknown display %q (have %s)", id, strings.Join(known, ", "))
	return root, "the screen"
}

func inside(b *agentv1.Rect, x, y int32) bool {
	return x >= b.X && y >= b.Y && int64(x) < int64(b.X)+int64(b.Width) && int64(y) < int64(b.Y)+int64(b.Height)
}
