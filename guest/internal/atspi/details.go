package atspi

import (
	"github.com/godbus/dbus/v5"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// details reads what a snapshot's element shows beyond the facts the walk needed: text, value, actions and,
// with bounds, its bounds (showing elements only); what was read before is not read again. It is called only for
// the elements a page keeps (w.mu not needed: each node is read by one page at a time). A text_only page reads
// no bounds: the compact text has none, and each read costs a GTK app an X round trip (about half the time of
// a page of gtk3-widget-factory).
func (w *walker) details(n *node, bounds bool) {
	d := func(iface, method string, args []any, store func(*dbus.Call)) {
		w.detail(n, iface, method, args, store)
	}
	if bounds && !n.boundsRead {
		n.boundsRead = true
		// Only elements showing have screen bounds worth reading.
		if n.ifaces&hasComponent != 0 && hasState(n.states, stateShowing) {
			d(ifComponent, "GetExtents", []any{coordScreen}, func(c *dbus.Call) {
				var r struct{ X, Y, W, H int32 }
				if c.Store(&r) == nil {
					n.bounds = rect(r.X, r.Y, r.W, r.H)
				}
			})
		}
	}
	if n.detailed {
		return
	}
	n.detailed = true
	if n.ifaces&hasText != 0 {
		d(ifText, "GetText", []any{int32(0), int32(-1)}, func(c *dbus.Call) {
			var s string
			if c.Store(&s) == nil {
				n.text = s
			}
		})
	}
	if n.ifaces&hasValue != 0 {
		n.rng = &agentv1.ValueRange{}
		for _, f := range []struct {
			name string
			to   *float64
		}{{"CurrentValue", &n.rng.Current}, {"MinimumValue", &n.rng.Minimum}, {"MaximumValue", &n.rng.Maximum}, {"MinimumIncrement", &n.rng.Step}} {
			d(ifProperties, "Get", []any{ifValue, f.name}, func(c *dbus.Call) {
				var v dbus.Variant
				if c.Store(&v) == nil {
					*f.to, _ = v.Value().(float64)
				}
			})
		}
	}
	if n.ifaces&hasAction != 0 && !n.actionsRead {
		w.readActions(n)
	}
}

// readActions reads a node's action names.
func (w *walker) readActions(n *node) {
	n.actionsRead = true
	w.detail(n, ifAction, "GetActions", nil, func(c *dbus.Call) {
		var acts []struct{ Name, Desc, Key string }
		if c.Store(&acts) == nil {
			for _, a := range acts {
				n.actions = append(n.actions, a.Name)
			}
		}
	})
}

// detail calls method on n and hands a successful answer to store; a failure is noted (failed).
func (w *walker) detail(n *node, iface, method string, args []any, store func(*dbus.Call)) {
	w.p.do(n.ref.Name, n.ref.Path, iface+"."+method, args, func(c *dbus.Call) {
		if c.Err != nil {
			w.failed(n, c.Err)
			return
		}
		store(c)
	})
}
