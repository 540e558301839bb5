package browser

import (
	"context"
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

// snap builds a snapshot of the tab's page and its frames (collect), assembled by the engine-neutral rules
// (Assemble). register makes it the tab's newest (SnapshotTab): its elements stay in the page as its refs, kept
// in the tab's Refs; Extract renders without touching the tab's refs.
func (t *tab) snap(ctx context.Context, opts *agentv1.SnapshotOptions, register bool) (*agentv1.Snapshot, error) {
	start := time.Now()
	nav := t.refs.Nav()
	maxNodes := int(opts.GetMaxNodes())
	if maxNodes == 0 {
		maxNodes = validate.DefaultSnapshotNodes
	}
	s := &agentv1.Snapshot{}
	s.Target = &agentv1.Target{Kind: &agentv1.Target_Tab{Tab: &agentv1.TabTarget{BrowserId: t.c.id(), TabId: string(t.id)}}}
	if opts.GetCursor() != "" && register {
		if err := t.refs.Continue(opts.GetCursor(), t.name(), t.c.b.snaps, s, snapview.ViewOf(opts, 0)); err != nil {
			return nil, err
		}
		s.TookUs = since(start)
		return s, nil
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
		id = t.c.b.snaps.New(t.name())
	}
	col, err := t.collect(ctx, id, maxNodes, int(opts.GetMaxDepth()), opts.GetVisibleOnly())
	if err != nil {
		return nil, err
	}
	root := -1
	if rootAt.f != nil {
		// The root's element in the new snapshot: the same DOM node, in the same frame's document.
		i := -1
		if err := t.evalIn(ctx, rootAt.f.scope, jsFindSubtree, "snapshot tab "+string(t.id), &i); err != nil {
			return nil, err
		}
		for j := range col.Tree.Len() {
			if l := col.Tree.Loc(j); l.i == i && l.f.scope.s.id == rootAt.f.scope.s.id && l.f.scope.ctx == rootAt.f.scope.ctx {
				root = j
			}
		}
		if root < 0 {
			return nil, fmt.Errorf("options.subtree: element %s is not in the new snapshot (past max_nodes, or gone): %w", opts.GetSubtree().GetRef(), errdefs.ErrStaleRef)
		}
	}
	a := Assemble(col.Tree, col.VW, col.VH, opts, refName, col.Reason(), root)
	if !register {
		a.Render(s, opts)
		s.TookUs = since(start)
		return s, nil
	}
	t.refs.Remember(id, nav, a, s, snapview.ViewOf(opts, 0))
	t.mu.Lock()
	t.objects = nil
	t.mu.Unlock()
	s.TookUs = since(start)
	return s, nil
}

// refName is the ref of an element kept at l: its frame's name (none for the top document) and its place in the
// frame's element list, "e5", "f2e5".
func refName(l refLoc) string { return l.f.name + "e" + strconv.Itoa(l.i+1) }

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
