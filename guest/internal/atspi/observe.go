package atspi

import (
	"context"
	"fmt"

	"github.com/godbus/dbus/v5"
	"glovebox.dev/guest/internal/snapview"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// stateActive is ATSPI_STATE_ACTIVE: the window the user is working in.
const stateActive = 1

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

// focused is the element of snapshot id that has the focus: the first node the walk read with STATE_FOCUSED.
// A kept one is given whole with its ref (registered, so it resolves); one the snapshot left out (a filter, a
// find) is given with the facts the walk read and no ref. Nil when no node has the focus.
func (b *Backend) focused(ctx context.Context, id string, fieldBytes int) *agentv1.Element {
	snap, err := b.store.get(id)
	if err != nil || snap.pager == nil {
		return nil
	}
	pg := snap.pager
	pg.mu.Lock()
	defer pg.mu.Unlock()
	w := pg.w
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
		if !n.detailed {
			w.p = b.newPipe(ctx)
			w.details(n)
			w.p.wait()
		}
		el := snapview.CutElement(pg.element(k, true), fieldBytes)
		b.store.register(snap, map[string]*element{ref: {ref: n.ref, role: roleName(n.role), name: n.name, actions: n.actions, ifaces: n.ifaces}})
		return el
	}
	return nil
}
