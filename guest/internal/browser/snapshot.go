package browser

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

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
	"textField": true, "PopUpButton": true, "ToggleButton": true, "MenuListPopup": false, "scrollbar": true,
}

// flattenRoles are containers without meaning of their own: their children take their place.
var flattenRoles = map[string]bool{"generic": true, "none": true, "presentation": true, "InlineTextBox": true, "LineBreak": true}

// axValue, axProperty and axNode are the parts of Accessibility.getFullAXTree's nodes a snapshot reads; decoding
// only these (not the name sources Chrome sends along) keeps a big tree fast.
type axValue struct {
	Value jsonv2.Value `json:"value"`
}

type axProperty struct {
	Name  string   `json:"name"`
	Value *axValue `json:"value"`
}

type axNode struct {
	NodeID           string       `json:"nodeId"`
	Ignored          bool         `json:"ignored"`
	Role             *axValue     `json:"role"`
	Name             *axValue     `json:"name"`
	Description      *axValue     `json:"description"`
	Value            *axValue     `json:"value"`
	Properties       []axProperty `json:"properties"`
	ChildIDs         []string     `json:"childIds"`
	BackendDOMNodeID int64        `json:"backendDOMNodeId"`
}

// domLayout is the part of DOMSnapshot.captureSnapshot that gives every laid-out node of the main document its
// box: one call for the whole page instead of a DOM.getBoxModel per element.
type domLayout struct {
	Documents []struct {
		Nodes struct {
			BackendNodeID []int64 `json:"backendNodeId"`
		} `json:"nodes"`
		Layout struct {
			NodeIndex []int64     `json:"nodeIndex"`
			Bounds    [][]float64 `json:"bounds"`
		} `json:"layout"`
		ScrollOffsetX float64 `json:"scrollOffsetX"`
		ScrollOffsetY float64 `json:"scrollOffsetY"`
	} `json:"documents"`
}

// element is one kept AX node during a snapshot.
type element struct {
	el      *agentv1.Element
	backend cdp.BackendNodeID
	keep    bool
}

