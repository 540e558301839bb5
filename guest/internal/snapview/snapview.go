// Package snapview shapes a snapshot's elements into what the caller asked to see: a byte (or token) budget
// over the encoded Snapshot, pages with a continuation cursor, long fields cut with a visible marker, find,
// and the text-only rendering. The backends (atspi, browser) hand it elements in document order; it never
// reads the guest, so the budget rules have one home for both.
package snapview

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/validate"
)

// View is what a snapshot request asks the output to be.
type View struct {
	// Budget bounds the encoded Snapshot message, in bytes.
	Budget int
	// FieldBytes is where names, descriptions, values and text are cut.
	FieldBytes int
	// TextOnly leaves the structured elements out; OmitText leaves the text out.
	TextOnly, OmitText bool
}

// ViewOf reads the output options of o; def is the budget when o sets none (0: validate.DefaultSnapshotBytes).
func ViewOf(o *agentv1.SnapshotOptions, def int) View {
	fb := int(o.GetMaxFieldBytes())
	if fb == 0 {
		fb = validate.DefaultFieldBytes
	}
	return View{Budget: validate.SnapshotBudget(o, def), FieldBytes: fb, TextOnly: o.GetTextOnly(), OmitText: o.GetOmitText()}
}

// Cut returns s cut to at most max bytes at a character boundary, followed by `…[+N bytes]` (N: the bytes left
// out) when anything was cut.
func Cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return fmt.Sprintf("%s…[+%d bytes]", s[:i], len(s)-i)
}

// CutRunes returns s cut to at most n characters, marked as Cut marks it.
func CutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	k := 0
	for i := range s {
		if k == n {
			return fmt.Sprintf("%s…[+%d bytes]", s[:i], len(s)-i)
		}
		k++
	}
	return s
}

// Finder matches elements against an ElementFind.
type Finder struct {
	role   string
	name   string // lower case
	re     *regexp.Regexp
	states []string
	// Limit is the most matches the snapshot keeps.
	Limit int
}

// NewFinder compiles f (validated: its regex compiles); nil for nil.
func NewFinder(f *agentv1.ElementFind) *Finder {
	if f == nil {
		return nil
	}
	m := &Finder{role: strings.ToLower(f.GetRole()), name: strings.ToLower(f.GetName()), states: f.GetStates(),
		Limit: int(f.GetLimit())}
	if m.Limit == 0 {
		m.Limit = validate.DefaultFindLimit
	}
	if f.GetNameRegex() != "" {
		m.re = regexp.MustCompile(f.GetNameRegex())
	}
	return m
}

// Match reports whether an element with this role, name and states matches every criterion.
func (m *Finder) Match(role, name string, states []string) bool {
	if m.role != "" && !strings.EqualFold(role, m.role) {
		return false
	}
	if m.name != "" && !strings.Contains(strings.ToLower(name), m.name) {
		return false
	}
	if m.re != nil && !m.re.MatchString(name) {
		return false
	}
	for _, s := range m.states {
		if !slices.Contains(states, s) {
			return false
		}
	}
	return true
}

// Render appends an element's line to a snapshot's compact text.
type Render func(*strings.Builder, *agentv1.Element)

// Fixed costs of a page beyond what NewPage sees: fields set after the elements (next_cursor, offset, total,
// complete, incomplete_reason, took_us), the generation the broker stamps on the snapshot and its target, and the
// text field's own tag and length.
const (
	// MaxReasonBytes bounds Snapshot.incomplete_reason on a page.
	MaxReasonBytes = 512
	reserve        = (3 + validate.MaxCursorBytes) + 2*6 + 2 + (3 + MaxReasonBytes + 16) + 11 + 2*11 + 6
	// Reserve is what a page keeps of its budget for those fields.
	Reserve = reserve
)

// Page builds one page of a snapshot within its View's budget.
type Page struct {
	v      View
	out    *agentv1.Snapshot
	render Render
	used   int
	text   strings.Builder
	// N is the number of elements added.
	N int
}

// NewPage starts a page of out, whose ids, target and generation are already set.
func NewPage(out *agentv1.Snapshot, v View, render Render) *Page {
	return &Page{v: v, out: out, render: render, used: proto.Size(out) + reserve}
}

// CutElement returns a copy of el with its name, description, value and text cut at max bytes.
func CutElement(el *agentv1.Element, max int) *agentv1.Element { return cut(el, max) }

// cut returns a copy of el with its text fields cut at max bytes.
func cut(el *agentv1.Element, max int) *agentv1.Element {
	c := proto.CloneOf(el)
	c.Name, c.Description, c.Value, c.Text = Cut(el.Name, max), Cut(el.Description, max), Cut(el.Value, max), Cut(el.Text, max)
	return c
}

// cost is what el adds to the page: its encoded element and its line of text.
func (p *Page) cost(el *agentv1.Element) (int, string) {
	n := 0
	if !p.v.TextOnly {
		s := proto.Size(el)
		n += 1 + protowire.SizeVarint(uint64(s)) + s
	}
	line := ""
	if !p.v.OmitText {
		var b strings.Builder
		p.render(&b, el)
		line = b.String()
		n += len(line)
	}
	return n, line
}

// Cost is about what Add(el) would use of the budget: el's fields cut, encoded and rendered. A backend asks it
// with an element whose costly details are not read yet, to read only what the page will keep.
func (p *Page) Cost(el *agentv1.Element) int {
	n, _ := p.cost(cut(el, p.v.FieldBytes))
	return n
}

// Left is the budget not yet used.
func (p *Page) Left() int { return p.v.Budget - p.used }

// Add appends el (its fields cut) and its line if they fit, and reports whether they did. The first element of
// a page always goes in, its fields cut further until it fits: every page makes progress.
func (p *Page) Add(el *agentv1.Element) bool {
	c := cut(el, p.v.FieldBytes)
	n, line := p.cost(c)
	if p.used+n > p.v.Budget {
		if p.N > 0 {
			return false
		}
		for max := p.v.FieldBytes / 2; p.used+n > p.v.Budget && max >= validate.MinFieldBytes; max /= 2 {
			c = cut(el, max)
			n, line = p.cost(c)
		}
	}
	p.used += n
	p.N++
	if !p.v.TextOnly {
		p.out.Elements = append(p.out.Elements, c)
	}
	p.text.WriteString(line)
	return true
}

// Finish sets the page's text, its place in the snapshot (its first element's index, the index after its
// last, the snapshot's total or 0 when not known yet; more: elements may follow, so next_cursor) and its
// completeness.
func (p *Page) Finish(offset, next, total int, more bool, reasons []string) {
	p.out.Text = p.text.String()
	p.out.Offset, p.out.Total = int32(offset), int32(total)
	switch {
	case more && p.out.GetSnapshotId() == "":
		// A snapshot kept nowhere (detached) has no later pages: what the budget left out is said instead.
		reasons = append(reasons[:len(reasons):len(reasons)], fmt.Sprintf("the budget held %d elements; a detached snapshot has no later pages", next-offset))
	case more:
		p.out.NextCursor = validate.Cursor(p.out.GetSnapshotId(), next)
	}
	p.out.Complete = len(reasons) == 0
	p.out.IncompleteReason = Cut(strings.Join(reasons, "; "), MaxReasonBytes)
}
