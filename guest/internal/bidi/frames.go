package bidi

import (
	"context"
	"encoding/json"
	"fmt"

	"glovebox.dev/guest/internal/browser"
)

// framedPoint is a point browser.Scripts.Point or FramePoint answered, and whether they scrolled to bring it into
// view.
type framedPoint struct {
	X, Y     float64
	Scrolled bool
}

// pointAt is where pointer input for an element goes: browsing context in (the tab's, or the element's frame's)
// at (x, y) of its viewport; (topX, topY) is the same point in the tab's viewport (the answered pointer).
type pointAt struct {
	in         string
	x, y       float64
	topX, topY float64
}

// framePoint answers where pointer input at point p of the viewport of loc's frame goes. Firefox delivers
// input.performActions of a tab's context to its same-origin frames but not to a frame of another site (another
// process): input for an element of a frame goes to the frame's own browsing context, at p. The frame is
// brought into view first, up through each iframe element showing a frame (browser.Scripts.FramePoint in the
// parent frame, which also maps p into the tab's viewport), each scrolled into view in its parent when the point
// is outside it and, with check, refused when something of the parent covers the iframe there. When a frame's
// element moved, it waits for the tab to render (browser.Scripts.Rendered) before the input is sent.
func (t *tab) framePoint(ctx context.Context, loc *located, p framedPoint, what string, check bool) (pointAt, error) {
	if loc.frame == nil || loc.frame.owner == nil {
		return pointAt{in: t.id, x: p.X, y: p.Y, topX: p.X, topY: p.Y}, nil
	}
	at := pointAt{in: loc.frame.ctx, x: p.X, y: p.Y}
	scrolled := p.Scrolled
	for f := loc.frame; f.owner != nil; f = f.owner.f {
		owner := &located{spec: &locSpec{Ref: &refSpec{Key: loc.snap, I: f.owner.i}}, ref: refName(*f.owner), snap: loc.snap, frame: f.owner.f}
		var up framedPoint
		if err := t.call(ctx, owner, browser.Scripts.FramePoint, what, &up, p.X, p.Y, check); err != nil {
			return pointAt{}, fmt.Errorf("the iframe showing frame %s: %w", f.name, err)
		}
		scrolled = scrolled || up.Scrolled
		p = up
	}
	at.topX, at.topY = p.X, p.Y
	if scrolled {
		err := t.f.conn.call(ctx, "script.evaluate", evaluateParams{Expression: browser.Scripts.Rendered, AwaitPromise: true,
			Target: scriptTarget{Context: t.id, Sandbox: sandbox}, ResultOwnership: "none"}, nil)
		if err != nil {
			return pointAt{}, t.closedErr(fmt.Errorf("%s: %w", what, err), what)
		}
	}
	return at, nil
}

// jsFocusedFrame answers the window of the iframe element that has the focus in its document (the frame the
// focus is in), or null.
const jsFocusedFrame = `(() => { const a = document.activeElement;
  return a && (a.localName === 'iframe' || a.localName === 'frame') && a.contentWindow || null; })()`

// focusedFrame answers the browsing context the keyboard focus is in: the tab's, or, down through each iframe
// element that has the focus in its document (at most maxFrameNesting), a frame's. Firefox delivers key input of
// a tab's context to its same-origin frames but not to a frame of another site. A context that cannot be asked
// (it is loading) ends the descent where it is.
func (t *tab) focusedFrame(ctx context.Context) string {
	in := t.id
	for range maxFrameNesting {
		var res snapResult
		err := t.f.conn.call(ctx, "script.evaluate", evaluateParams{Expression: jsFocusedFrame, Target: scriptTarget{Context: in, Sandbox: sandbox}, ResultOwnership: "none"}, &res)
		if err != nil || res.Result.Type != "window" {
			return in
		}
		var w struct {
			Context string `json:"context"`
		}
		if json.Unmarshal(res.Result.Value, &w) != nil || w.Context == "" {
			return in
		}
		in = w.Context
	}
	return in
}

// maxFrameNesting bounds how deep focusedFrame looks for the focus through nested frames.
const maxFrameNesting = 8
