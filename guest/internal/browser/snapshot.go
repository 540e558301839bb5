package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"glovebox.dev/guest/internal/snapview"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// jsMarkSubtree keeps element i of the snapshot key (the root a subtree snapshot asks for) under a symbol of its
// frame's document, and answers whether it is still there; jsFindSubtree answers that element's index among the
// newest snapshot's elements of that document (-1: not among them) and forgets it.
const (
	jsMarkSubtree = `function(key, i) {
  const h = document[Symbol.for('glovebox.refs')];
  const e = h && h.key === key && h.els[i] || null;
  Object.defineProperty(document, Symbol.for('glovebox.subtree'), {value: e, configurable: true});
  return !!(e && e.isConnected);
}`
	jsFindSubtree = `function() {
  const h = document[Symbol.for('glovebox.refs')], s = Symbol.for('glovebox.subtree');
  const e = document[s];
  delete document[s];
  return h && e ? h.els.indexOf(e) : -1;
}`
)

// interactiveRoles are the roles a user acts on.
var interactiveRoles = map[string]bool{
	"button": true, "link": true, "textbox": true, "searchbox": true, "checkbox": true, "radio": true,
	"combobox": true, "listbox": true, "option": true, "menuitem": true, "menuitemcheckbox": true,
	"menuitemradio": true, "tab": true, "switch": true, "slider": true, "spinbutton": true, "treeitem": true,
	"scrollbar": true,
}

// pageNode is one element of jsSnapshot's answer.
type pageNode struct {
	Role        string    `json:"r"`
	Name        string    `json:"n"`
	Value       string    `json:"v"`
	Description string    `json:"d"`
	States      []string  `json:"s"`
	Parent      int       `json:"p"`
	Depth       int       `json:"k"`
	Bounds      []float64 `json:"b"`
	Range       []float64 `json:"m"`
	Origin      []float64 `json:"o"`
}

// element is one walked element during a snapshot.
type element struct {
	el   *agentv1.Element
	keep bool
}

// snap builds a snapshot of the tab's page. register makes it the tab's newest (SnapshotTab): its elements
// stay in the page as its refs; Extract renders without touching the tab's refs.
func (t *tab) snap(ctx context.Context, opts *agentv1.SnapshotOptions, register bool) (*agentv1.Snapshot, error) {
	start := time.Now()
	t.mu.Lock()
	nav := t.nav
	t.mu.Unlock()
	maxNodes := int(opts.GetMaxNodes())
	if maxNodes == 0 {
		maxNodes = validate.DefaultSnapshotNodes
	}
	if opts.GetCursor() != "" && register {
		return t.continued(opts)
	}
	var rootAt refLoc
	if st := opts.GetSubtree(); st != nil && register {
		at, err := t.node(st)
		if err != nil {
			return nil, fmt.Errorf("options.subtree: %w", err)
		}
		var there bool
		if err := t.evalIn(ctx, at.f.scope, jsMarkSubtree, "snapshot tab "+string(t.id), &there, st.GetSnapshotId(), at.i); err != nil {
			return nil, err
		}
		if !there {
			return nil, fmt.Errorf("options.subtree: element %s is no longer in the page: take a new snapshot: %w", st.GetRef(), errdefs.ErrStaleRef)
		}
		rootAt = at
	}
	id := ""
	if register {
		id = t.c.b.newSnapshotID(t.tabKey())
	}
	col, err := t.collect(ctx, id, maxNodes, int(opts.GetMaxDepth()), opts.GetVisibleOnly())
	if err != nil {
		return nil, err
	}
	nodes, locs, vw, vh := col.nodes, col.locs, col.vw, col.vh
	reason := col.reason()
	root := -1
	if rootAt.f != nil {
		// The root's element in the new snapshot: the same DOM node, in the same frame's document.
		i := -1
		if err := t.evalIn(ctx, rootAt.f.scope, jsFindSubtree, "snapshot tab "+string(t.id), &i); err != nil {
			return nil, err
		}
		for j, l := range locs {
			if l.i == i && l.f.scope.s.id == rootAt.f.scope.s.id && l.f.scope.ctx == rootAt.f.scope.ctx {
				root = j
			}
		}
		if root < 0 {
			return nil, fmt.Errorf("options.subtree: element %s is not in the new snapshot (past max_nodes, or gone): %w", opts.GetSubtree().GetRef(), errdefs.ErrStaleRef)
		}
	}

	names := make([]string, len(nodes))
	for i := range nodes {
		names[i] = locs[i].f.name + "e" + strconv.Itoa(locs[i].i+1)
	}
	els := buildElements(nodes, names, vw, vh, opts)

	var kept []*agentv1.Element
	index := map[string]refLoc{} // ref -> where its element is kept
	for i, e := range els {
		if e.keep {
			e.el.States = dropState(e.el.States, "focusable")
			kept = append(kept, e.el)
			index[e.el.Ref] = locs[i]
		}
	}
	if root >= 0 {
		kept = subtree(kept, els[root].el.Ref)
	}
	var reasons []string
	if reason != "" {
		reasons = append(reasons, reason)
	}
	if f := snapview.NewFinder(opts.GetFind()); f != nil {
		var found []*agentv1.Element
		for _, el := range kept {
			if f.Match(el.Role, el.Name, el.States) {
				if len(found) == f.Limit {
					reasons = append(reasons, fmt.Sprintf("find limit %d reached: more elements match", f.Limit))
					break
				}
				el.Depth, el.ParentRef = 0, ""
				found = append(found, el)
			}
		}
		kept = found
	}

	s := &agentv1.Snapshot{}
	s.Target = &agentv1.Target{Kind: &agentv1.Target_Tab{Tab: &agentv1.TabTarget{BrowserId: t.c.id(), TabId: string(t.id)}}}
	if !register {
		p := snapview.NewPage(s, snapview.ViewOf(opts, 0), render)
		next := 0
		for next < len(kept) && p.Add(kept[next]) {
			next++
		}
		p.Finish(0, next, len(kept), next < len(kept), reasons)
		s.TookUs = since(start)
		return s, nil
	}
	s.SnapshotId = id
	s.Target.SnapshotId = id
	snap := &snapshot{id: id, refs: map[string]refLoc{}, index: index, kept: kept, reasons: reasons}
	t.remember(snap)
	t.mu.Lock()
	if t.nav != nav {
		// The page navigated while we read it: the refs describe a document that is gone.
		t.newest.nav = nav
	}
	t.mu.Unlock()
	t.page(snap, s, 0, snapview.ViewOf(opts, 0))
	s.TookUs = since(start)
	return s, nil
}

