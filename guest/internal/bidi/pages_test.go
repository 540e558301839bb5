package bidi

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	"glovebox.dev/guest/internal/browser"
	"glovebox.dev/guest/internal/snapview"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// TestWholeIsItsPage: a snapshot answered whole (no paging) is exactly the first page paging would build, and one
// with a field over the cut or over the budget is paged.
func TestWholeIsItsPage(t *testing.T) {
	build := func(name string, n int) *agentv1.Snapshot {
		var nodes []map[string]any
		nodes = append(nodes, map[string]any{"r": "RootWebArea", "n": "Page", "p": -1, "k": 0, "b": []float64{0, 0, 800, 600}})
		for i := range n {
			nodes = append(nodes, map[string]any{"r": "button", "n": fmt.Sprintf("%s %d", name, i), "p": 0, "k": 1, "s": []string{"focusable"}, "b": []float64{0, float64(i * 20), 100, 20}})
		}
		answer, _ := json.Marshal(map[string]any{"nodes": nodes, "complete": true, "vw": 800, "vh": 600})
		s, _, err := browser.BuildSnapshot(string(answer), &agentv1.SnapshotOptions{}, 5000)
		if err != nil {
			t.Fatal(err)
		}
		s.SnapshotId = "ffpage-x-1"
		return s
	}
	paged := func(s *agentv1.Snapshot, v snapview.View) *agentv1.Snapshot {
		out := &agentv1.Snapshot{SnapshotId: s.GetSnapshotId(), Target: s.GetTarget()}
		page(&pages{id: s.GetSnapshotId(), kept: s.GetElements()}, out, 0, v)
		return out
	}
	v := snapview.ViewOf(&agentv1.SnapshotOptions{}, 0)
	s := build("Act", 50)
	if !whole(s, v) {
		t.Fatal("a small snapshot is not answered whole")
	}
	want := paged(s, v)
	s.Total = int32(len(s.GetElements()))
	if diff := cmp.Diff(want, s, protocmp.Transform()); diff != "" {
		t.Errorf("whole snapshot differs from its page (-paged +whole):\n%s", diff)
	}
	if whole(build(strings.Repeat("x", v.FieldBytes+1), 1), v) {
		t.Error("a snapshot with a name over the field cut is answered whole")
	}
	if small := snapview.ViewOf(&agentv1.SnapshotOptions{MaxBytes: 2048}, 0); whole(build("Act", 200), small) {
		t.Error("a snapshot over a 2048-byte budget is answered whole")
	}
}
