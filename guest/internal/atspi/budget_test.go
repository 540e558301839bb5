package atspi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/chromium"
)

// TestChromiumBudgetPages pages Chromium's AT-SPI tree of the benchmarks' page at 4 KiB: each page within the
// budget (its encoded size), the pages together are a full snapshot's elements exactly once and in order, and
// the first page reads the details of only a few of the page's elements (it is much faster than the full one).
func TestChromiumBudgetPages(t *testing.T) {
	testenv.NeedCommands(t, "chromium")
	page := chromium.BenchPage()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, page) }))
	t.Cleanup(srv.Close)
	e := newEnv(t, Options{})
	c := e.startApp(t, "chromium", chromiumArgs(t.TempDir(), srv.URL)...)
	e.waitOnBus(t, c.pid)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	snap := func(o *agentv1.SnapshotOptions) *agentv1.Snapshot {
		t.Helper()
		r, err := e.b.SnapshotApp(ctx, &agentv1.SnapshotAppRequest{AppId: AppID(c.pid), Options: o})
		if err != nil {
			t.Fatalf("SnapshotApp %v: %v", o, err)
		}
		return r.Snapshot
	}
	var full *agentv1.Snapshot
	deadline := time.Now().Add(60 * time.Second)
	for {
		r, err := e.b.SnapshotApp(ctx, &agentv1.SnapshotAppRequest{AppId: AppID(c.pid), Options: &agentv1.SnapshotOptions{MaxNodes: 20000}})
		if err == nil && strings.Contains(r.Snapshot.Text, `"Field 86"`) {
			full = r.Snapshot
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page never showed in the tree (%v)", err)
		}
		time.Sleep(250 * time.Millisecond)
	}
	full = snap(&agentv1.SnapshotOptions{MaxNodes: 20000})
	line := func(el *agentv1.Element) string {
		name := el.GetName()
		if el.GetRole() == "page tab" {
			name = "" // the browser's own tab strip renames a tab as it likes ("- Memory usage - 33.7 MB")
		}
		return fmt.Sprintf("%s %s %q depth %d parent %s", el.GetRef(), el.GetRole(), name, el.GetDepth(), el.GetParentRef())
	}
	var want, got []string
	for _, el := range full.GetElements() {
		want = append(want, line(el))
	}
	first := snap(&agentv1.SnapshotOptions{MaxNodes: 20000, MaxBytes: 4096})
	n := 0
	for s := first; ; n++ {
		if size := proto.Size(s); size > 4096 {
			t.Errorf("page %d is %d bytes, over 4096", n, size)
		}
		for _, el := range s.GetElements() {
			got = append(got, line(el))
		}
		if s.GetNextCursor() == "" || n > 2000 {
			break
		}
		s = snap(&agentv1.SnapshotOptions{Cursor: s.GetNextCursor(), MaxBytes: 4096})
	}
	// Exactly once each (the order of subtrees may differ: a lazily read page keeps Collection's document order).
	slices.Sort(want)
	slices.Sort(got)
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("pages differ from a full snapshot (-full +pages):\n%s", d)
	}
	t.Logf("%d elements in %d pages; full %d bytes in %d us, first page %d bytes in %d us", len(want), n+1,
		proto.Size(full), full.GetTookUs(), proto.Size(first), first.GetTookUs())
}
