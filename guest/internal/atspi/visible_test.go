package atspi

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv"
)

// TestVisibleOnlyLazyPages snapshots gtk3-widget-factory's window showing elements only, whole and in 4 KiB pages:
// the whole snapshot holds showing elements only (fewer than the unfiltered one; before, a flat walk kept
// them all), the pages together are the whole snapshot's elements (refs, roles, names, parents, depths) in the
// same order, the last page knows the total, the first page read only part of the tree (before, visible_only
// read every node), and an observation's focused element has the same ref (and bounds) either way.
func TestVisibleOnlyLazyPages(t *testing.T) {
	testenv.NeedCommands(t, "gtk3-widget-factory")
	e := newEnv(t, Options{})
	a := e.startApp(t, "gtk3-widget-factory")
	e.waitOnBus(t, a.pid)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	id := AppID(a.pid)
	var win string
	snap := func(o *agentv1.SnapshotOptions) *agentv1.Snapshot {
		t.Helper()
		r, err := e.b.SnapshotWindow(ctx, &agentv1.SnapshotWindowRequest{AppId: id, WindowId: win, Options: o})
		if err != nil {
			t.Fatalf("SnapshotWindow %v: %v", o, err)
		}
		return r.Snapshot
	}
	var all *agentv1.Snapshot
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		if r, err := e.b.GetApp(ctx, &agentv1.GetAppRequest{AppId: id}); err == nil && len(r.App.Windows) > 0 {
			win = r.App.Windows[0].WindowId
			if all = snap(&agentv1.SnapshotOptions{MaxNodes: 20000}); len(all.Elements) > 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("gtk3-widget-factory's window never showed 200 elements")
		}
	}

	whole := snap(&agentv1.SnapshotOptions{VisibleOnly: true, MaxNodes: 20000})
	if n := len(whole.Elements); n == 0 || n >= len(all.Elements) {
		t.Errorf("visible_only kept %d of the window's %d elements, want fewer (its combo boxes' menus do not show)", n, len(all.Elements))
	}
	for _, el := range whole.Elements {
		if !slices.Contains(el.States, "showing") {
			t.Errorf("visible_only kept %s %s %q, which is not showing (states %v)", el.Ref, el.Role, el.Name, el.States)
		}
	}
	if !whole.Complete || whole.Total != int32(len(whole.Elements)) {
		t.Errorf("whole: complete %v (%q), total %d of %d elements", whole.Complete, whole.IncompleteReason, whole.Total, len(whole.Elements))
	}

	line := func(el *agentv1.Element) string {
		return fmt.Sprintf("%s %s %q depth %d parent %s", el.Ref, el.Role, el.Name, el.Depth, el.ParentRef)
	}
	var want, got []string
	for _, el := range whole.Elements {
		want = append(want, line(el))
	}
	first := snap(&agentv1.SnapshotOptions{VisibleOnly: true, MaxBytes: 4096})
	firstSnap, err := e.b.store.get(first.SnapshotId)
	if err != nil {
		t.Fatal(err)
	}
	read := len(firstSnap.pager.w.nodes)
	if read*2 > len(all.Elements) {
		t.Errorf("the first 4 KiB page (%d elements) read %d of the window's %d nodes, want at most half", len(first.Elements), read, len(all.Elements))
	}
	s, pages := first, 1
	for n := 0; ; n, pages = n+1, pages+1 {
		if size := proto.Size(s); size > 4096 || len(s.Elements) == 0 || s.Offset != int32(len(got)) {
			t.Fatalf("page %d: %d bytes, %d elements, offset %d after %d elements", n, size, len(s.Elements), s.Offset, len(got))
		}
		for _, el := range s.Elements {
			got = append(got, line(el))
		}
		if s.NextCursor == "" {
			if s.Total != int32(len(got)) || !s.Complete {
				t.Errorf("last page: total %d after %d elements, complete %v (%q)", s.Total, len(got), s.Complete, s.IncompleteReason)
			}
			break
		}
		if n > 200 {
			t.Fatal("more than 200 pages")
		}
		s = snap(&agentv1.SnapshotOptions{Cursor: s.NextCursor, MaxBytes: 4096})
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("4 KiB pages differ from the whole snapshot (-whole +pages):\n%s", d)
	}

	// The focused element has the same ref in an observation read whole and in one read a page at a time.
	_, fWhole, err := e.b.Observe(ctx, id, win, 0, "", &agentv1.SnapshotOptions{VisibleOnly: true, MaxNodes: 20000})
	if err != nil {
		t.Fatal(err)
	}
	_, fPaged, err := e.b.Observe(ctx, id, win, 0, "", &agentv1.SnapshotOptions{VisibleOnly: true, MaxBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	if fWhole == nil || fWhole.Ref == "" || fPaged == nil || fPaged.Ref != fWhole.Ref || fPaged.Name != fWhole.Name {
		t.Errorf("focused element: whole %v, paged %v; want the same, with a ref", fWhole, fPaged)
	}
	// A text_only page reads no bounds (its text has none), but the focused element it gives has them.
	_, fText, err := e.b.Observe(ctx, id, win, 0, "", &agentv1.SnapshotOptions{VisibleOnly: true, TextOnly: true, MaxBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	if fText == nil || fText.Ref != fWhole.GetRef() || fText.Bounds == nil || !proto.Equal(fText.Bounds, fWhole.GetBounds()) {
		t.Errorf("focused element of a text_only observation %v, want %v with its bounds", fText, fWhole)
	}
	t.Logf("%d of %d elements showing, %d pages; first page %d elements, read %d nodes in %d us; whole %d us",
		len(want), len(all.Elements), pages, len(first.Elements), read, first.TookUs, whole.TookUs)
}
