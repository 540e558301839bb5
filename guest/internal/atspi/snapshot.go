package atspi

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// Snapshot limits (snapshot.proto).
const (
	// DefaultMaxNodes is SnapshotOptions.max_nodes 0.
	DefaultMaxNodes = 5000
	// MaxNodes bounds SnapshotOptions.max_nodes; a filtered snapshot reads up to this many nodes to find the
	// ones it keeps.
	MaxNodes = 20000
)

// SnapshotApp snapshots an application's whole tree.
func (b *Backend) SnapshotApp(ctx context.Context, r *agentv1.SnapshotAppRequest) (*agentv1.SnapshotAppResponse, error) {
	a, err := b.app(ctx, r.GetAppId())
	if err != nil {
		return nil, err
	}
	snap, err := b.snapshot(ctx, a, "", objRef{a.bus, rootPath}, r.GetOptions())
	if err != nil {
		return nil, err
	}
	return &agentv1.SnapshotAppResponse{Snapshot: snap}, nil
}

// SnapshotWindow snapshots one top-level window of an application.
func (b *Backend) SnapshotWindow(ctx context.Context, r *agentv1.SnapshotWindowRequest) (*agentv1.SnapshotWindowResponse, error) {
	a, err := b.app(ctx, r.GetAppId())
	if err != nil {
		return nil, err
	}
	win, err := b.window(ctx, a, r.GetWindowId())
	if err != nil {
		return nil, err
	}
	snap, err := b.snapshot(ctx, a, r.GetWindowId(), win, r.GetOptions())
	if err != nil {
		return nil, err
	}
	return &agentv1.SnapshotWindowResponse{Snapshot: snap}, nil
}

// window finds a top-level window of an app by its window_id (object path), or NOT_FOUND.
func (b *Backend) window(ctx context.Context, a appRef, id string) (objRef, error) {
	var wins []objRef
	if err := b.call(ctx, a.bus, rootPath, ifAccessible+".GetChildren").Store(&wins); err != nil {
		return objRef{}, classify(a.id(), err)
	}
	for _, w := range wins {
		if string(w.Path) == id {
			return w, nil
		}
	}
	return objRef{}, fmt.Errorf("%s has no window %q: %w", a.id(), id, errdefs.ErrNotFound)
}

// snapshot reads the tree under root and stores it as the newest snapshot of (app, windowID).
func (b *Backend) snapshot(ctx context.Context, a appRef, windowID string, root objRef, o *agentv1.SnapshotOptions) (*agentv1.Snapshot, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, b.opts.SnapshotTimeout)
	defer cancel()
	maxNodes := int(o.GetMaxNodes())
	if maxNodes <= 0 {
		maxNodes = DefaultMaxNodes
	}
	limit := maxNodes
	if o.GetInteractiveOnly() || o.GetVisibleOnly() {
		limit = MaxNodes
	}
	b.connectPeer(ctx, a.bus)
	w := &walker{b: b, p: b.newPipe(ctx), limit: limit, maxDepth: int(o.GetMaxDepth()), visible: o.GetVisibleOnly()}
	var cacheErr error
	w.cache, cacheErr = b.cacheItems(ctx, a.bus)
	if cacheErr == nil {
		w.walk(root)
	}

	var reasons []string
	switch {
	case cacheErr != nil && errors.Is(cacheErr, errdefs.ErrTimeout):
		reasons = append(reasons, fmt.Sprintf("the application did not answer Cache.GetItems within %v", b.opts.CallTimeout))
	case ctx.Err() != nil && w.timeouts > 0:
		reasons = append(reasons, fmt.Sprintf("snapshot deadline %v passed (%d calls unanswered)", b.opts.SnapshotTimeout, w.timeouts))
	case w.timeouts > 0:
		reasons = append(reasons, fmt.Sprintf("%d calls timed out after %v: the application stopped answering", w.timeouts, b.opts.CallTimeout))
	}
	if len(reasons) == 0 && (len(w.nodes) == 0 || w.nodes[0].gone && !o.GetVisibleOnly()) {
		{
			_, appGone := errGone(b.call(ctx, a.bus, rootPath, ifProperties+".Get", ifAccessible, "Name").Err)
			if appGone {
				return nil, fmt.Errorf("%s left the bus: %w", a.id(), errdefs.ErrTargetGone)
			}
			return nil, fmt.Errorf("%s: root %s no longer exists: %w", a.id(), root.Path, errdefs.ErrNotFound)
		}
	}
	if w.lost > 0 {
		reasons = append(reasons, fmt.Sprintf("%d calls failed: the application left or its connection broke", w.lost))
	}
	if w.cut != "" {
		reasons = append(reasons, w.cut)
	}

	id := b.store.next()
	snap := &snapshot{id: id, app: a, windowID: windowID, elements: map[string]*element{}}
	out := &agentv1.Snapshot{
		SnapshotId: id,
		Target: &agentv1.Target{
			Kind:       &agentv1.Target_App{App: &agentv1.AppTarget{AppId: a.id(), WindowId: windowID}},
			SnapshotId: id,
		},
	}
	if cut := b.build(w, snap, out, o, maxNodes); cut != "" {
		reasons = append(reasons, cut)
	}
	if len(out.Elements) == 0 && len(reasons) == 0 && !o.GetInteractiveOnly() && !o.GetVisibleOnly() {
		reasons = append(reasons, "the application exposed no elements")
	}
	out.Complete = len(reasons) == 0
	out.IncompleteReason = strings.Join(reasons, "; ")
	b.store.put(snap)
	out.TookUs = time.Since(start).Microseconds()
	b.log.Debug("snapshot", "app", a.id(), "window", windowID, "elements", len(out.Elements), "read", len(w.nodes),
		"cache_missed", w.missed, "complete", out.Complete, "took", time.Since(start))
	return out, nil
}

