package browser

import (
	"fmt"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/chromedp"

	"glovebox.dev/guest/internal/snapview"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// Building a snapshot, for either engine: each engine runs the snapshot script (jsSnapshot) in each frame it
// enters and finds the frames the iframe elements show; what is built from the answers is the same. ParsePage
// reads one frame's answer, Splice puts a frame's nodes and those of the frames inside it into one tree, Assemble
// applies the snapshot's options to the tree, and Refs.Remember (SnapshotTab) or Assembled.Render (Extract)
// answers it.

// FramePage is one frame's snapshot script answer.
type FramePage struct {
	Nodes    []pageNode `json:"nodes"`
	Complete bool       `json:"complete"`
	VW       int32      `json:"vw"`
	VH       int32      `json:"vh"`
}

// ParsePage decodes one frame's snapshot script answer (with jsonv2: 1.3 against 4.8 ms with encoding/json for
// the benchmark page's 83 KB).
func ParsePage(answer []byte) (*FramePage, error) {
	var page FramePage
	if err := jsonv2.Unmarshal(answer, &page, chromedp.DefaultUnmarshalOptions); err != nil {
		return nil, fmt.Errorf("decode: %w: %w", errdefs.ErrInternal, err)
	}
	return &page, nil
}

// Iframes are the indices of the page's iframe elements, in node order (the order the script keeps them in).
func (p *FramePage) Iframes() []int {
	var out []int
	for j := range p.Nodes {
		if p.Nodes[j].Role == "Iframe" {
			out = append(out, j)
		}
	}
	return out
}

// Depth is node j's depth in its frame.
func (p *FramePage) Depth(j int) int { return p.Nodes[j].Depth }

// Tree is a snapshot's nodes through the frames entered, in document order, with parents, depths and bounds in
// the top document's terms, and where each node's element is kept (L: the engine's frame and index).
type Tree[L comparable] struct {
	nodes []pageNode
	locs  []L
}

// Len is the number of nodes.
func (t Tree[L]) Len() int { return len(t.nodes) }

// Loc is where node i's element is kept.
func (t Tree[L]) Loc(i int) L { return t.locs[i] }

// Splice makes the tree of frame page p (locs: where each of its nodes is kept), its root at depth depth, with
// the tree of each frame entered spliced in after the iframe element showing it (children, by node index): their
// parents and depths under that element, their bounds moved by its content box's origin.
func Splice[L comparable](p *FramePage, locs []L, depth int, children map[int]Tree[L]) Tree[L] {
	size := len(p.Nodes)
	for _, ch := range children {
		size += len(ch.nodes)
	}
	out := Tree[L]{nodes: make([]pageNode, 0, size), locs: make([]L, 0, size)}
	global := make([]int, len(p.Nodes))
	for j, n := range p.Nodes {
		if n.Parent >= 0 && n.Parent < j {
			n.Parent = global[n.Parent]
		} else {
			n.Parent = -1
		}
		n.Depth += depth
		global[j] = len(out.nodes)
		out.nodes, out.locs = append(out.nodes, n), append(out.locs, locs[j])
		ch, ok := children[j]
		if !ok {
			continue
		}
		base := len(out.nodes)
		for _, cn := range ch.nodes {
			if cn.Parent < 0 {
				cn.Parent = global[j]
			} else {
				cn.Parent += base
			}
			if len(cn.Bounds) == 4 && len(n.Origin) == 2 {
				cn.Bounds = []float64{cn.Bounds[0] + n.Origin[0], cn.Bounds[1] + n.Origin[1], cn.Bounds[2], cn.Bounds[3]}
			}
			out.nodes = append(out.nodes, cn)
		}
		out.locs = append(out.locs, ch.locs...)
	}
	return out
}

// Assembled is a snapshot's elements as its options keep them, with where each kept element is kept in the page,
// before it is registered (Refs.Remember) or rendered (Assembled.Render).
type Assembled[L comparable] struct {
	kept    []*agentv1.Element
	index   map[string]L
	reasons []string
}

// Assemble applies a snapshot's options to its tree: refs named by name (of where the element is kept), the
// interactive and visible filters (vw, vh: the top viewport), the subtree of node root (-1: the whole tree) and
// find. reason says why the tree is incomplete ("": it is not).
func Assemble[L comparable](tree Tree[L], vw, vh int32, opts *agentv1.SnapshotOptions, name func(L) string, reason string, root int) *Assembled[L] {
	names := make([]string, len(tree.nodes))
	for i, l := range tree.locs {
		names[i] = name(l)
	}
	els := buildElements(tree.nodes, names, vw, vh, opts)
	a := &Assembled[L]{index: map[string]L{}}
	for i, e := range els {
		if e.keep {
			e.el.States = dropState(e.el.States, "focusable")
			a.kept = append(a.kept, e.el)
			a.index[e.el.Ref] = tree.locs[i]
		}
	}
	if root >= 0 {
		a.kept = subtree(a.kept, els[root].el.Ref)
	}
	if reason != "" {
		a.reasons = append(a.reasons, reason)
	}
	if f := snapview.NewFinder(opts.GetFind()); f != nil {
		var found []*agentv1.Element
		for _, el := range a.kept {
			if f.Match(el.Role, el.Name, el.States) {
				if len(found) == f.Limit {
					a.reasons = append(a.reasons, fmt.Sprintf("find limit %d reached: more elements match", f.Limit))
					break
				}
				el.Depth, el.ParentRef = 0, ""
				found = append(found, el)
			}
		}
		a.kept = found
	}
	return a
}

// Render fills out (whose target is set) with the first page of a, within opts' budget, without registering it:
// its refs resolve nowhere (a detached snapshot, Extract).
func (a *Assembled[L]) Render(out *agentv1.Snapshot, opts *agentv1.SnapshotOptions) {
	p := snapview.NewPage(out, snapview.ViewOf(opts, 0), render)
	next := 0
	for next < len(a.kept) && p.Add(a.kept[next]) {
		next++
	}
	// Kept nowhere, it has no later pages: what the budget left out is said in its reasons (snapview).
	p.Finish(0, next, len(a.kept), next < len(a.kept), a.reasons)
}
