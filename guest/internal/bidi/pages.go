package bidi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"google.golang.org/protobuf/proto"

	"glovebox.dev/guest/internal/browser"
	"glovebox.dev/guest/internal/snapview"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// pages are what a tab keeps of its newest snapshot for the pages after the first: the elements a caller sees (find
// applied), in document order, and why the snapshot is incomplete. Every element's ref resolves from the start
// (t.refs), on whichever page it comes.
type pages struct {
	id      string
	nav     uint64
	kept    []*agentv1.Element
	reasons []string
}

// snapshot takes a new snapshot of the tab (the tab's newest, unless detached: then kept nowhere) and answers its
// first page within the options' budget, or, with a cursor, a later page of the newest one, as a Chromium tab's
// snapshot does (snapview's rules).
func (t *tab) snapshot(ctx context.Context, o *agentv1.SnapshotOptions) (*agentv1.Snapshot, error) {
	if o.GetCursor() != "" {
		return t.continued(o)
	}
	if st := o.GetSubtree(); st != nil {
		if err := t.markSubtree(ctx, st); err != nil {
			return nil, err
		}
	}
	nav := t.refs.Nav()
	register := !o.GetDetached()
	s, err := t.snap(ctx, o, register)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	p := &pages{id: s.GetSnapshotId(), nav: nav, kept: s.GetElements()}
	if !s.GetComplete() {
		p.reasons = append(p.reasons, s.GetIncompleteReason())
	}
	if st := o.GetSubtree(); st != nil {
		root, err := t.findSubtree(ctx, st)
		if err != nil {
			return nil, err
		}
		p.kept = browser.Subtree(p.kept, root)
	}
	if f := snapview.NewFinder(o.GetFind()); f != nil {
		var found []*agentv1.Element
		for _, el := range p.kept {
			if f.Match(el.GetRole(), el.GetName(), el.GetStates()) {
				if len(found) == f.Limit {
					p.reasons = append(p.reasons, fmt.Sprintf("find limit %d reached: more elements match", f.Limit))
					break
				}
				el.Depth, el.ParentRef = 0, ""
				found = append(found, el)
			}
		}
		p.kept = found
	}
	if register {
		t.mu.Lock()
		t.pages = p
		t.mu.Unlock()
	}
	v := snapview.ViewOf(o, 0)
	if o.GetFind() == nil && o.GetSubtree() == nil && whole(s, v) {
		s.Total = int32(len(p.kept))
		s.TookUs += time.Since(start).Microseconds()
		return s, nil
	}
	out := &agentv1.Snapshot{SnapshotId: p.id, Target: s.GetTarget()}
	page(p, out, 0, v)
	out.TookUs = s.GetTookUs() + time.Since(start).Microseconds()
	return out, nil
}

// whole reports whether s, as BuildSnapshot made it, is already its own first and only page under v: structured
// elements and text as asked, no field over v's cut, the whole within the budget. Paging it would copy every
// element into the same answer (1.7 ms of a ~50 ms snapshot of the benchmark page).
func whole(s *agentv1.Snapshot, v snapview.View) bool {
	if v.TextOnly || len(s.GetIncompleteReason()) > snapview.MaxReasonBytes {
		return false
	}
	for _, el := range s.GetElements() {
		if len(el.GetName()) > v.FieldBytes || len(el.GetDescription()) > v.FieldBytes || len(el.GetValue()) > v.FieldBytes || len(el.GetText()) > v.FieldBytes {
			return false
		}
	}
	return proto.Size(s)+snapview.Reserve <= v.Budget
}

// page fills s with the page of p's elements starting at offset, within v's budget.
func page(p *pages, s *agentv1.Snapshot, offset int, v snapview.View) {
	pg := snapview.NewPage(s, v, browser.Render)
	next := offset
	for next < len(p.kept) && pg.Add(p.kept[next]) {
		next++
	}
	pg.Finish(offset, next, len(p.kept), next < len(p.kept), p.reasons)
}

