package bidi

import (
	"context"

	"glovebox.dev/guest/internal/snapview"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// Observe snapshots a tab for a one-call observation (a page within the options' budget, or a later page with a
// cursor) and tells its focused element: the snapshot's element in the "focused" state, with its ref (which
// resolves on whichever page the element comes); nil when none is (or a filter left it out), and always nil for
// a detached snapshot, whose refs are kept nowhere.
func (b *Backend) Observe(ctx context.Context, tr *agentv1.TabRef, o *agentv1.SnapshotOptions) (*agentv1.Snapshot, *agentv1.Element, error) {
	t, err := b.resolveTab(ctx, tr)
	if err != nil {
		return nil, nil, err
	}
	s, err := t.snap(ctx, o, !o.GetDetached())
	if err != nil || o.GetDetached() {
		return s, nil, err
	}
	return s, t.refs.Focused(s.GetSnapshotId(), snapview.ViewOf(o, 0).FieldBytes), nil
}
