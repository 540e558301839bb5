package browser

import (
	"context"
	"fmt"
	"strconv"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
)

// cdpFrames walks a tab's frames for a snapshot (Walk): same-process frames in their own execution context,
// OOPIFs in their session.
type cdpFrames struct{ t *tab }

// collect walks the tab's top document and every frame it can enter with jsSnapshot.
func (t *tab) collect(ctx context.Context, key string, maxNodes, maxDepth int, boundsAll bool) (*Walked[refLoc], error) {
	return Walk[*frame, refLoc](ctx, cdpFrames{t}, &frame{scope: frameScope{s: t.s}}, key, maxNodes, maxDepth, boundsAll, t.c.b.frameToken)
}

// Snapshot runs jsSnapshot in frame f.
func (c cdpFrames) Snapshot(ctx context.Context, f *frame, args map[string]any) (*FramePage, error) {
	var answer string
	if err := c.t.evalIn(ctx, f.scope, jsSnapshot, "snapshot tab "+string(c.t.id), &answer, args); err != nil {
		return nil, err
	}
	page, err := ParsePage([]byte(answer))
	if err != nil {
		return nil, fmt.Errorf("snapshot tab %s: %w", c.t.id, err)
	}
	return page, nil
}

// Shown answers the frame ids of f's iframe elements (frameIDs).
func (c cdpFrames) Shown(ctx context.Context, f *frame, tok string, n int) ([]string, error) {
	ids, err := c.t.frameIDs(ctx, f.scope, tok, n)
	if err != nil {
		return nil, err
	}
	out := make([]string, n)
	for i, id := range ids {
		out[i] = string(id)
	}
	return out, nil
}

// Child enters frame id where its scripts run (scopeOf, waiting for a frame just loaded).
func (c cdpFrames) Child(ctx context.Context, f *frame, j int, id, name string) (*frame, string) {
	sc, ok := c.t.scopeOf(ctx, cdp.FrameID(id))
	if !ok {
		return nil, "the browser reports no script context for its frame (its renderer crashed, or it is not loaded)"
	}
	return &frame{scope: sc, name: name, owner: &refLoc{f: f, i: j}}, ""
}

// Name is the frame's part of its refs.
func (cdpFrames) Name(f *frame) string { return f.name }

// Loc is where element j of frame f is kept.
func (cdpFrames) Loc(f *frame, j int) refLoc { return refLoc{f: f, i: j} }

// frameIDs answers the frame each of the n iframe elements jsSnapshot kept under tok shows ("" for none), in
// two batches of calls whatever n is, and drops them from the page.
func (t *tab) frameIDs(ctx context.Context, sc frameScope, tok string, n int) ([]cdp.FrameID, error) {
	list := "document[Symbol.for(" + jsonString("glovebox.frames."+tok) + ")]"
	objs := make([]runtime.EvaluateResult, n)
	cmds := make([]command, n)
	for i := range n {
		cmds[i] = command{method: runtime.CommandEvaluate, params: runtime.EvaluateParams{
			Expression: list + "[" + strconv.Itoa(i) + "]", ContextID: sc.ctx, ObjectGroup: "glovebox-frames"}, res: &objs[i]}
	}
	if err := t.c.conn.batch(ctx, sc.s, cmds); err != nil {
		return nil, fmt.Errorf("snapshot tab %s: frames: %w", t.id, err)
	}
	descs := make([]dom.DescribeNodeResult, n)
	cmds = cmds[:0]
	for i := range n {
		if objs[i].Result == nil || objs[i].Result.ObjectID == "" {
			continue
		}
		cmds = append(cmds, command{method: dom.CommandDescribeNode, params: dom.DescribeNodeParams{ObjectID: objs[i].Result.ObjectID}, res: &descs[i]})
	}
	cmds = append(cmds,
		command{method: runtime.CommandEvaluate, params: runtime.EvaluateParams{Expression: "delete " + list, ContextID: sc.ctx}},
		command{method: runtime.CommandReleaseObjectGroup, params: runtime.ReleaseObjectGroupParams{ObjectGroup: "glovebox-frames"}})
	if err := t.c.conn.batch(ctx, sc.s, cmds); err != nil {
		return nil, fmt.Errorf("snapshot tab %s: frames: %w", t.id, err)
	}
	ids := make([]cdp.FrameID, n)
	for i, d := range descs {
		if d.Node != nil {
			ids[i] = d.Node.FrameID
		}
	}
	return ids, nil
}

// frameToken names one frame walk's iframe elements in the page.
func (b *Backend) frameToken() string { return strconv.FormatUint(b.frameSeq.Add(1), 10) }