// subtree is the element with ref root and its descendants, depths counted from root.
func subtree(kept []*agentv1.Element, root string) []*agentv1.Element {
	in := map[string]bool{}
	var out []*agentv1.Element
	var base int32
	for _, el := range kept {
		switch {
		case el.Ref == root:
			base = el.Depth
			el.ParentRef = ""
		case !in[el.ParentRef]:
			continue
		}
		in[el.Ref] = true
		el.Depth -= base
		out = append(out, el)
	}
	return out
}

// page fills s with the page of snap's elements starting at offset, within v's budget, and makes its refs
// resolvable.
func (t *tab) page(snap *snapshot, s *agentv1.Snapshot, offset int, v snapview.View) {
	p := snapview.NewPage(s, v, render)
	next := offset
	for next < len(snap.kept) && p.Add(snap.kept[next]) {
		next++
	}
	t.mu.Lock()
	for _, el := range snap.kept[offset:next] {
		snap.refs[el.Ref] = snap.index[el.Ref]
	}
	t.mu.Unlock()
	p.Finish(offset, next, len(snap.kept), next < len(snap.kept), snap.reasons)
}

// continued answers the page a cursor names of the tab's newest snapshot.
func (t *tab) continued(o *agentv1.SnapshotOptions) (*agentv1.Snapshot, error) {
	start := time.Now()
	id, offset, _ := validate.ParseCursor(o.GetCursor())
	t.mu.Lock()
	snap, nav := t.newest, t.nav
	t.mu.Unlock()
	switch {
	case snap == nil || snap.id != id:
		if _, ok := t.node(&agentv1.ElementRef{SnapshotId: id, Ref: "e1"}); ok != nil && !errors.Is(ok, errdefs.ErrStaleRef) {
			return nil, fmt.Errorf("options.cursor: %w", ok)
		}
		return nil, fmt.Errorf("options.cursor: snapshot %s is not a snapshot of tab %s: %w", id, t.id, errdefs.ErrNotFound)
	case snap.nav != nav:
		return nil, fmt.Errorf("options.cursor: snapshot %s: the tab navigated since: take a snapshot: %w", id, errdefs.ErrStaleRef)
	case offset > len(snap.kept):
		return nil, fmt.Errorf("options.cursor: snapshot %s has no page at %d: %w", id, offset, errdefs.ErrNotFound)
	}
	s := &agentv1.Snapshot{SnapshotId: id, Target: &agentv1.Target{
		Kind:       &agentv1.Target_Tab{Tab: &agentv1.TabTarget{BrowserId: t.c.id(), TabId: string(t.id)}},
		SnapshotId: id,
	}}
	t.page(snap, s, offset, snapview.ViewOf(o, 0))
	s.TookUs = since(start)
	return s, nil
}

// pageElement converts one element of jsSnapshot's answer.
func pageElement(n *pageNode) *agentv1.Element {
	e := &agentv1.Element{Role: n.Role, Name: n.Name, Value: n.Value, Description: n.Description,
		Depth: int32(n.Depth), States: n.States}
	if n.Role == "StaticText" {
		e.Role = "text"
	}
	if len(n.Range) == 2 {
		r := &agentv1.ValueRange{Minimum: n.Range[0], Maximum: n.Range[1]}
		r.Current, _ = strconv.ParseFloat(e.Value, 64)
		e.Range = r
	}
	if interactiveRoles[e.Role] {
		e.Actions = []string{"click", "focus"}
	}
	return e
}

