package browser

import (
	"context"
	"strconv"
	"strings"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/validate"
)

// Snapshot limits.
const (
	// maxNameRunes bounds an element's name and value in a snapshot.
	maxNameRunes = 4096
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
	complete := reason == ""

	els := make([]*element, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		e := &element{el: pageElement(n), keep: true}
		e.el.Ref = locs[i].f.name + "e" + strconv.Itoa(locs[i].i+1)
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

	s := &agentv1.Snapshot{Complete: complete, IncompleteReason: reason}
	refs := make(map[string]refLoc, len(els))
	var text strings.Builder
	for i, e := range els {
		if !e.keep {
			continue
		}
		e.el.States = dropState(e.el.States, "focusable")
		s.Elements = append(s.Elements, e.el)
		refs[e.el.Ref] = locs[i]
		if !opts.GetOmitText() {
			render(&text, e.el)
		}
	}
	s.Text = text.String()
	s.Target = &agentv1.Target{Kind: &agentv1.Target_Tab{Tab: &agentv1.TabTarget{BrowserId: t.c.id(), TabId: string(t.id)}}}
	if register {
		s.SnapshotId = id
		s.Target.SnapshotId = id
		t.remember(&snapshot{id: id, refs: refs})
		t.mu.Lock()
		if t.nav != nav {
			// The page navigated while we read it: the refs describe a document that is gone.
			t.newest.nav = nav
		}
		t.mu.Unlock()
	}
	s.TookUs = since(start)
	return s, nil
}

// pageElement converts one element of jsSnapshot's answer.
func pageElement(n *pageNode) *agentv1.Element {
	e := &agentv1.Element{Role: n.Role, Name: cutRunes(n.Name), Value: cutRunes(n.Value), Description: cutRunes(n.Description),
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

// cutRunes bounds a name or value to maxNameRunes characters.
func cutRunes(s string) string {
	if len(s) <= maxNameRunes {
		return s
	}
	n := 0
	for i := range s {
		if n == maxNameRunes {
			return s[:i]
		}
		n++
	}
	return s
}
