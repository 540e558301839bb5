package atspi

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
	"glovebox.dev/guest/internal/snapview"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// Snapshot limits (snapshot.proto).
const (
	// DefaultMaxNodes is SnapshotOptions.max_nodes 0.
	DefaultMaxNodes = 5000
	// MaxNodes bounds SnapshotOptions.max_nodes; a filtered snapshot reads up to this many nodes to find the
	// ones it keeps.
	MaxNodes = 20000
	// maxLazyBudget is the largest page budget a snapshot reads lazily (its nodes' facts only as far as its pages
	// reach): a page of a few KiB then costs some dozens of nodes instead of the whole tree, while a page that
	// will hold most of the tree reads it in one go, with the calls that serve many nodes at once (ifacematch.go).
	maxLazyBudget = 256 << 10
)

// SnapshotApp snapshots an application's whole tree (or a subtree, or the next page of an earlier snapshot).
func (b *Backend) SnapshotApp(ctx context.Context, r *agentv1.SnapshotAppRequest) (*agentv1.SnapshotAppResponse, error) {
	snap, err := b.snapshotOf(ctx, r.GetAppId(), "", false, r.GetOptions())
	if err != nil {
		return nil, err
	}
	return &agentv1.SnapshotAppResponse{Snapshot: snap}, nil
}

// SnapshotWindow snapshots one top-level window of an application.
func (b *Backend) SnapshotWindow(ctx context.Context, r *agentv1.SnapshotWindowRequest) (*agentv1.SnapshotWindowResponse, error) {
	snap, err := b.snapshotOf(ctx, r.GetAppId(), r.GetWindowId(), true, r.GetOptions())
	if err != nil {
		return nil, err
	}
	return &agentv1.SnapshotWindowResponse{Snapshot: snap}, nil
}

// snapshotOf answers a snapshot request of an app (window: one of its windows): the next page of an earlier
// snapshot for a cursor, else a new snapshot of the window, the app, or the subtree the options name.
func (b *Backend) snapshotOf(ctx context.Context, appID, windowID string, window bool, o *agentv1.SnapshotOptions) (*agentv1.Snapshot, error) {
	a, err := b.app(ctx, appID)
	if err != nil {
		return nil, err
	}
	if o.GetCursor() != "" {
		return b.continued(ctx, a, windowID, o)
	}
	root := objRef{a.bus, rootPath}
	if window {
		if root, err = b.window(ctx, a, windowID); err != nil {
			return nil, err
		}
	}
	if st := o.GetSubtree(); st != nil {
		from, el, err := b.store.resolve(st.GetSnapshotId(), st.GetRef())
		if err != nil {
			return nil, fmt.Errorf("options.subtree: %w", err)
		}
		if from.app.id() != a.id() || from.app.bus != a.bus {
			return nil, fmt.Errorf("options.subtree: ref %s of snapshot %s belongs to %s, not to %s: %w",
				st.GetRef(), from.id, from.app.id(), a.id(), errdefs.ErrStaleRef)
		}
		root = el.ref
	}
	return b.snapshot(ctx, a, windowID, root, o)
}

// continued answers the page a cursor names of a snapshot of (a, windowID).
func (b *Backend) continued(ctx context.Context, a appRef, windowID string, o *agentv1.SnapshotOptions) (*agentv1.Snapshot, error) {
	start := time.Now()
	id, offset, _ := validate.ParseCursor(o.GetCursor())
	snap, err := b.store.get(id)
	if err != nil {
		return nil, fmt.Errorf("options.cursor: %w", err)
	}
	if snap.app.id() != a.id() || snap.windowID != windowID {
		return nil, fmt.Errorf("options.cursor: snapshot %s is of %s window %q, not of %s window %q: %w",
			id, snap.app.id(), snap.windowID, a.id(), windowID, errdefs.ErrNotFound)
	}
	pg := snap.pager
	if pg == nil || offset > len(pg.kept) {
		return nil, fmt.Errorf("options.cursor: snapshot %s has no page at %d (too old, or not a cursor it gave): %w", id, offset, errdefs.ErrSnapshotSuperseded)
	}
	ctx, cancel := context.WithTimeout(ctx, b.opts.SnapshotTimeout)
	defer cancel()
	out := newSnapshotMessage(id, a, windowID)
	b.page(ctx, snap, out, offset, snapview.ViewOf(o, 0))
	out.TookUs = time.Since(start).Microseconds()
	return out, nil
}

