package browser

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Frame limits: a page of nested or countless frames cannot make a snapshot unbounded.
const (
	// maxFrames is how many frames one snapshot enters.
	maxFrames = 64
	// maxFrameDepth is how deep nested frames a snapshot enters.
	maxFrameDepth = 8
)

// Frames is what an engine gives a snapshot's walk through a tab's frames (Walk); F is its frame as one walk
// enters it, L where an element of a frame is kept.
type Frames[F any, L comparable] interface {
	// Snapshot runs the snapshot script (jsSnapshot) with args in frame f and answers its page.
	Snapshot(ctx context.Context, f F, args map[string]any) (*FramePage, error)
	// Shown answers the frame each of f's n iframe elements shows, in node order ("" for none): the script kept
	// them under its arguments' frames token tok.
	Shown(ctx context.Context, f F, tok string, n int) ([]string, error)
	// Child answers frame id, which iframe element j of f shows, as a frame to enter named name, or why it
	// cannot be entered.
	Child(ctx context.Context, f F, j int, id, name string) (F, string)
	// Name is frame f's part of its refs: "" for the top document, "f2" for the second frame entered.
	Name(f F) string
	// Loc is where element j of frame f's page is kept.
	Loc(f F, j int) L
}

// Walked is a snapshot's walk through a tab's frames: its tree, the top viewport's size, and why it is
// incomplete.
type Walked[L comparable] struct {
	Tree   Tree[L]
	VW, VH int32
	cut    bool
	max    int
	skip   []string
}

// Reason is why the walk is incomplete, "" when it is complete.
func (w *Walked[L]) Reason() string {
	r := w.skip
	if w.cut {
		r = append([]string{fmt.Sprintf("max_nodes %d reached", w.max)}, r...)
	}
	return strings.Join(r, "; ")
}

// walk is one Walk's state: used counts the nodes taken so far, frames the frames entered (the top document
// included).
type walk[F any, L comparable] struct {
	fr        Frames[F, L]
	key       string
	maxNodes  int
	maxDepth  int
	boundsAll bool
	token     func() string
	used      int
	frames    int
	out       *Walked[L]
}

// Walk snapshots frame top and every frame it can enter, within max_nodes, maxFrames and maxFrameDepth (each
// frame left out is named in the reason), with jsSnapshot under snapshot key key (none: not kept); token names
// one frame's iframe elements in its page.
func Walk[F any, L comparable](ctx context.Context, fr Frames[F, L], top F, key string, maxNodes, maxDepth int, boundsAll bool, token func() string) (*Walked[L], error) {
	w := &walk[F, L]{fr: fr, key: key, maxNodes: maxNodes, maxDepth: maxDepth, boundsAll: boundsAll, token: token, out: &Walked[L]{max: maxNodes}}
	page, tree, err := w.enter(ctx, top, 0, 0)
	if err != nil {
		return nil, err
	}
	w.out.Tree, w.out.VW, w.out.VH = tree, page.VW, page.VH
	return w.out, nil
}

// enter snapshots frame f (at frame nesting level, its root at depth depth) and the frames inside it.
func (w *walk[F, L]) enter(ctx context.Context, f F, level, depth int) (*FramePage, Tree[L], error) {
	w.frames++
	maxDepth := w.maxDepth
	if maxDepth > 0 {
		maxDepth -= depth
	}
	tok := w.token()
	page, err := w.fr.Snapshot(ctx, f, map[string]any{"key": w.key, "maxNodes": w.maxNodes - w.used, "maxDepth": maxDepth, "boundsAll": w.boundsAll, "frames": tok})
	if err != nil {
		return nil, Tree[L]{}, err
	}
	w.used += len(page.Nodes)
	if !page.Complete {
		w.out.cut = true
	}
	children := map[int]Tree[L]{}
	if iframes := page.Iframes(); len(iframes) > 0 {
		ids, err := w.fr.Shown(ctx, f, tok, len(iframes))
		if err != nil {
			return nil, Tree[L]{}, err
		}
		for n, j := range iframes {
			what := "iframe " + w.fr.Name(f) + "e" + strconv.Itoa(j+1)
			switch {
			case w.out.cut:
				continue
			case level+1 >= maxFrameDepth:
				w.out.skip = append(w.out.skip, what+" not entered: frames nest deeper than "+strconv.Itoa(maxFrameDepth))
				continue
			case w.frames >= maxFrames:
				w.out.skip = append(w.out.skip, what+" not entered: more than "+strconv.Itoa(maxFrames)+" frames")
				continue
			case w.maxDepth > 0 && depth+page.Depth(j)+1 >= w.maxDepth:
				continue
			case ids[n] == "":
				w.out.skip = append(w.out.skip, what+" not entered: it shows no frame")
				continue
			}
			child, why := w.fr.Child(ctx, f, j, ids[n], "f"+strconv.Itoa(w.frames))
			if why != "" {
				w.out.skip = append(w.out.skip, what+" not entered: "+why)
				continue
			}
			_, tree, err := w.enter(ctx, child, level+1, depth+page.Depth(j)+1)
			if err != nil {
				w.out.skip = append(w.out.skip, what+" not entered: "+err.Error())
				continue
			}
			children[j] = tree
		}
	}
	locs := make([]L, len(page.Nodes))
	for j := range locs {
		locs[j] = w.fr.Loc(f, j)
	}
	return page, Splice(page, locs, depth, children), nil
}
