package browser

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Frames. A tab's page is a tree of frames. Those of the tab's process run in its own session, each frame's
// scripts in its own default execution context (Runtime.executionContextCreated names the frame); out-of-process
// iframes (OOPIFs: another site, with site isolation) are targets of their own, which Target.setAutoAttach
// (flatten, iframes only) attaches to the tab's session, each with a session of its own. A frameHost is one such
// session with the contexts it runs; the tab keeps its own and one per attached OOPIF.

// frameWait bounds how long a snapshot waits for a frame's execution context or OOPIF session to be reported
// (a frame that just loaded): Chromium reports them within milliseconds of the document's creation, an OOPIF's
// once its session's Runtime is enabled, which a loaded machine can hold up for a while. A crashed OOPIF is not
// waited for.
const frameWait = 2 * time.Second

// frameHost is a session that runs frames' scripts: the tab's own, or an OOPIF's.
type frameHost struct {
	t *tab
	s session
	// contexts are the default execution contexts of the frames this session runs, by frame id (guarded by
	// t.mu).
	contexts map[cdp.FrameID]execContext
	// down is closed when an OOPIF's renderer crashed or its session ended: its calls fail at once.
	down chan struct{}
}

// execContext is an execution context: its id, for calls, and its unique id, which Chromium names when it
// destroys it.
type execContext struct {
	id     runtime.ExecutionContextID
	unique string
}

func newFrameHost(t *tab, s session) *frameHost {
	return &frameHost{t: t, s: s, contexts: map[cdp.FrameID]execContext{}, down: make(chan struct{})}
}

// fail marks an OOPIF's host down (its renderer crashed, its session ended): it runs no frame any more; t.mu is
// held.
func (h *frameHost) fail() {
	clear(h.contexts)
	select {
	case <-h.down:
	default:
		close(h.down)
	}
}

// autoAttach makes Chromium attach the host's out-of-process iframes to it (flat sessions), existing ones and
// later ones; nothing else is attached (workers are not).
var autoAttach = target.SetAutoAttachParams{AutoAttach: true, Flatten: ptr(true), Filter: target.Filter{{Type: "iframe"}}}

// event handles the frame events of a host's session, on the connection's reader goroutine (it must not call
// the browser): its execution contexts, and OOPIFs attached to it.
func (h *frameHost) event(method string, params jsonv2.Value) {
	t := h.t
	switch method {
	case "Runtime.executionContextCreated":
		var ev runtime.EventExecutionContextCreated
		if jsonv2.Unmarshal(params, &ev, chromedp.DefaultUnmarshalOptions) != nil || ev.Context == nil {
			return
		}
		var aux struct {
			FrameID   cdp.FrameID `json:"frameId"`
			IsDefault bool        `json:"isDefault"`
		}
		if jsonv2.Unmarshal(ev.Context.AuxData, &aux, chromedp.DefaultUnmarshalOptions) != nil || !aux.IsDefault || aux.FrameID == "" {
			return
		}
		t.mu.Lock()
		h.contexts[aux.FrameID] = execContext{ev.Context.ID, ev.Context.UniqueID}
		t.framesChanged()
		t.mu.Unlock()
	case "Runtime.executionContextDestroyed":
		var ev struct {
			ID     runtime.ExecutionContextID `json:"executionContextId"`
			Unique string                     `json:"executionContextUniqueId"`
		}
		if jsonv2.Unmarshal(params, &ev, chromedp.DefaultUnmarshalOptions) != nil {
			return
		}
		t.mu.Lock()
		for f, c := range h.contexts {
			if ev.Unique != "" && c.unique == ev.Unique || ev.Unique == "" && c.id == ev.ID {
				delete(h.contexts, f)
			}
		}
		t.mu.Unlock()
	case "Runtime.executionContextsCleared":
		t.mu.Lock()
		clear(h.contexts)
		t.mu.Unlock()
	case "Target.attachedToTarget":
		var ev target.EventAttachedToTarget
		if jsonv2.Unmarshal(params, &ev, chromedp.DefaultUnmarshalOptions) != nil || ev.TargetInfo == nil || ev.TargetInfo.Type != "iframe" {
			return
		}
		child := newFrameHost(t, session{c: h.s.c, id: ev.SessionID})
		child.s.down = func() <-chan struct{} {
			select {
			case <-t.down():
				return t.down()
			default:
				return child.down
			}
		}
		frame := cdp.FrameID(ev.TargetInfo.TargetID)
		own := ev.SessionID
		h.s.c.handle(own, func(method string, params jsonv2.Value) {
			if method == "Target.detachedFromTarget" && params != nil {
				// A nested OOPIF detaching is told on its parent's session too.
				var d target.EventDetachedFromTarget
				if jsonv2.Unmarshal(params, &d, chromedp.DefaultUnmarshalOptions) == nil && d.SessionID != own {
					return
				}
			}
			switch method {
			case "Target.detachedFromTarget":
				t.mu.Lock()
				child.fail()
				if t.oopifs[frame] == child {
					delete(t.oopifs, frame)
				}
				t.mu.Unlock()
				h.s.c.handle(own, nil)
			case "Inspector.targetCrashed":
				t.mu.Lock()
				child.fail()
				t.mu.Unlock()
			default:
				child.event(method, params)
			}
		})
		t.mu.Lock()
		if t.oopifs == nil {
			t.oopifs = map[cdp.FrameID]*frameHost{}
		}
		t.oopifs[frame] = child
		t.mu.Unlock()
		// The calls go from their own goroutine: this one reads the browser's answers.
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
			defer cancel()
			child.s.Call(ctx, "Inspector.enable", nil, nil)
			child.s.Call(ctx, "Runtime.enable", nil, nil)
			child.s.Call(ctx, target.CommandSetAutoAttach, autoAttach, nil)
			t.mu.Lock()
			t.framesChanged()
			t.mu.Unlock()
		}()
	}
}

