package atspi

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"glovebox.dev/guest/internal/snapview"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// pager is what a snapshot keeps to answer its pages: the walk (nodes and their facts, details as pages read
// them), the nodes kept in document order and the refs, parents and depths they were given.
type pager struct {
	mu      sync.Mutex // one page at a time
	w       *walker
	kept    []int    // node indices
	refs    []string // by node index ("" when not kept)
	parents []string // by kept position
	depths  []int32  // by kept position
	reasons []string // why the snapshot is incomplete
}

// keep chooses the nodes a snapshot holds, in document order: the filters, find, max_nodes (or find's limit).
func keep(w *walker, o *agentv1.SnapshotOptions, maxNodes int) *pager {
	pg := &pager{w: w, refs: make([]string, len(w.nodes))}
	find := snapview.NewFinder(o.GetFind())
	limit := maxNodes
	if find != nil {
		limit = find.Limit
	}
	wanted := make([]bool, len(w.nodes))
	if o.GetInteractiveOnly() {
		for i, n := range w.nodes {
			if !n.gone && interactive(n) {
				for j := i; j >= 0 && !wanted[j]; j = w.nodes[j].parent {
					wanted[j] = true
				}
			}
		}
	} else {
		for i := range wanted {
			wanted[i] = true
		}
	}
	cut := ""
	var visit func(i int, depth int32, parentRef string)
	visit = func(i int, depth int32, parentRef string) {
		n := w.nodes[i]
		if n.gone || cut != "" {
			return
		}
		if wanted[i] && (find == nil || find.Match(roleName(n.role), n.name, stateList(n.states[:]))) {
			if len(pg.kept) >= limit {
				cut = fmt.Sprintf("max_nodes %d reached", maxNodes)
				if find != nil {
					cut = fmt.Sprintf("find limit %d reached: more elements match", limit)
				}
				return
			}
			ref := "e" + strconv.Itoa(len(pg.kept)+1)
			pg.kept = append(pg.kept, i)
			pg.refs[i] = ref
			if find != nil {
				pg.parents, pg.depths = append(pg.parents, ""), append(pg.depths, 0)
			} else {
				pg.parents, pg.depths = append(pg.parents, parentRef), append(pg.depths, depth)
				parentRef, depth = ref, depth+1
			}
		}
		for _, c := range n.children {
			visit(c, depth, parentRef)
		}
	}
	if len(w.nodes) > 0 {
		visit(0, 0, "")
	}
	if cut != "" {
		pg.reasons = append(pg.reasons, cut)
	}
	return pg
}

// element is kept element k as an Element; without full, only the facts the walk read (what a page's cost is
// estimated from before its details are read).
func (pg *pager) element(k int, full bool) *agentv1.Element {
	i := pg.kept[k]
	n := pg.w.nodes[i]
	el := &agentv1.Element{Ref: pg.refs[i], Role: roleName(n.role), Name: n.name, Description: n.desc,
		States: stateList(n.states[:]), ParentRef: pg.parents[k], Depth: pg.depths[k]}
	if full {
		el.Bounds, el.Actions, el.Value, el.Text, el.Range = n.bounds, n.actions, n.value, n.text, n.rng
		if n.rng != nil {
			el.Value = strconv.FormatFloat(n.rng.Current, 'g', -1, 64)
		}
	}
	return el
}

// page fills out with the page of snap's elements starting at offset, within v's budget. It estimates from the
// facts which elements can fit (a facts-only element is never larger than the full one), reads the details of
// those only, then adds them exactly; what does not fit is left for the next page.
func (b *Backend) page(ctx context.Context, snap *snapshot, out *agentv1.Snapshot, offset int, v snapview.View) {
	pg := snap.pager
	pg.mu.Lock()
	defer pg.mu.Unlock()
	p := snapview.NewPage(out, v, render)
	end, left := offset, p.Left()
	for end < len(pg.kept) {
		c := p.Cost(pg.element(end, false))
		if c > left && end > offset {
			break
		}
		left -= c
		end++
	}
	w := pg.w
	w.p = b.newPipe(ctx)
	w.mu.Lock()
	timeouts, lost := w.timeouts, w.lost
	w.mu.Unlock()
	for k := offset; k < end; k++ {
		if n := w.nodes[pg.kept[k]]; !n.detailed && !n.gone {
			w.details(n)
		}
	}
	w.p.wait()

	reasons := pg.reasons
	w.mu.Lock()
	if late := w.timeouts - timeouts; late > 0 {
		reasons = append(reasons[:len(reasons):len(reasons)], fmt.Sprintf("%d calls for this page's elements timed out: the application stopped answering", late))
	}
	if late := w.lost - lost; late > 0 {
		reasons = append(reasons[:len(reasons):len(reasons)], fmt.Sprintf("%d calls for this page's elements failed: the application left or its connection broke", late))
	}
	w.mu.Unlock()
	refs := map[string]*element{}
	next := offset
	for ; next < end; next++ {
		n := w.nodes[pg.kept[next]]
		if n.gone {
			continue // vanished since the walk
		}
		el := pg.element(next, true)
		if !p.Add(el) {
			break
		}
		refs[el.Ref] = &element{ref: n.ref, role: el.Role, name: n.name, actions: n.actions, ifaces: n.ifaces}
	}
	b.store.register(snap, refs)
	p.Finish(offset, next, len(pg.kept), reasons)
}

// interactive reports whether a user can act on n.
func interactive(n *node) bool {
	return len(n.actions) > 0 || hasState(n.states, stateEditable) || n.ifaces&(hasEditable|hasValue) != 0 && roleName(n.role) != "progress bar"
}