// cacheItems asks the app for its cache: the facts of every accessible it has exported. An app that does not
// implement the cache (or answers in another format) gets an empty map: the walk then reads every node.
func (b *Backend) cacheItems(ctx context.Context, bus string) (map[objRef]*cacheItem, error) {
	var items []cacheItem
	c := b.call(ctx, bus, cachePath, "org.a11y.atspi.Cache.GetItems")
	if c.Err != nil {
		if errors.Is(c.Err, context.DeadlineExceeded) {
			return nil, classify("Cache.GetItems", c.Err)
		}
		return nil, nil
	}
	if err := c.Store(&items); err != nil {
		b.log.Debug("cache items in an unknown format", "error", err)
		return nil, nil
	}
	m := make(map[objRef]*cacheItem, len(items))
	for i := range items {
		m[items[i].Ref] = &items[i]
	}
	return m, nil
}

// interactive reports whether a user can act on n.
func interactive(n *node) bool {
	return len(n.actions) > 0 || hasState(n.states, stateEditable) || n.ifaces&(hasEditable|hasValue) != 0 && roleName(n.role) != "progress bar"
}

// build turns the nodes read into elements in document order, applying the filters and max_nodes, and fills
// snap's refs. It returns why it cut the list, or "".
func (b *Backend) build(w *walker, snap *snapshot, out *agentv1.Snapshot, o *agentv1.SnapshotOptions, maxNodes int) string {
	keep := make([]bool, len(w.nodes))
	if o.GetInteractiveOnly() {
		for i, n := range w.nodes {
			if !n.gone && interactive(n) {
				for j := i; j >= 0 && !keep[j]; j = w.nodes[j].parent {
					keep[j] = true
				}
			}
		}
	} else {
		for i := range keep {
			keep[i] = true
		}
	}
	var text strings.Builder
	cut := ""
	refs := make([]string, len(w.nodes))
	var visit func(i, depth int, parentRef string)
	visit = func(i, depth int, parentRef string) {
		n := w.nodes[i]
		if n.gone {
			return
		}
		if keep[i] {
			if len(out.Elements) >= maxNodes {
				if cut == "" {
					cut = fmt.Sprintf("max_nodes %d reached", maxNodes)
				}
				return
			}
			ref := "e" + strconv.Itoa(len(out.Elements)+1)
			refs[i] = ref
			value := n.value
			if n.rng != nil {
				value = strconv.FormatFloat(n.rng.Current, 'g', -1, 64)
			}
			el := &agentv1.Element{
				Ref: ref, Role: roleName(n.role), Name: n.name, Description: n.desc, States: stateList(n.states[:]),
				Bounds: n.bounds, Actions: n.actions, Value: value, Text: n.text, ParentRef: parentRef,
				Depth: int32(depth), Range: n.rng,
			}
			out.Elements = append(out.Elements, el)
			snap.elements[ref] = &element{ref: n.ref, role: el.Role, name: n.name, actions: n.actions, ifaces: n.ifaces}
			if !o.GetOmitText() {
				render(&text, el)
			}
			parentRef, depth = ref, depth+1
		}
		for _, c := range n.children {
			visit(c, depth, parentRef)
		}
	}
	if len(w.nodes) > 0 {
		visit(0, 0, "")
	}
	out.Text = text.String()
	return cut
}

// renderedStates are the states worth a language model's attention in the compact text.
var renderedStates = map[string]bool{
	"focused": true, "checked": true, "selected": true, "expanded": true, "collapsed": true, "pressed": true,
	"editable": true, "indeterminate": true, "required": true, "read-only": true, "modal": true,
}

// render appends el's line to the compact text: `[ref] role "name" value states`, indented by depth.
func render(t *strings.Builder, el *agentv1.Element) {
	for range el.Depth {
		t.WriteString("  ")
	}
	t.WriteString("[" + el.Ref + "] " + el.Role)
	label := el.Name
	if label == "" && el.Text != "" && el.Value == "" {
		label = el.Text
	}
	if label != "" {
		t.WriteString(" " + strconv.Quote(truncRunes(label, 80)))
	}
	if el.Value != "" {
		t.WriteString(" value=" + strconv.Quote(truncRunes(el.Value, 80)))
	} else if el.Text != "" && el.Name != "" && el.Text != el.Name {
		t.WriteString(" text=" + strconv.Quote(truncRunes(el.Text, 80)))
	}
	var states []string
	sensitive := false
	for _, s := range el.States {
		if renderedStates[s] {
			states = append(states, s)
		}
		sensitive = sensitive || s == "sensitive"
	}
	if !sensitive && len(el.Actions) > 0 {
		states = append(states, "disabled")
	}
	if len(states) > 0 {
		t.WriteString(" (" + strings.Join(states, ", ") + ")")
	}
	t.WriteByte('\n')
}
