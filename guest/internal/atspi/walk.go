package atspi

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/godbus/dbus/v5"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// objRef is an accessible: the bus name of its application and its object path.
type objRef struct {
	Name string
	Path dbus.ObjectPath
}

// cacheItem is one entry of org.a11y.atspi.Cache.GetItems, signature ((so)(so)(so)iiassusau).
type cacheItem struct {
	Ref, App, Parent objRef
	Index, Children  int32
	Ifaces           []string
	Name             string
	Role             uint32
	Desc             string
	States           []uint32
}

// ifaces is a set of the AT-SPI interfaces an element implements.
type ifaces uint8

const (
	hasComponent ifaces = 1 << iota
	hasText
	hasEditable
	hasValue
	hasAction
)

func ifaceSet(names []string) ifaces {
	var s ifaces
	for _, n := range names {
		switch n {
		case ifComponent:
			s |= hasComponent
		case ifText:
			s |= hasText
		case ifEditable:
			s |= hasEditable
		case ifValue:
			s |= hasValue
		case ifAction:
			s |= hasAction
		}
	}
	return s
}

// node is an element being read.
type node struct {
	ref        objRef
	parent     int // index in walker.nodes, -1 for the root
	depth      int
	role       uint32
	name, desc string
	states     [2]uint32
	ifaces     ifaces
	childCount int32
	children   []int
	gone       bool
	hidden     bool   // left out by visible_only (not showing), with its subtree; still linked in a flat walk
	cached     bool   // the facts came from the app's cache
	parentRef  objRef // in a flat walk: the parent, linked once every node is known
	pos        int    // in a flat walk: the place in document order (0 the root), which names a lazy walk's ref

	detailed    bool // details but the bounds read (or being read)
	boundsRead  bool // bounds read (or being read)
	actionsRead bool

	bounds  *agentv1.Rect
	text    string
	value   string
	rng     *agentv1.ValueRange
	actions []string
}

// walker reads a tree: node facts from the app's cache where it has them, GetChildren for the structure,
// and per-node details (extents, text, value, actions) pipelined through one pipe.
type walker struct {
	b        *Backend
	p        *pipe
	cache    map[objRef]*cacheItem
	limit    int
	maxDepth int
	visible  bool
	// actionsFirst reads actions with the facts (interactive_only decides by them which nodes to keep).
	actionsFirst bool
	// lazy reads the facts of a flat walk's nodes only as far as the pages need them (grow): a snapshot whose
	// filters need every node's facts (interactive_only, find) is not lazy; visible_only decides node by node
	// in document order, so it can be.
	lazy     bool
	refs     []objRef          // a flat walk's nodes in document order, as Collection listed them
	refsDone bool              // a lazy walk's refs are all listed
	added    int               // how many of refs are in nodes
	index    map[objRef]int    // node index by accessible, for linking
	linked   []int32           // children linked per node, including those max_depth leaves out
	flat     bool              // the structure came from Collection.GetMatches, not from GetChildren
	ifaces   map[objRef]ifaces // the interfaces of the listed nodes, when Collection told them (ifacematch.go)

	mu       sync.Mutex
	nodes    []*node
	seen     map[objRef]bool
	cut      string // why the tree was cut (limits), first reason only
	timeouts int
	lost     int // calls that failed because the application left or its connection broke
	missed   int // nodes the cache did not have
}

// everything is a Collection match rule that matches every element: empty sets with MATCH_ALL.
var everything = matchRule{StateMatch: 1, AttrMatch: 1, RoleMatch: 1, IfaceMatch: 1, Attrs: map[string]string{}}

// matchRule is an AT-SPI Collection match rule, signature (aiia{ss}iaiiasib).
type matchRule struct {
	States     []int32
	StateMatch int32
	Attrs      map[string]string
	AttrMatch  int32
	Roles      []int32
	RoleMatch  int32
	Ifaces     []string
	IfaceMatch int32
	Invert     bool
}

