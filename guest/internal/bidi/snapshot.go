package bidi

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"glovebox.dev/guest/internal/browser"
	"glovebox.dev/guest/internal/snapview"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// Frames. A tab is a top-level browsing context; each iframe shows a child browsing context of its own (same-origin
// or not: Firefox runs a cross-site one in another process, which BiDi hides), whose scripts run by its context
// id. A snapshot enters them with the engine-neutral walk (browser.Walk): the snapshot script's call in a frame
// also answers the window of each of its iframe elements, which BiDi serializes as its browsing context id.

// ffFrame is a browsing context as one snapshot entered it.
type ffFrame struct {
	// ctx is its browsing context id.
	ctx string
	// name is its part of its refs: "" for the tab's document, "f1", "f2" ... in the order entered.
	name string
	// owner is the iframe element showing it, in its parent frame; nil for the tab's document.
	owner *refLoc
	// shown are the browsing contexts its iframe elements show, in node order, as the snapshot call answered.
	shown []string
}

// refLoc is where a ref's element is kept: its frame and its index among the elements the frame's document keeps
// for the snapshot (see jsSnapshot).
type refLoc struct {
	f *ffFrame
	i int
}

// refName is the ref of an element kept at l: "e5", "f2e5".
func refName(l refLoc) string { return l.f.name + "e" + strconv.Itoa(l.i+1) }

// frameSeq names the iframe elements of one frame walk in the page.
var frameSeq atomic.Uint64

func frameToken() string { return strconv.FormatUint(frameSeq.Add(1), 10) }

// bidiFrames walks a tab's browsing contexts for a snapshot (browser.Walk).
type bidiFrames struct{ t *tab }

// Snapshot runs the kept snapshot script in frame f (runSnapshot) and keeps the contexts its iframes show.
func (w bidiFrames) Snapshot(ctx context.Context, f *ffFrame, args map[string]any) (*browser.FramePage, error) {
	arg, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("snapshot tab %s: %w: %w", w.t.id, errdefs.ErrInternal, err)
	}
	answer, shown, err := runSnapshot(ctx, w.t.f.conn, f.ctx, string(arg), "snapshot tab "+w.t.id)
	if err != nil {
		return nil, w.t.closedErr(err, "snapshot tab "+w.t.id)
	}
	f.shown = shown
	page, err := browser.ParsePage(answer)
	if err != nil {
		return nil, fmt.Errorf("snapshot tab %s: %w", w.t.id, err)
	}
	return page, nil
}

// Shown answers the contexts f's iframe elements show, as its snapshot call answered them.
func (bidiFrames) Shown(_ context.Context, f *ffFrame, _ string, n int) ([]string, error) {
	out := make([]string, n)
	copy(out, f.shown)
	return out, nil
}

// Child enters browsing context id.
func (bidiFrames) Child(_ context.Context, f *ffFrame, j int, id, name string) (*ffFrame, string) {
	return &ffFrame{ctx: id, name: name, owner: &refLoc{f: f, i: j}}, ""
}

// Name is the frame's part of its refs.
func (bidiFrames) Name(f *ffFrame) string { return f.name }

// Loc is where element j of frame f is kept.
func (bidiFrames) Loc(f *ffFrame, j int) refLoc { return refLoc{f: f, i: j} }