// isDown reports whether the tab's own page is crashed or its session ended (see down).
func (t *tab) isDown() bool {
	select {
	case <-t.down():
		return true
	default:
		return false
	}
}

// framesChanged wakes snapshots waiting for a frame; t.mu is held.
func (t *tab) framesChanged() {
	if t.frameSignal != nil {
		close(t.frameSignal)
	}
	t.frameSignal = make(chan struct{})
}

// frameScope is where a frame's scripts run: a session and, for a frame that is not its session's main frame,
// its execution context (0: the session's main frame).
type frameScope struct {
	s   session
	ctx runtime.ExecutionContextID
}

// scopeOf finds where frame id's scripts run, waiting (bounded by frameWait and ctx) for the frame to be
// reported; false when it is not (a sandboxed frame without scripts, a frame whose document is not there).
func (t *tab) scopeOf(ctx context.Context, id cdp.FrameID) (frameScope, bool) {
	deadline := time.NewTimer(frameWait)
	defer deadline.Stop()
	for {
		t.mu.Lock()
		sc, ok := t.scopeLocked(id)
		crashed := false
		if h := t.oopifs[id]; h != nil {
			select {
			case <-h.down:
				crashed = true
			default:
			}
		}
		if t.frameSignal == nil {
			t.frameSignal = make(chan struct{})
		}
		signal := t.frameSignal
		t.mu.Unlock()
		if ok || crashed {
			return sc, ok
		}
		select {
		case <-signal:
		case <-deadline.C:
			return frameScope{}, false
		case <-ctx.Done():
			return frameScope{}, false
		case <-t.closed:
			return frameScope{}, false
		}
	}
}

// scopeLocked is scopeOf without waiting; t.mu is held. An OOPIF's frame is its session's main frame; an OOPIF
// whose Runtime is not enabled yet has no contexts and is not ready.
func (t *tab) scopeLocked(id cdp.FrameID) (frameScope, bool) {
	if h := t.oopifs[id]; h != nil {
		if c, ok := h.contexts[id]; ok {
			return frameScope{s: h.s, ctx: c.id}, true
		}
		return frameScope{}, false
	}
	hosts := []*frameHost{t.host}
	for _, h := range t.oopifs {
		hosts = append(hosts, h)
	}
	for _, h := range hosts {
		if c, ok := h.contexts[id]; ok {
			return frameScope{s: h.s, ctx: c.id}, true
		}
	}
	return frameScope{}, false
}

// hostSessions are the sessions of the tab's frames: its own and its OOPIFs'.
func (t *tab) hostSessions() []session {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := []session{t.s}
	for _, h := range t.oopifs {
		out = append(out, h.s)
	}
	return out
}

// frame is a frame as one snapshot entered it.
type frame struct {
	scope frameScope
	// name is the frame's part of its refs: "" for the top document, "f1", "f2" ... in document order.
	name string
	// owner is the iframe element showing the frame, in its parent frame; nil for the top document.
	owner *refLoc
}

// refLoc is where a ref's element is kept: its frame and its index among the elements the frame's document
// keeps for the snapshot (see jsSnapshot).
type refLoc struct {
	f *frame
	i int
}

// framedPoint is a point jsPoint or jsFramePoint answered, and whether they scrolled to bring it into view.
type framedPoint struct {
	X, Y     float64
	Scrolled bool
}

// framePoint turns a point in frame f's viewport into the top viewport's: up through each iframe showing a
// frame, each scrolled into view in its parent when the point is outside it and, with check, refused when
// something of the parent covers the iframe there (jsFramePoint). When an out-of-process frame's element moved,
// it waits for the page to render (jsFrames) so that input goes where the element now is.
func (t *tab) framePoint(ctx context.Context, key string, f *frame, p framedPoint, what string, check bool) (float64, float64, error) {
	scrolled, oop := p.Scrolled, f.scope.s.id != t.s.id
	for f.owner != nil {
		owner := *f.owner
		obj, err := t.resolveCached(ctx, key, owner)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: the iframe showing frame %s: %w", what, f.name, err)
		}
		var up framedPoint
		if err := t.call(ctx, &located{obj: obj, s: owner.f.scope.s}, jsFramePoint, what, &up, p.X, p.Y, check); err != nil {
			return 0, 0, err
		}
		scrolled = scrolled || up.Scrolled
		oop = oop || owner.f.scope.s.id != t.s.id
		p, f = up, owner.f
	}
	if scrolled && oop {
		var res runtime.EvaluateResult
		if err := t.s.Call(ctx, runtime.CommandEvaluate, runtime.EvaluateParams{Expression: jsFrames, AwaitPromise: ptr(true)}, &res); err != nil {
			return 0, 0, fmt.Errorf("%s: %w", what, err)
		}
	}
	return p.X, p.Y, nil
}