// newSnapshotMessage is the answer's frame: ids and target.
func newSnapshotMessage(id string, a appRef, windowID string) *agentv1.Snapshot {
	return &agentv1.Snapshot{
		SnapshotId: id,
		Target: &agentv1.Target{
			Kind:       &agentv1.Target_App{App: &agentv1.AppTarget{AppId: a.id(), WindowId: windowID}},
			SnapshotId: id,
		},
	}
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

// snapshot reads the tree under root, stores it as the newest snapshot of (app, windowID) (unless detached) and
// answers its first page. The walk reads the facts every filter needs; the details (text, bounds, value, actions) are read for
// the elements the page keeps only.
func (b *Backend) snapshot(ctx context.Context, a appRef, windowID string, root objRef, o *agentv1.SnapshotOptions) (*agentv1.Snapshot, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, b.opts.SnapshotTimeout)
	defer cancel()
	maxNodes := int(o.GetMaxNodes())
	if maxNodes <= 0 {
		maxNodes = DefaultMaxNodes
	}
	limit := maxNodes
	if o.GetInteractiveOnly() || o.GetVisibleOnly() || o.GetFind() != nil {
		limit = MaxNodes
	}
	b.connectPeer(ctx, a.bus)
	w := &walker{b: b, p: b.newPipe(ctx), limit: limit, maxDepth: int(o.GetMaxDepth()), visible: o.GetVisibleOnly(),
		actionsFirst: o.GetInteractiveOnly(),
		lazy:         !o.GetInteractiveOnly() && o.GetFind() == nil && snapview.ViewOf(o, 0).Budget <= maxLazyBudget}
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
		_, appGone := errGone(b.call(ctx, a.bus, rootPath, ifProperties+".Get", ifAccessible, "Name").Err)
		if appGone {
			return nil, fmt.Errorf("%s left the bus: %w", a.id(), errdefs.ErrTargetGone)
		}
		if o.GetSubtree() != nil {
			return nil, fmt.Errorf("options.subtree: element %s no longer exists: take a new snapshot: %w", o.GetSubtree().GetRef(), errdefs.ErrStaleRef)
		}
		return nil, fmt.Errorf("%s: root %s no longer exists: %w", a.id(), root.Path, errdefs.ErrNotFound)
	}
	if w.lost > 0 {
		reasons = append(reasons, fmt.Sprintf("%d calls failed: the application left or its connection broke", w.lost))
	}
	if w.cut != "" {
		reasons = append(reasons, w.cut)
	}

	// A detached snapshot is kept nowhere: no id, it supersedes nothing and its refs resolve nowhere.
	id := ""
	if !o.GetDetached() {
		id = b.store.next()
	}
	snap := &snapshot{id: id, app: a, windowID: windowID, elements: map[string]*element{}}
	pg := keep(w, o, maxNodes)
	reasons = append(reasons, pg.reasons...)
	if len(pg.kept) == 0 && len(reasons) == 0 && !o.GetInteractiveOnly() && !o.GetVisibleOnly() && o.GetFind() == nil {
		reasons = append(reasons, "the application exposed no elements")
	}
	pg.reasons = reasons
	snap.pager = pg
	if id != "" {
		b.store.put(snap)
	}
	out := newSnapshotMessage(id, a, windowID)
	b.page(ctx, snap, out, 0, snapview.ViewOf(o, 0))
	out.TookUs = time.Since(start).Microseconds()
	b.log.Debug("snapshot", "app", a.id(), "window", windowID, "elements", len(pg.kept), "page", len(out.Elements),
		"read", len(w.nodes), "cache_missed", w.missed, "complete", out.Complete, "took", time.Since(start))
	return out, nil
}

// cacheItems asks the app for its cache: the facts of every accessible it has exported. An app that does not
// implement the cache (or answers in another format) gets an empty map: the walk then reads every node. The
// call goes on the app's fast connection when it has one, and the answer is taken apart by hand (cacheItemsOf):
// godbus's generic decoding and Store of gtk3-widget-factory's ~240 items cost about as much agent CPU as the
// rest of a 4 KiB page.
func (b *Backend) cacheItems(ctx context.Context, bus string) (map[objRef]*cacheItem, error) {
	var c *dbus.Call
	p := b.newPipe(ctx)
	p.do(bus, cachePath, "org.a11y.atspi.Cache.GetItems", nil, func(r *dbus.Call) { c = r })
	p.wait()
	if c.Err != nil {
		if errors.Is(c.Err, context.DeadlineExceeded) {
			return nil, classify("Cache.GetItems", c.Err)
		}
		return nil, nil
	}
	items, ok := cacheItemsOf(c.Body)
	if !ok {
		if err := c.Store(&items); err != nil {
			b.log.Debug("cache items in an unknown format", "error", err)
			return nil, nil
		}
	}
	m := make(map[objRef]*cacheItem, len(items))
	for i := range items {
		m[items[i].Ref] = &items[i]
	}
	return m, nil
}

// cacheItemsOf reads a GetItems answer, decoded as godbus (and fastConn) decode a((so)(so)(so)iiassusau), into
// items; false when it has another shape.
func cacheItemsOf(body []any) ([]cacheItem, bool) {
	if len(body) != 1 {
		return nil, false
	}
	list, ok := body[0].([][]any)
	if !ok {
		return nil, false
	}
	ref := func(v any) (objRef, bool) {
		f, ok := v.([]any)
		if !ok || len(f) != 2 {
			return objRef{}, false
		}
		name, ok1 := f[0].(string)
		path, ok2 := f[1].(dbus.ObjectPath)
		return objRef{name, path}, ok1 && ok2
	}
	items := make([]cacheItem, len(list))
	for i, f := range list {
		if len(f) != 10 {
			return nil, false
		}
		it := &items[i]
		var oks [10]bool
		it.Ref, oks[0] = ref(f[0])
		it.App, oks[1] = ref(f[1])
		it.Parent, oks[2] = ref(f[2])
		it.Index, oks[3] = f[3].(int32)
		it.Children, oks[4] = f[4].(int32)
		it.Ifaces, oks[5] = f[5].([]string)
		it.Name, oks[6] = f[6].(string)
		it.Role, oks[7] = f[7].(uint32)
		it.Desc, oks[8] = f[8].(string)
		it.States, oks[9] = f[9].([]uint32)
		for _, ok := range oks {
			if !ok {
				return nil, false
			}
		}
	}
	return items, true
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
		t.WriteString(" " + strconv.Quote(snapview.CutRunes(label, 80)))
	}
	if el.Value != "" {
		t.WriteString(" value=" + strconv.Quote(snapview.CutRunes(el.Value, 80)))
	} else if el.Text != "" && el.Name != "" && el.Text != el.Name {
		t.WriteString(" text=" + strconv.Quote(snapview.CutRunes(el.Text, 80)))
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
