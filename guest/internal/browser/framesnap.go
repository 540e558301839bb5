package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"

	"glovebox.dev/shared/errdefs"
)

// Frame limits: a page of nested or countless frames cannot make a snapshot unbounded.
const (
	// maxFrames is how many frames one snapshot enters.
	maxFrames = 64
	// maxFrameDepth is how deep nested frames a snapshot enters.
	maxFrameDepth = 8
)

// framePage is jsSnapshot's answer for one frame.
type framePage struct {
	Nodes    []pageNode `json:"nodes"`
	Complete bool       `json:"complete"`
	VW       int32      `json:"vw"`
	VH       int32      `json:"vh"`
}

// collection is a snapshot's walk through a tab's frames.
type collection struct {
	t         *tab
	key       string
	maxNodes  int
	maxDepth  int
	boundsAll bool
	// used counts the nodes taken so far, frames counts the frames entered (the top document included).
	used, frames int
	// cut says max_nodes was reached; reasons say which frames were left out and why.
	cut     bool
	reasons []string

	// nodes are the nodes of every frame entered, in document order, with parents, depths and bounds in the top
	// document's terms; locs say where each node's element is kept; vw and vh are the top viewport's size.
	nodes  []pageNode
	locs   []refLoc
	vw, vh int32
}

// collect walks the tab's top document and every frame it can enter (same-process frames in their own
// execution context, OOPIFs in their session) with jsSnapshot.
func (t *tab) collect(ctx context.Context, key string, maxNodes, maxDepth int, boundsAll bool) (*collection, error) {
	c := &collection{t: t, key: key, maxNodes: maxNodes, maxDepth: maxDepth, boundsAll: boundsAll}
	page, nodes, locs, err := c.enter(ctx, &frame{scope: frameScope{s: t.s}}, 0, 0)
	if err != nil {
		return nil, err
	}
	c.nodes, c.locs, c.vw, c.vh = nodes, locs, page.VW, page.VH
	return c, nil
}

// reason is why the snapshot is incomplete, "" when it is complete.
func (c *collection) reason() string {
	r := c.reasons
	if c.cut {
		r = append([]string{fmt.Sprintf("max_nodes %d reached", c.maxNodes)}, r...)
	}
	return strings.Join(r, "; ")
}

// enter snapshots frame f (at frame nesting level, its root at depth depth) and the frames inside it; the nodes
// answered have parents relative to the answer (its root's is -1), depths from depth, and bounds in f's
// viewport.
func (c *collection) enter(ctx context.Context, f *frame, level, depth int) (*framePage, []pageNode, []refLoc, error) {
	c.frames++
	maxDepth := c.maxDepth
	if maxDepth > 0 {
		maxDepth -= depth
	}
	tok := c.t.c.b.frameToken()
	args := map[string]any{"key": c.key, "maxNodes": c.maxNodes - c.used, "maxDepth": maxDepth, "boundsAll": c.boundsAll, "frames": tok}
	var answer string
	if err := c.t.evalIn(ctx, f.scope, jsSnapshot, "snapshot tab "+string(c.t.id), &answer, args); err != nil {
		return nil, nil, nil, err
	}
	var page framePage
	if err := json.Unmarshal([]byte(answer), &page); err != nil {
		return nil, nil, nil, fmt.Errorf("snapshot tab %s: decode: %w: %w", c.t.id, errdefs.ErrInternal, err)
	}
	c.used += len(page.Nodes)
	if !page.Complete {
		c.cut = true
	}
	var iframes []int
	for j := range page.Nodes {
		if page.Nodes[j].Role == "Iframe" {
			iframes = append(iframes, j)
		}
	}
	children := make(map[int]childFrame, len(iframes))
	if len(iframes) > 0 {
		ids, err := c.t.frameIDs(ctx, f.scope, tok, len(iframes))
		if err != nil {
			return nil, nil, nil, err
		}
		for n, j := range iframes {
			owner := &page.Nodes[j]
			what := "iframe " + f.name + "e" + strconv.Itoa(j+1)
			switch {
			case c.cut:
				continue
			case level+1 >= maxFrameDepth:
				c.reasons = append(c.reasons, what+" not entered: frames nest deeper than "+strconv.Itoa(maxFrameDepth))
				continue
			case c.frames >= maxFrames:
				c.reasons = append(c.reasons, what+" not entered: more than "+strconv.Itoa(maxFrames)+" frames")
				continue
			case c.maxDepth > 0 && depth+owner.Depth+1 >= c.maxDepth:
				continue
			case ids[n] == "":
				c.reasons = append(c.reasons, what+" not entered: it shows no frame")
				continue
			}
			sc, ok := c.t.scopeOf(ctx, ids[n])
			if !ok {
				c.reasons = append(c.reasons, what+" not entered: the browser reports no script context for its frame (its renderer crashed, or it is not loaded)")
				continue
			}
			child := &frame{scope: sc, name: "f" + strconv.Itoa(c.frames), owner: &refLoc{f: f, i: j}}
			_, nodes, locs, err := c.enter(ctx, child, level+1, depth+owner.Depth+1)
			if err != nil {
				c.reasons = append(c.reasons, what+" not entered: "+err.Error())
				continue
			}
			children[j] = childFrame{nodes, locs}
		}
	}
	// Splice each frame's nodes in after its iframe element.
	var nodes []pageNode
	var locs []refLoc
	global := make([]int, len(page.Nodes))
	for j, n := range page.Nodes {
		if n.Parent >= 0 && n.Parent < j {
			n.Parent = global[n.Parent]
		} else {
			n.Parent = -1
		}
		n.Depth += depth
		global[j] = len(nodes)
		nodes, locs = append(nodes, n), append(locs, refLoc{f: f, i: j})
		ch, ok := children[j]
		if !ok {
			continue
		}
		base := len(nodes)
		for _, cn := range ch.nodes {
			if cn.Parent < 0 {
				cn.Parent = global[j]
			} else {
				cn.Parent += base
			}
			if len(cn.Bounds) == 4 && len(n.Origin) == 2 {
				cn.Bounds = []float64{cn.Bounds[0] + n.Origin[0], cn.Bounds[1] + n.Origin[1], cn.Bounds[2], cn.Bounds[3]}
			}
			nodes = append(nodes, cn)
		}
		locs = append(locs, ch.locs...)
	}
	return &page, nodes, locs, nil
}

// childFrame is an entered frame's part of a collection.
type childFrame struct {
	nodes []pageNode
	locs  []refLoc
}

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