// sortCanonical is ATSPI_Collection_SORT_ORDER_CANONICAL: document order.
const sortCanonical = uint32(1)

// walk reads the tree under root. One Collection.GetMatches call lists every descendant in document order
// and the cache tells each one's parent, so the structure costs one call; an app without the Collection
// interface is walked level by level with GetChildren instead. Children lists give the document order.
func (w *walker) walk(root objRef) {
	w.seen = map[objRef]bool{}
	var refs []objRef
	count := w.limit - 1
	if w.lazy {
		count = min(count, lazyRefs)
	}
	err := w.b.call(w.p.ctx, root.Name, root.Path, "org.a11y.atspi.Collection.GetMatches",
		everything, sortCanonical, int32(count), true).Store(&refs)
	if err == nil && len(w.cache) > 0 && w.lazy {
		w.flat, w.refs, w.refsDone = true, refs, len(refs) < count
		if len(refs) >= w.limit-1 {
			w.cutf("max_nodes %d reached", w.limit)
			w.refsDone = true
		}
		w.mu.Lock()
		w.add(root, -1, 0)
		w.mu.Unlock()
		w.p.wait()
		w.link()
		return
	}
	if w.lazy && err == nil && len(w.cache) == 0 {
		// Not flat after all (no cache): the refs are not needed.
		refs = nil
	}
	w.lazy = false
	if err == nil && len(w.cache) > 0 {
		w.flat = true
		missed := 0
		for _, r := range refs {
			if _, ok := w.cache[r]; !ok {
				missed++
			}
		}
		if missed >= minIfaceMatch {
			w.ifaces = w.ifacesByMatch(root, refs)
		}
	}
	w.mu.Lock()
	if w.flat {
		w.add(root, -1, 0)
		for i, r := range refs {
			w.add(r, -2, 0)
			w.nodes[len(w.nodes)-1].pos = i + 1
		}
		if len(refs) >= w.limit-1 {
			w.cutf("max_nodes %d reached", w.limit)
		}
	} else {
		w.add(root, -1, 0)
	}
	w.mu.Unlock()
	w.p.wait()
	if !w.flat {
		return
	}
	// The nodes the cache missed are linked by their place in document order first; only when that does not
	// add up (a child count disagrees) is each one asked for its parent, and the tree linked again.
	gone := make([]bool, len(w.nodes))
	for i, n := range w.nodes {
		gone[i] = n.gone
	}
	cut := w.cut
	if w.link() || w.missed == 0 {
		return
	}
	for i, n := range w.nodes {
		n.children, n.gone = nil, gone[i]
	}
	w.cut = cut
	for _, n := range w.nodes {
		if !n.gone && !n.cached {
			w.fetchParent(n)
		}
	}
	w.p.wait()
	w.link()
}

// fetchParent reads the parent of a node the cache missed. The nodes a cache misses are typically GTK's table
// cells and column headers, created on demand and listed with stale child counts: without their own parent,
// link would hang them under whatever node precedes them.
func (w *walker) fetchParent(n *node) {
	w.p.do(n.ref.Name, n.ref.Path, ifProperties+".Get", []any{ifAccessible, "Parent"}, func(c *dbus.Call) {
		var v dbus.Variant
		var p objRef
		if c.Store(&v) == nil && v.Store(&p) == nil {
			w.mu.Lock()
			n.parentRef = p
			w.mu.Unlock()
		}
	})
}

// link sets parents, children and depths of a flat walk's nodes (in document order, parents first). A node's
// parent is the one the cache names (or fetchParent read); a node without one, or whose cached parent is a
// transient object the traversal listed under a new path (GTK's notebook pages), gets the nearest preceding node
// that still has room for a child: in document order that is its parent. link reports whether every guess
// added up: each parent found room and each node got as many children as it counts.
func (w *walker) link() bool {
	w.index, w.linked = make(map[objRef]int, len(w.nodes)), nil
	return w.linkFrom(0)
}

