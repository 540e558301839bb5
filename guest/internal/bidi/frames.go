package bidi

import (
	"context"
	"fmt"

	"glovebox.dev/guest/internal/browser"
)

// framePoint turns a point in the viewport of loc's frame into the tab's viewport, where input.performActions
// points are: up through each iframe element showing a frame (browser.Scripts.FramePoint in the parent frame),
// each scrolled into view in its parent when the point is outside it and, with check, refused when something of
// the parent covers the iframe there. A point of the tab's own document is answered as is.
func (t *tab) framePoint(ctx context.Context, loc *located, x, y float64, what string, check bool) (float64, float64, error) {
	if loc.frame == nil {
		return x, y, nil
	}
	for f := loc.frame; f.owner != nil; f = f.owner.f {
		owner := &located{spec: &locSpec{Ref: &refSpec{Key: loc.snap, I: f.owner.i}}, ref: refName(*f.owner), snap: loc.snap, frame: f.owner.f}
		var p struct{ X, Y float64 }
		if err := t.call(ctx, owner, browser.Scripts.FramePoint, what, &p, x, y, check); err != nil {
			return 0, 0, fmt.Errorf("the iframe showing frame %s: %w", f.name, err)
		}
		x, y = p.X, p.Y
	}
	return x, y, nil
}
