package atspi

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/godbus/dbus/v5"
	"glovebox.dev/guest/internal/snapview"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// stateActive is ATSPI_STATE_ACTIVE: the window the user is working in.
const stateActive = 1

// maxFocusReach bounds how many more nodes an observation reads to give the focused element its ref.
const maxFocusReach = 512

// Observe snapshots one window of an app for a one-call observation and tells its focused element. The app is
// appID, else the one whose process is pid (the X window's _NET_WM_PID); the window is windowID, else the app's
// active window, else the one named title, else its first. The focused element carries its ref when the
// snapshot holds it (the ref then resolves even when the element is on a later page). An app not on the bus is
// NOT_FOUND.
func (b *Backend) Observe(ctx context.Context, appID, windowID string, pid int32, title string, o *agentv1.SnapshotOptions) (*agentv1.Snapshot, *agentv1.Element, error) {
	if appID == "" {
		appID = AppID(pid)
	}
	a, err := b.app(ctx, appID)
	if err != nil {
		return nil, nil, err
	}
	var root objRef
	if windowID != "" {
		if root, err = b.window(ctx, a, windowID); err != nil {
			return nil, nil, err
		}
	} else if root, err = b.activeWindow(ctx, a, title); err != nil {
		return nil, nil, err
	}
	snap, err := b.snapshot(ctx, a, string(root.Path), root, o)
	if err != nil {
		return nil, nil, err
	}
	return snap, b.focused(ctx, snap.GetSnapshotId(), snapview.ViewOf(o, 0).FieldBytes), nil
}

// activeWindow picks the window of a that has STATE_ACTIVE, else the one named title, else the first.
func (b *Backend) activeWindow(ctx context.Context, a appRef, title string) (objRef, error) {
	var wins []objRef
	if err := b.call(ctx, a.bus, rootPath, ifAccessible+".GetChildren").Store(&wins); err != nil {
		return objRef{}, classify(a.id(), err)
	}
	if len(wins) == 0 {
		return objRef{}, fmt.Errorf("%s has no window: %w", a.id(), errdefs.ErrNotFound)
	}
	states := make([][2]uint32, len(wins))
	names := make([]string, len(wins))
	p := b.newPipe(ctx)
	for i, w := range wins {
		p.do(w.Name, w.Path, ifAccessible+".GetState", nil, func(c *dbus.Call) {
			var s []uint32
			if c.Store(&s) == nil {
				copy(states[i][:], s)
			}
		})
		p.do(w.Name, w.Path, ifProperties+".Get", []any{ifAccessible, "Name"}, func(c *dbus.Call) {
			var v dbus.Variant
			if c.Store(&v) == nil {
				names[i], _ = v.Value().(string)
			}
		})
	}
	p.wait()
	for i, s := range states {
		if hasState(s, stateActive) {
			return wins[i], nil
		}
	}
	for i, n := range names {
		if title != "" && n == title {
			return wins[i], nil
		}
	}
	return wins[0], nil
}

// focused is the element of snapshot id that has the focus: the first node the walk read with STATE_FOCUSED,
// or, in a lazy walk that has not read it yet, the one Collection finds with that state (the walk reads on up to
// maxFocusReach nodes to reach it; further on it is given alone, without a ref). A kept one is given with its
// ref (registered, so it resolves); one the snapshot left out (a filter, a find) with the facts the walk read and
// no ref. Nil when nothing has the focus.
func (b *Backend) focused(ctx context.Context, id string, fieldBytes int) *agentv1.Element {
	snap, err := b.store.get(id)
	if err != nil || snap.pager == nil {
		return nil
	}
	pg := snap.pager
	pg.mu.Lock()
	defer pg.mu.Unlock()
	w := pg.w
	w.p = b.newPipe(ctx)
	register := func(ref string, n *node) {
		if !n.detailed || !n.boundsRead {
			w.details(n, true)
			w.p.wait()
		}
		b.store.register(snap, map[string]*element{ref: {ref: n.ref, role: roleName(n.role), name: n.name, actions: n.actions, ifaces: n.ifaces}})
	}
	for i, n := range w.nodes {
		if n.gone || !hasState(n.states, stateFocused) {
			continue
		}
		ref := pg.refs[i]
		if ref == "" {
			return &agentv1.Element{Role: roleName(n.role), Name: snapview.Cut(n.name, fieldBytes),
				Description: snapview.Cut(n.desc, fieldBytes), States: stateList(n.states[:])}
		}
		k := 0
		for pg.kept[k] != i {
			k++
		}
		register(ref, n)
		return snapview.CutElement(pg.element(k, true), fieldBytes)
	}
	if pg.unread() == 0 {
		return nil
	}
	var found []objRef
	rule := matchRule{States: []int32{1 << stateFocused, 0}, StateMatch: 1, AttrMatch: 1, RoleMatch: 1, IfaceMatch: 1, Attrs: map[string]string{}}
	root := w.nodes[0].ref
	if b.call(ctx, root.Name, root.Path, "org.a11y.atspi.Collection.GetMatches", rule, sortCanonical, int32(1), true).Store(&found) != nil || len(found) == 0 {
		return nil
	}
	// Read on in document order up to the focused element (a bounded number of nodes), so it gets the ref a
	// later page would give it.
	for grown := 0; ; {
		if i, ok := w.index[found[0]]; ok {
			if pg.refs[i] == "" {
				break // read, and left out (not showing): given alone
			}
			k := slices.Index(pg.kept, i)
			register(pg.refs[i], w.nodes[i])
			return snapview.CutElement(pg.element(k, true), fieldBytes)
		}
		if pg.unread() == 0 || grown >= maxFocusReach || ctx.Err() != nil {
			break
		}
		grown += w.grow(lazyRefs)
		pg.more()
	}
	// Too far on: the element alone, without a ref.
	n := &node{ref: found[0], parent: -1}
	if it, ok := w.cache[n.ref]; ok {
		n.role, n.name, n.desc = it.Role, it.Name, it.Desc
		copy(n.states[:], it.States)
		n.ifaces = ifaceSet(it.Ifaces)
	} else {
		w.fetchFacts(-1, n)
		w.p.wait()
	}
	if n.gone {
		return nil
	}
	w.details(n, true)
	w.p.wait()
	el := &agentv1.Element{Role: roleName(n.role), Name: n.name, Description: n.desc, States: stateList(n.states[:]),
		Bounds: n.bounds, Actions: n.actions, Text: n.text, Range: n.rng}
	if n.rng != nil {
		el.Value = strconv.FormatFloat(n.rng.Current, 'g', -1, 64)
	}
	return snapview.CutElement(el, fieldBytes)
}