// snap builds a snapshot of the tab's page and its frames with the engine-neutral page script
// (browser.Scripts.Snapshot), kept in each document and called in one round trip (runSnapshot), and the
// engine-neutral walk and assembly (browser.Walk, browser.Assemble). The script runs in the page's own realm, as
// on Chromium: in our sandbox every DOM access of its walk goes through Firefox's Xray wrappers, which made it
// 3-10x slower (~35 ms against ~120-350 ms on the benchmark page). register makes it the tab's newest
// (SnapshotTab): its elements stay in each frame's document, under a symbol, as its refs (the actions in the
// sandbox read them from there), kept in the tab's browser.Refs; Extract renders without touching the tab's refs.
func (t *tab) snap(ctx context.Context, opts *agentv1.SnapshotOptions, register bool) (*agentv1.Snapshot, error) {
	start := time.Now()
	nav := t.refs.Nav()
	maxNodes := int(opts.GetMaxNodes())
	if maxNodes == 0 {
		maxNodes = validate.DefaultSnapshotNodes
	}
	s := &agentv1.Snapshot{Target: &agentv1.Target{Kind: &agentv1.Target_Tab{Tab: &agentv1.TabTarget{BrowserId: t.f.id(), TabId: t.id}}}}
	if opts.GetCursor() != "" && register {
		if err := t.refs.Continue(opts.GetCursor(), t.name(), t.f.b.snaps, s, snapview.ViewOf(opts, 0)); err != nil {
			return nil, err
		}
		s.TookUs = time.Since(start).Microseconds()
		return s, nil
	}
	var rootAt refLoc
	if st := opts.GetSubtree(); st != nil && register {
		at, err := t.node(st)
		if err != nil {
			return nil, fmt.Errorf("options.subtree: %w", err)
		}
		var there bool
		if err := t.inPage(ctx, at.f.ctx, browser.Scripts.MarkSubtree, &there, st.GetSnapshotId(), at.i); err != nil {
			return nil, err
		}
		if !there {
			return nil, fmt.Errorf("options.subtree: element %s is no longer in the page: take a new snapshot: %w", st.GetRef(), errdefs.ErrStaleRef)
		}
		rootAt = at
	}
	id := ""
	if register {
		id = t.f.b.snaps.New(t.name())
	}
	w, err := browser.Walk[*ffFrame, refLoc](ctx, bidiFrames{t}, &ffFrame{ctx: t.id}, id, maxNodes, int(opts.GetMaxDepth()), opts.GetVisibleOnly(), frameToken)
	if err != nil {
		return nil, err
	}
	root := -1
	if rootAt.f != nil {
		// The root's element in the new snapshot: the same DOM node, in the same browsing context's document.
		i := -1
		if err := t.inPage(ctx, rootAt.f.ctx, browser.Scripts.FindSubtree, &i); err != nil {
			return nil, err
		}
		for j := range w.Tree.Len() {
			if l := w.Tree.Loc(j); l.i == i && l.f.ctx == rootAt.f.ctx {
				root = j
			}
		}
		if root < 0 {
			return nil, fmt.Errorf("options.subtree: element %s is not in the new snapshot (past max_nodes, or gone): %w", opts.GetSubtree().GetRef(), errdefs.ErrStaleRef)
		}
	}
	a := browser.Assemble(w.Tree, w.VW, w.VH, opts, refName, w.Reason(), root)
	if register {
		t.refs.Remember(id, nav, a, s, snapview.ViewOf(opts, 0))
	} else {
		a.Render(s, opts)
	}
	s.TookUs = time.Since(start).Microseconds()
	return s, nil
}

// inPage runs page function fn with JSON arguments in the page realm of browsing context ctxID (where the
// snapshot keeps its elements) and decodes its answer into out.
func (t *tab) inPage(ctx context.Context, ctxID, fn string, out any, args ...any) error {
	arg, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("snapshot tab %s: %w: %w", t.id, errdefs.ErrInternal, err)
	}
	expr := "JSON.stringify((" + fn + ").apply(null, " + string(arg) + "))"
	return t.closedErr(evaluateIn(ctx, t.f.conn, scriptTarget{Context: ctxID}, expr, "snapshot tab "+t.id, out), "snapshot tab "+t.id)
}

// SnapshotTab snapshots a tab; its refs replace the tab's earlier ones (unless detached).
func (b *Backend) SnapshotTab(ctx context.Context, r *agentv1.SnapshotTabRequest) (*agentv1.SnapshotTabResponse, error) {
	t, err := b.resolveTab(ctx, r.GetTab())
	if err != nil {
		return nil, err
	}
	s, err := t.snap(ctx, r.GetOptions(), !r.GetOptions().GetDetached())
	if err != nil {
		return nil, err
	}
	return &agentv1.SnapshotTabResponse{Snapshot: s}, nil
}