// snap builds a snapshot of the tab's accessibility tree. register makes it the tab's newest (SnapshotTab);
// Extract renders without touching the tab's refs.
func (t *tab) snap(ctx context.Context, opts *agentv1.SnapshotOptions, register bool) (*agentv1.Snapshot, error) {
	start := time.Now()
	t.mu.Lock()
	nav := t.nav
	t.mu.Unlock()
	// The tree and the layout are read at the same time: the renderer answers one after the other, but the
	// transfer and decoding of one overlap the other.
	var tree struct {
		Nodes []*axNode `json:"nodes"`
	}
	var layout domLayout
	layoutErr := make(chan error, 1)
	go func() {
		layoutErr <- t.s.Call(ctx, "DOMSnapshot.captureSnapshot", map[string]any{"computedStyles": []string{}}, &layout)
	}()
	if err := t.s.Call(ctx, "Accessibility.getFullAXTree", map[string]any{}, &tree); err != nil {
		<-layoutErr
		return nil, fmt.Errorf("snapshot tab %s: %w", t.id, err)
	}
	boxes := map[int64]*agentv1.Rect{}
	if err := <-layoutErr; err == nil && len(layout.Documents) > 0 {
		d := layout.Documents[0]
		for i, ni := range d.Layout.NodeIndex {
			if int(ni) < len(d.Nodes.BackendNodeID) && i < len(d.Layout.Bounds) && len(d.Layout.Bounds[i]) == 4 {
				b := d.Layout.Bounds[i]
				if _, ok := boxes[d.Nodes.BackendNodeID[ni]]; !ok {
					boxes[d.Nodes.BackendNodeID[ni]] = &agentv1.Rect{X: int32(math.Floor(b[0] - d.ScrollOffsetX)), Y: int32(math.Floor(b[1] - d.ScrollOffsetY)),
						Width: int32(math.Ceil(b[2])), Height: int32(math.Ceil(b[3]))}
				}
			}
		}
	}
	maxNodes := int(opts.GetMaxNodes())
	if maxNodes == 0 {
		maxNodes = validate.DefaultSnapshotNodes
	}
	maxDepth := int(opts.GetMaxDepth())

	byID := make(map[string]*axNode, len(tree.Nodes))
	for _, n := range tree.Nodes {
		byID[n.NodeID] = n
	}
	var els []*element
	complete, reason := true, ""
	var walk func(n *axNode, parent int, depth int, parentName string)
	walk = func(n *axNode, parent int, depth int, parentName string) {
		if !complete {
			return
		}
		role := axString(n.Role)
		name := axString(n.Name)
		skip := n.Ignored || flattenRoles[role] && name == "" || role == "StaticText" && (name == "" || name == parentName)
		here, childDepth, childName := parent, depth, parentName
		if !skip {
			if maxDepth > 0 && depth > maxDepth {
				return
			}
			if len(els) >= maxNodes {
				complete, reason = false, fmt.Sprintf("max_nodes %d reached", maxNodes)
				return
			}
			e := &element{el: axElement(n, role, name, depth), backend: cdp.BackendNodeID(n.BackendDOMNodeID)}
			if parent >= 0 {
				e.el.ParentRef = els[parent].el.Ref
			}
			e.el.Ref = "e" + strconv.Itoa(len(els)+1)
			els = append(els, e)
			here, childDepth, childName = len(els)-1, depth+1, name
		}
		for _, c := range n.ChildIDs {
			if cn := byID[c]; cn != nil {
				walk(cn, here, childDepth, childName)
			}
		}
	}
	if len(tree.Nodes) > 0 {
		walk(tree.Nodes[0], -1, 0, "")
	}

	interactive := func(e *element) bool {
		return interactiveRoles[e.el.Role] || hasState(e.el, "focusable") && e.el.Role != "RootWebArea"
	}
	for _, e := range els {
		e.keep = !opts.GetInteractiveOnly() || interactive(e)
	}
	if opts.GetInteractiveOnly() {
		// Keep the ancestors of kept elements so each has its place in the tree.
		index := make(map[string]int, len(els))
		for i, e := range els {
			index[e.el.Ref] = i
		}
		for i := len(els) - 1; i >= 0; i-- {
			if els[i].keep && els[i].el.ParentRef != "" {
				els[index[els[i].el.ParentRef]].keep = true
			}
		}
	}
	for _, e := range els {
		if e.keep && e.backend != 0 && e.el.Role != "text" && (opts.GetVisibleOnly() || interactive(e)) {
			e.el.Bounds = boxes[int64(e.backend)]
		}
	}
	if opts.GetVisibleOnly() {
		// An element is visible when its box meets the viewport; a text run when its parent is.
		vw, vh := t.viewport(ctx)
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
	refs := make(map[string]cdp.BackendNodeID, len(els))
	var text strings.Builder
	for _, e := range els {
		if !e.keep {
			continue
		}
		e.el.States = dropState(e.el.States, "focusable")
		s.Elements = append(s.Elements, e.el)
		if e.backend != 0 {
			refs[e.el.Ref] = e.backend
		}
		if !opts.GetOmitText() {
			render(&text, e.el)
		}
	}
	s.Text = text.String()
	s.Target = &agentv1.Target{Kind: &agentv1.Target_Tab{Tab: &agentv1.TabTarget{BrowserId: t.c.id(), TabId: string(t.id)}}}
	if register {
		s.SnapshotId = t.c.b.newSnapshotID(t.tabKey())
		s.Target.SnapshotId = s.SnapshotId
		t.remember(&snapshot{id: s.SnapshotId, refs: refs})
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

// axElement converts an AX node.
func axElement(n *axNode, role, name string, depth int) *agentv1.Element {
	e := &agentv1.Element{Role: role, Name: cutRunes(name), Depth: int32(depth), Description: cutRunes(axString(n.Description))}
	if role == "StaticText" {
		e.Role = "text"
	}
	e.Value = cutRunes(axString(n.Value))
	var r agentv1.ValueRange
	hasRange := false
	for _, p := range n.Properties {
		v := p.Value
		switch p.Name {
		case "focusable":
			if axTrue(v) {
				e.States = append(e.States, "focusable")
			}
		case "focused", "disabled", "selected", "required", "readonly", "multiline", "modal", "busy":
			if axTrue(v) {
				e.States = append(e.States, p.Name)
			}
		case "checked":
			switch axString(v) {
			case "true":
				e.States = append(e.States, "checked")
			case "mixed":
				e.States = append(e.States, "mixed")
			}
		case "pressed":
			if s := axString(v); s == "true" || s == "mixed" {
				e.States = append(e.States, "pressed")
			}
		case "expanded":
			if axTrue(v) {
				e.States = append(e.States, "expanded")
			} else {
				e.States = append(e.States, "collapsed")
			}
		case "editable":
			if s := axString(v); s != "" && s != "false" {
				e.States = append(e.States, "editable")
			}
		case "invalid":
			if s := axString(v); s != "" && s != "false" {
				e.States = append(e.States, "invalid")
			}
		case "valuemin":
			r.Minimum, hasRange = axNumber(v), true
		case "valuemax":
			r.Maximum, hasRange = axNumber(v), true
		}
	}
	if hasRange {
		r.Current, _ = strconv.ParseFloat(e.Value, 64)
		e.Range = &r
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

// axString is an AX value as text (strings unquoted, other JSON as written).
func axString(v *axValue) string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	raw := v.Value
	if raw[0] == '"' {
		var s string
		if jsonv2.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	return string(raw)
}

func axTrue(v *axValue) bool { return axString(v) == "true" }

func axNumber(v *axValue) float64 {
	f, _ := strconv.ParseFloat(axString(v), 64)
	return f
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