// continued answers the page a cursor names of the tab's newest snapshot.
func (t *tab) continued(o *agentv1.SnapshotOptions) (*agentv1.Snapshot, error) {
	start := time.Now()
	id, offset, _ := validate.ParseCursor(o.GetCursor())
	t.mu.Lock()
	p := t.pages
	t.mu.Unlock()
	switch {
	case p == nil || p.id != id:
		// Why the snapshot is not this tab's newest: superseded, another tab's, unknown.
		if _, err := t.node(&agentv1.ElementRef{SnapshotId: id, Ref: "e1"}); err != nil && !errors.Is(err, errdefs.ErrStaleRef) && !errors.Is(err, errdefs.ErrNotFound) {
			return nil, fmt.Errorf("options.cursor: %w", err)
		}
		return nil, fmt.Errorf("options.cursor: snapshot %s is not a snapshot of tab %s: %w", id, t.id, errdefs.ErrNotFound)
	case p.nav != t.refs.Nav():
		return nil, fmt.Errorf("options.cursor: snapshot %s: the tab navigated since: take a snapshot: %w", id, errdefs.ErrStaleRef)
	case offset > len(p.kept):
		return nil, fmt.Errorf("options.cursor: snapshot %s has no page at %d: %w", id, offset, errdefs.ErrNotFound)
	}
	s := &agentv1.Snapshot{SnapshotId: id, Target: &agentv1.Target{
		Kind:       &agentv1.Target_Tab{Tab: &agentv1.TabTarget{BrowserId: t.f.id(), TabId: t.id}},
		SnapshotId: id,
	}}
	page(p, s, offset, snapview.ViewOf(o, 0))
	s.TookUs = time.Since(start).Microseconds()
	return s, nil
}

// Observe snapshots a tab for a one-call observation (a page within the options' budget, or a later page with a
// cursor) and tells its focused element: the snapshot's element in the "focused" state, with its ref (which
// resolves on whichever page the element comes); nil when none is (or a filter left it out).
func (b *Backend) Observe(ctx context.Context, tr *agentv1.TabRef, o *agentv1.SnapshotOptions) (*agentv1.Snapshot, *agentv1.Element, error) {
	t, err := b.resolveTab(ctx, tr)
	if err != nil {
		return nil, nil, err
	}
	s, err := t.snapshot(ctx, o)
	if err != nil {
		return nil, nil, err
	}
	t.mu.Lock()
	p := t.pages
	t.mu.Unlock()
	if p == nil || p.id != s.GetSnapshotId() {
		return s, nil, nil
	}
	for _, el := range p.kept {
		if slices.Contains(el.GetStates(), "focused") {
			return s, snapview.CutElement(el, snapview.ViewOf(o, 0).FieldBytes), nil
		}
	}
	return s, nil, nil
}

// markSubtree keeps, in the page, the element a subtree snapshot's root ref names (of the tab's newest snapshot),
// to find it in the next one: the snapshot walks the document anew and numbers its elements anew.
func (t *tab) markSubtree(ctx context.Context, st *agentv1.ElementRef) error {
	i, err := t.node(st)
	if err != nil {
		return fmt.Errorf("options.subtree: %w", err)
	}
	var there bool
	if err := t.evalPage(ctx, browser.Scripts.MarkSubtree, &there, st.GetSnapshotId(), i); err != nil {
		return err
	}
	if !there {
		return fmt.Errorf("options.subtree: element %s is no longer in the page: take a new snapshot: %w", st.GetRef(), errdefs.ErrStaleRef)
	}
	return nil
}

// findSubtree answers the ref, in the snapshot just taken, of the element markSubtree kept (BuildSnapshot names
// the element at index i "e<i+1>").
func (t *tab) findSubtree(ctx context.Context, st *agentv1.ElementRef) (string, error) {
	i := -1
	if err := t.evalPage(ctx, browser.Scripts.FindSubtree, &i); err != nil {
		return "", err
	}
	if i < 0 {
		return "", fmt.Errorf("options.subtree: element %s is not in the new snapshot (past max_nodes, or gone): %w", st.GetRef(), errdefs.ErrStaleRef)
	}
	return "e" + strconv.Itoa(i+1), nil
}

// evalPage runs page function fn with JSON arguments in the page's own realm (where the snapshot keeps its
// elements) and decodes its JSON answer into out.
func (t *tab) evalPage(ctx context.Context, fn string, out any, args ...any) error {
	a, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("snapshot tab %s: %w: %w", t.id, errdefs.ErrInternal, err)
	}
	expr := "JSON.stringify((" + fn + ").apply(null, " + string(a) + "))"
	return t.closedErr(evaluateIn(ctx, t.f.conn, scriptTarget{Context: t.id}, expr, "snapshot tab "+t.id, out), "snapshot tab "+t.id)
}
