package bidi

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

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
	if o.GetSubtree() != nil {
		return nil, unsupported("a tab snapshot's options.subtree")
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
	out := &agentv1.Snapshot{SnapshotId: p.id, Target: s.GetTarget()}
	page(p, out, 0, snapview.ViewOf(o, 0))
	out.TookUs = s.GetTookUs() + time.Since(start).Microseconds()
	return out, nil
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