// render writes one line of the compact text: `  [ref] role "name" value="..." states`.
func render(b *strings.Builder, e *agentv1.Element) {
	for range e.GetDepth() {
		b.WriteString("  ")
	}
	b.WriteString("[")
	b.WriteString(e.GetRef())
	b.WriteString("] ")
	b.WriteString(e.GetRole())
	if e.GetName() != "" {
		b.WriteString(" ")
		b.WriteString(strconv.Quote(e.GetName()))
	}
	if e.GetValue() != "" {
		b.WriteString(" value=")
		b.WriteString(strconv.Quote(e.GetValue()))
	}
	for _, s := range e.GetStates() {
		b.WriteString(" ")
		b.WriteString(s)
	}
	b.WriteString("\n")
}

func hasState(e *agentv1.Element, s string) bool {
	for _, x := range e.GetStates() {
		if x == s {
			return true
		}
	}
	return false
}

func dropState(states []string, s string) []string {
	out := states[:0]
	for _, x := range states {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// buildElements turns the snapshot script's nodes into elements, for either engine: ref names[i] for node i,
// parents, bounds, and the interactive and visible filters (vw, vh: the viewport) as keep flags.
func buildElements(nodes []pageNode, names []string, vw, vh int32, opts *agentv1.SnapshotOptions) []*element {
	els := make([]*element, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		e := &element{el: pageElement(n), keep: true}
		e.el.Ref = names[i]
		if n.Parent >= 0 && n.Parent < i {
			e.el.ParentRef = els[n.Parent].el.Ref
		}
		els[i] = e
	}
	interactive := func(e *element) bool {
		return interactiveRoles[e.el.Role] || hasState(e.el, "focusable") && e.el.Role != "RootWebArea"
	}
	if opts.GetInteractiveOnly() {
		// Keep the ancestors of kept elements so each has its place in the tree.
		for _, e := range els {
			e.keep = interactive(e)
		}
		for i := len(els) - 1; i >= 0; i-- {
			if p := nodes[i].Parent; els[i].keep && p >= 0 && p < i {
				els[p].keep = true
			}
		}
	}
	for i, e := range els {
		if b := nodes[i].Bounds; len(b) == 4 && e.keep && e.el.Role != "text" && (opts.GetVisibleOnly() || interactive(e)) {
			e.el.Bounds = &agentv1.Rect{X: int32(b[0]), Y: int32(b[1]), Width: int32(b[2]), Height: int32(b[3])}
		}
	}
	if opts.GetVisibleOnly() {
		// An element is visible when its box meets the viewport; a text run when its parent is.
		kept := make(map[string]bool, len(els))
		for _, e := range els {
			switch b := e.el.GetBounds(); {
			case !e.keep || e.el.Role == "RootWebArea" || e.el.ParentRef == "":
			case e.el.Role == "text":
				e.keep = kept[e.el.ParentRef]
			default:
				e.keep = b != nil && b.Width > 0 && b.Height > 0 && b.X < vw && b.Y < vh && b.X+b.Width > 0 && b.Y+b.Height > 0
			}
			kept[e.el.Ref] = e.keep
		}
	}

	return els
}

// BuildSnapshot builds a snapshot from one document's snapshot script answer (jsSnapshot, run without entering
// frames), for the WebDriver BiDi backend: refs e1, e2, ... are the page's element list in order. It answers the
// snapshot (without id or target) and the element index of each ref kept.
func BuildSnapshot(answer string, opts *agentv1.SnapshotOptions, maxNodes int) (*agentv1.Snapshot, map[string]int, error) {
	var page framePage
	if err := json.Unmarshal([]byte(answer), &page); err != nil {
		return nil, nil, fmt.Errorf("decode: %w: %w", errdefs.ErrInternal, err)
	}
	names := make([]string, len(page.Nodes))
	for i := range names {
		names[i] = "e" + strconv.Itoa(i+1)
	}
	reason := ""
	if !page.Complete {
		reason = fmt.Sprintf("max_nodes %d reached", maxNodes)
	}
	els := buildElements(page.Nodes, names, page.VW, page.VH, opts)
	s := &agentv1.Snapshot{Complete: reason == "", IncompleteReason: reason}
	kept := make(map[string]int, len(els))
	var text strings.Builder
	for i, e := range els {
		if !e.keep {
			continue
		}
		e.el.States = dropState(e.el.States, "focusable")
		s.Elements = append(s.Elements, e.el)
		kept[e.el.Ref] = i
		if !opts.GetOmitText() {
			render(&text, e.el)
		}
	}
	s.Text = text.String()
	return s, kept, nil
}