// linkFrom links the nodes from start on (those before are linked already; see link).
func (w *walker) linkFrom(start int) bool {
	for i := start; i < len(w.nodes); i++ {
		w.index[w.nodes[i].ref] = i
	}
	w.linked = append(w.linked, make([]int32, len(w.nodes)-len(w.linked))...)
	index, linked := w.index, w.linked
	exact := true
	for i := max(start, 1); i < len(w.nodes); i++ {
		n := w.nodes[i]
		p, ok := index[n.parentRef]
		if !ok || p >= i || w.nodes[p].gone {
			p = -1
			for j := i - 1; j >= 0; j-- {
				if c := w.nodes[j]; !c.gone && c.childCount > linked[j] {
					p = j
					break
				}
			}
			// A stale child count (the cache lags behind a table's rows) leaves no room anywhere: the
			// nearest preceding node that has children at all is the best guess, better than losing the node.
			for j := i - 1; p < 0 && j >= 0; j-- {
				if c := w.nodes[j]; !c.gone && c.childCount > 0 {
					p = j
					exact = false
				}
			}
		}
		if p < 0 {
			n.gone = true // not under the root as listed: a node that moved or vanished meanwhile
			exact = false
			continue
		}
		linked[p]++
		n.parent, n.depth = p, w.nodes[p].depth+1
		if w.maxDepth > 0 && n.depth > w.maxDepth {
			n.gone = true
			w.cutf("max_depth %d: deeper elements left out", w.maxDepth)
			continue
		}
		w.nodes[p].children = append(w.nodes[p].children, i)
	}
	for i, n := range w.nodes {
		if !n.gone && linked[i] != n.childCount {
			exact = false
		}
	}
	return exact
}

// add records a node (w.mu held) and starts reading it.
func (w *walker) add(ref objRef, parent, depth int) {
	if w.seen[ref] {
		return // a toolkit bug can make a node its own descendant; never loop
	}
	if len(w.nodes) >= w.limit {
		w.cutf("max_nodes %d reached", w.limit)
		return
	}
	w.seen[ref] = true
	n := &node{ref: ref, parent: parent, depth: depth}
	i := len(w.nodes)
	w.nodes = append(w.nodes, n)
	if parent >= 0 {
		w.nodes[parent].children = append(w.nodes[parent].children, i)
	}
	if it, ok := w.cache[ref]; ok {
		n.role, n.name, n.desc, n.childCount, n.parentRef = it.Role, it.Name, it.Desc, it.Children, it.Parent
		n.cached = true
		copy(n.states[:], it.States)
		n.ifaces = ifaceSet(it.Ifaces)
		w.known(i, n)
		return
	}
	w.missed++
	w.fetchFacts(i, n)
}

// fetchFacts reads what the cache would have told but the parent: role, states, interfaces, name, description and
// child count. The parent is read only when linking by document order does not add up (see walk).
func (w *walker) fetchFacts(i int, n *node) {
	var left atomic.Int32
	left.Store(6)
	finish := func(c *dbus.Call) {
		w.failed(n, c.Err)
		if left.Add(-1) == 0 {
			w.mu.Lock()
			if !n.gone {
				w.known(i, n)
			}
			w.mu.Unlock()
		}
	}
	w.p.do(n.ref.Name, n.ref.Path, ifAccessible+".GetRole", nil, func(c *dbus.Call) {
		_ = c.Store(&n.role)
		finish(c)
	})
	w.p.do(n.ref.Name, n.ref.Path, ifAccessible+".GetState", nil, func(c *dbus.Call) {
		var s []uint32
		if c.Store(&s) == nil {
			copy(n.states[:], s)
		}
		finish(c)
	})
	if s, ok := w.ifaces[n.ref]; ok {
		n.ifaces = s
		left.Add(-1)
	} else {
		w.p.do(n.ref.Name, n.ref.Path, ifAccessible+".GetInterfaces", nil, func(c *dbus.Call) {
			var s []string
			if c.Store(&s) == nil {
				n.ifaces = ifaceSet(s)
			}
			finish(c)
		})
	}
	// Properties one by one, never GetAll: at-spi2-atk's GetAll aborts the whole app (a libdbus assertion) when
	// one property has no value, as Chromium's do.
	w.p.do(n.ref.Name, n.ref.Path, ifProperties+".Get", []any{ifAccessible, "Name"}, func(c *dbus.Call) {
		var v dbus.Variant
		if c.Store(&v) == nil {
			n.name, _ = v.Value().(string)
		}
		finish(c)
	})
	w.p.do(n.ref.Name, n.ref.Path, ifProperties+".Get", []any{ifAccessible, "ChildCount"}, func(c *dbus.Call) {
		var v dbus.Variant
		if c.Store(&v) == nil {
			n.childCount, _ = v.Value().(int32)
		}
		finish(c)
	})
	w.p.do(n.ref.Name, n.ref.Path, ifProperties+".Get", []any{ifAccessible, "Description"}, func(c *dbus.Call) {
		var v dbus.Variant
		if c.Store(&v) == nil {
			n.desc, _ = v.Value().(string)
		}
		finish(c)
	})
}

