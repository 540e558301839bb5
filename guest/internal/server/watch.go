package server

import (
	"context"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// Watch defaults (ActRequest.watch_ms).
const (
	// defaultWatch is how long desktop input is watched for damage when the request does not say. GTK and
	// Chromium repaint within a frame or two, but on a loaded guest (or for the first CJK glyph, which loads a
	// font) a repaint took over 100 ms in tests; an action that repaints ends its watch early anyway, so only an
	// action that changes nothing pays the whole window.
	defaultWatch = 250 * time.Millisecond
	// watchQuiet ends a watch early: once damage has arrived and none followed for this long, the repaint the
	// input caused is taken as done (a bit over one 60 Hz frame).
	watchQuiet = 20 * time.Millisecond
)

// watch is the screen watch of one action: the frame sequence before its input, so the damage after it can be
// told apart. A zero watch watches nothing.
type watch struct {
	scr  Screen
	from uint64
	// on is set when the action is watched; unwatchable when it should be but there is no screen.
	on, unwatchable bool
}

// startWatch takes the screen's frame sequence before the action's input when the action is desktop input
// and the caller did not turn watching off. It is called after the target is frozen, just before dispatch.
func startWatch(ctx context.Context, r *agentv1.ActRequest, p *plan) watch {
	if !p.input || r.GetWatchMs() < 0 {
		return watch{}
	}
	scr := p.be.Screen
	if scr == nil {
		return watch{unwatchable: true}
	}
	from, err := scr.Seq(ctx)
	if err != nil {
		return watch{unwatchable: true}
	}
	return watch{scr: scr, from: from, on: true}
}

// finish watches the screen after the input (or takes the observation's settle as the watch) and sets resp's
// effect and damage box. A screen that fails while watching makes the effect UNVERIFIABLE: the input was
// delivered, so it is not an error.
func (w watch) finish(ctx context.Context, r *agentv1.ActRequest, resp *agentv1.ActResponse) {
	switch {
	case w.unwatchable:
		resp.Effect = agentv1.Effect_EFFECT_UNVERIFIABLE
		return
	case !w.on:
		return
	}
	window := defaultWatch
	if ms := r.GetWatchMs(); ms > 0 {
		window = time.Duration(ms) * time.Millisecond
	}
	if r.GetObserve() != nil {
		window = 0 // the observation waited for the screen to settle
	}
	box, err := w.scr.WatchDamage(ctx, w.from, window, watchQuiet)
	switch {
	case err != nil:
		resp.Effect = agentv1.Effect_EFFECT_UNVERIFIABLE
	case box == nil:
		resp.Effect = agentv1.Effect_EFFECT_NO_VISIBLE_CHANGE
	default:
		resp.Effect = agentv1.Effect_EFFECT_DONE
		resp.Damage = box
	}
}
