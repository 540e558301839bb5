package atspi

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/godbus/dbus/v5"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// MaxTextRunes bounds Element.text (snapshot.proto).
const MaxTextRunes = 4096

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

	mu       sync.Mutex
	nodes    []*node
	seen     map[objRef]bool
	cut      string // why the tree was cut (limits), first reason only
	timeouts int
	missed   int // nodes the cache did not have
}

// walk reads the tree under root. The nodes come back in the order they were found; children lists give the
// document order.
func (w *walker) walk(root objRef) {
	w.seen = map[objRef]bool{}
	w.mu.Lock()
	w.add(root, -1, 0)
	w.mu.Unlock()
	w.p.wait()
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
		n.role, n.name, n.desc, n.childCount = it.Role, it.Name, it.Desc, it.Children
		copy(n.states[:], it.States)
		n.ifaces = ifaceSet(it.Ifaces)
		w.known(i, n)
		return
	}
	w.missed++
	w.fetchFacts(i, n)
}

// fetchFacts reads what the cache would have told: role, states, interfaces, name, description, child count.
func (w *walker) fetchFacts(i int, n *node) {
	var left atomic.Int32
	left.Store(4)
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
	w.p.do(n.ref.Name, n.ref.Path, ifAccessible+".GetInterfaces", nil, func(c *dbus.Call) {
		var s []string
		if c.Store(&s) == nil {
			n.ifaces = ifaceSet(s)
		}
		finish(c)
	})
	w.p.do(n.ref.Name, n.ref.Path, ifProperties+".GetAll", []any{ifAccessible}, func(c *dbus.Call) {
		var m map[string]dbus.Variant
		if c.Store(&m) == nil {
			n.name, _ = m["Name"].Value().(string)
			n.desc, _ = m["Description"].Value().(string)
			n.childCount, _ = m["ChildCount"].Value().(int32)
		}
		finish(c)
	})
}

// failed notes a call's failure: a vanished object drops its node, a timeout makes the snapshot incomplete.
func (w *walker) failed(n *node, err error) {
	if err == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if obj, _ := errGone(err); obj {
		n.gone = true
		return
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		w.timeouts++
	}
}

func (w *walker) cutf(format string, args ...any) {
	if w.cut == "" {
		w.cut = fmt.Sprintf(format, args...)
	}
}

// known starts the detail calls and the children of a node whose facts are known (w.mu held).
func (w *walker) known(i int, n *node) {
	if w.visible && n.parent >= 0 && !hasState(n.states, stateShowing) {
		n.gone = true // left out, with its subtree
		return
	}
	d := func(iface, method string, args []any, store func(*dbus.Call)) {
		w.p.do(n.ref.Name, n.ref.Path, iface+"."+method, args, func(c *dbus.Call) {
			if c.Err != nil {
				w.failed(n, c.Err)
				return
			}
			store(c)
		})
	}
	if n.ifaces&hasComponent != 0 {
		d(ifComponent, "GetExtents", []any{coordScreen}, func(c *dbus.Call) {
			var r struct{ X, Y, W, H int32 }
			if c.Store(&r) == nil {
				n.bounds = rect(r.X, r.Y, r.W, r.H)
			}
		})
	}
	if n.ifaces&hasText != 0 {
		d(ifText, "GetText", []any{int32(0), int32(-1)}, func(c *dbus.Call) {
			var s string
			if c.Store(&s) == nil {
				n.text = truncRunes(s, MaxTextRunes)
			}
		})
	}
	if n.ifaces&hasValue != 0 {
		d(ifProperties, "GetAll", []any{ifValue}, func(c *dbus.Call) {
			var m map[string]dbus.Variant
			if c.Store(&m) == nil {
				n.rng, n.value = valueOf(m)
			}
		})
	}
	if n.ifaces&hasAction != 0 {
		d(ifAction, "GetActions", nil, func(c *dbus.Call) {
			var acts []struct{ Name, Desc, Key string }
			if c.Store(&acts) == nil {
				for _, a := range acts {
					n.actions = append(n.actions, a.Name)
				}
			}
		})
	}
	switch {
	case n.childCount <= 0:
	case w.maxDepth > 0 && n.depth >= w.maxDepth:
		w.cutf("max_depth %d: deeper elements left out", w.maxDepth)
	case int(n.childCount) > w.limit:
		w.cutf("element %s has %d children, more than max_nodes %d", n.ref.Path, n.childCount, w.limit)
	default:
		d(ifAccessible, "GetChildren", nil, func(c *dbus.Call) {
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

// valueOf reads the Value interface's properties.
func valueOf(m map[string]dbus.Variant) (*agentv1.ValueRange, string) {
	f := func(k string) float64 { v, _ := m[k].Value().(float64); return v }
	r := &agentv1.ValueRange{Current: f("CurrentValue"), Minimum: f("MinimumValue"), Maximum: f("MaximumValue"), Step: f("MinimumIncrement")}
	if s, _ := m["Text"].Value().(string); s != "" {
		return r, s
	}
	return r, strconv.FormatFloat(r.Current, 'g', -1, 64)
}

// truncRunes cuts s to at most n runes.
func truncRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