// failed notes a call's failure: a vanished object drops its node, a timeout makes the snapshot incomplete, and
// so does the application leaving or its connection breaking (the answers still to come are lost).
func (w *walker) failed(n *node, err error) {
	if err == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var de dbus.Error
	switch obj, app := errGone(err); {
	case obj:
		n.gone = true
		if app {
			w.lost++
		}
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		w.timeouts++
	case !errors.As(err, &de) || de.Name == "org.freedesktop.DBus.Error.NoReply":
		// Not an answer of the application's: the connection failed (EOF, closed), or the bus daemon says the
		// application disconnected without answering.
		w.lost++
	}
}

func (w *walker) cutf(format string, args ...any) {
	if w.cut == "" {
		w.cut = fmt.Sprintf(format, args...)
	}
}

// known goes on from a node whose facts are known (w.mu held): the visibility filter, the actions when they
// decide what is kept, and its children. Its details wait for the page that keeps it (details).
func (w *walker) known(i int, n *node) {
	if w.visible && n.parent != -1 && !hasState(n.states, stateShowing) {
		if !w.flat {
			n.gone = true // left out, with its subtree: its children are never read
			return
		}
		// A flat walk's node stays in the tree, so the nodes under it link to it; keep and more leave it out
		// with its subtree.
		n.hidden = true
	}
	if w.actionsFirst && n.ifaces&hasAction != 0 {
		w.readActions(n)
	}
	switch {
	case w.flat || n.childCount <= 0:
	case w.maxDepth > 0 && n.depth >= w.maxDepth:
		w.cutf("max_depth %d: deeper elements left out", w.maxDepth)
	case int(n.childCount) > w.limit:
		w.cutf("element %s has %d children, more than max_nodes %d", n.ref.Path, n.childCount, w.limit)
	default:
		w.detail(n, ifAccessible, "GetChildren", nil, func(c *dbus.Call) {
			var kids []objRef
			if c.Store(&kids) != nil {
				return
			}
			w.mu.Lock()
			defer w.mu.Unlock()
			for _, k := range kids {
				w.add(k, i, n.depth+1)
			}
		})
	}
}

// valueRange reads the Value interface's range, property by property (see fetchFacts on GetAll).
func (b *Backend) valueRange(ctx context.Context, o objRef) (*agentv1.ValueRange, error) {
	r := &agentv1.ValueRange{}
	for _, f := range []struct {
		name string
		to   *float64
	}{{"MinimumValue", &r.Minimum}, {"MaximumValue", &r.Maximum}, {"CurrentValue", &r.Current}} {
		var v dbus.Variant
		if err := b.call(ctx, o.Name, o.Path, ifProperties+".Get", ifValue, f.name).Store(&v); err != nil {
			return nil, err
		}
		*f.to, _ = v.Value().(float64)
	}
	return r, nil
}
