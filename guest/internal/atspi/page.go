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
	scanned int      // a lazy walk's nodes looked at so far (more)
	maxKept int      // a lazy walk keeps at most this many nodes (max_nodes), 0 for no bound
	cut     string   // why a lazy walk kept no more (maxKept), once it found out
}

// lazyChunk is the fewest nodes a lazy walk reads at a time: a page of a few KiB holds some dozens.
const lazyChunk = 48

// more keeps the nodes a lazy walk read since the last call: every node under the root (visible_only: but
// those not showing, with their subtrees), in document order, named by its place in it (so a ref is known
// before the nodes in front of it are read; see focused), up to maxKept.
func (pg *pager) more() {
	w := pg.w
	pg.refs = append(pg.refs, make([]string, len(w.nodes)-len(pg.refs))...)
	for ; pg.scanned < len(w.nodes) && pg.cut == ""; pg.scanned++ {
		i := pg.scanned
		n := w.nodes[i]
		if n.gone || n.hidden || i > 0 && pg.refs[n.parent] == "" {
			continue
		}
		if pg.maxKept > 0 && len(pg.kept) >= pg.maxKept {
			pg.cut = fmt.Sprintf("max_nodes %d reached", pg.maxKept)
			break
		}
		pg.refs[i] = "e" + strconv.Itoa(n.pos+1)
		pg.kept = append(pg.kept, i)
		parent := ""
		if i > 0 {
			parent = pg.refs[n.parent]
		}
		pg.parents, pg.depths = append(pg.parents, parent), append(pg.depths, int32(n.depth))
	}
}

// unread is how many nodes a lazy walk has listed but not read yet, plus one while Collection may list more
// (0 once it kept max_nodes).
func (pg *pager) unread() int {
	if !pg.w.lazy || pg.cut != "" {
		return 0
	}
	n := len(pg.w.refs) - pg.w.added
	if !pg.w.refsDone {
		n++
	}
	return n
}

// total is the number of elements of the whole snapshot, 0 while a lazy walk may still list more (or, with
// visible_only, while it has nodes left to read: any of them may be left out).
func (pg *pager) total() int {
	if pg.w.lazy && (!pg.w.refsDone || pg.w.visible && pg.unread() > 0) {
		return 0
	}
	return len(pg.kept) + pg.unread()
}

// keep chooses the nodes a snapshot holds, in document order: the filters, find, max_nodes (or find's limit).
func keep(w *walker, o *agentv1.SnapshotOptions, maxNodes int) *pager {
	pg := &pager{w: w, refs: make([]string, len(w.nodes))}
	if w.lazy {
		pg.maxKept = maxNodes
		pg.more()
		return pg
	}
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
	// An unfiltered flat walk names each node by its place in document order, as a lazy one does, so the refs
	// of a paged snapshot and of a whole one agree.
	byPlace := w.flat && find == nil && !o.GetInteractiveOnly()
	cut := ""
	var visit func(i int, depth int32, parentRef string)
	visit = func(i int, depth int32, parentRef string) {
		n := w.nodes[i]
		if n.gone || n.hidden || cut != "" {
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
			if byPlace {
				ref = "e" + strconv.Itoa(n.pos+1)
			}
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
	w := pg.w
	w.p = b.newPipe(ctx)
	end, left := offset, p.Left()
	for {
		if end == len(pg.kept) {
			// A lazy walk reads more nodes while the page has room: about as many as the room left would
			// hold at the page's average cost so far.
			if pg.unread() == 0 || ctx.Err() != nil {
				break
			}
			k := lazyChunk
			if end > offset {
				k = max(k, left/max(1, (p.Left()-left)/(end-offset))+8)
			}
			w.grow(k)
			pg.more()
			continue
		}
		c := p.Cost(pg.element(end, false))
		if c > left && end > offset {
			break
		}
		left -= c
		end++
	}
	w.mu.Lock()
	timeouts, lost := w.timeouts, w.lost
	w.mu.Unlock()
	for k := offset; k < end; k++ {
		if n := w.nodes[pg.kept[k]]; !n.gone {
			w.details(n, !v.TextOnly)
		}
	}
	w.p.wait()

	reasons := pg.reasons
	if pg.cut != "" {
		reasons = append(reasons[:len(reasons):len(reasons)], pg.cut)
	}
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
	p.Finish(offset, next, pg.total(), next < len(pg.kept) || pg.unread() > 0, reasons)
}

// interactive reports whether a user can act on n.
func interactive(n *node) bool {
	return len(n.actions) > 0 || hasState(n.states, stateEditable) || n.ifaces&(hasEditable|hasValue) != 0 && roleName(n.role) != "progress bar"
}
