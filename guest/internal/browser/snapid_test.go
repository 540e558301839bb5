package browser

import (
	"context"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// TestSnapshotIDsDifferAcrossRestarts: a backend started again (an agent restart) on the same browser never
// hands out an id an earlier one did, so a ref kept from before is refused instead of landing on whatever the
// new snapshot numbered the same; the page's own counter shows no click. (Before page ids had a random part
// both backends named their first snapshot page-1 and the old ref clicked.)
func TestSnapshotIDsDifferAcrossRestarts(t *testing.T) {
	lb := startBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv := serveHTML(t, `<!doctype html><button onclick="document.title = String(++window.n)">Press</button><script>window.n = 0; document.title = "0"</script>`)
	tabRef := lb.newTab(t, ctx, srv.URL)

	snap := func(b *Backend) *agentv1.Snapshot {
		t.Helper()
		r, err := b.SnapshotTab(ctx, &agentv1.SnapshotTabRequest{Tab: tabRef})
		if err != nil {
			t.Fatal(err)
		}
		return r.GetSnapshot()
	}
	// The tab may still be loading: snapshot until the button is there (bounded by ctx).
	var old *agentv1.Snapshot
	var button *agentv1.Element
	for button == nil {
		old = snap(lb.b)
		for _, el := range old.GetElements() {
			if el.GetRole() == "button" && el.GetName() == "Press" {
				button = el
			}
		}
		if button == nil && ctx.Err() != nil {
			t.Fatalf("no button in the snapshot:\n%s", old.GetText())
		}
		if button == nil {
			time.Sleep(50 * time.Millisecond)
		}
	}

	restarted := New(lb.b.cfg)
	t.Cleanup(func() { restarted.Close() })
	fresh := snap(restarted)
	if fresh.GetSnapshotId() == old.GetSnapshotId() {
		t.Fatalf("the restarted backend handed out %s again", fresh.GetSnapshotId())
	}
	resp := &agentv1.ActResponse{}
	err := restarted.Act(ctx, &agentv1.ActRequest{Owner: "test", Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{
		Tab: tabRef, Locator: &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: &agentv1.ElementRef{SnapshotId: old.GetSnapshotId(), Ref: button.GetRef()}}}}}}, resp)
	if err == nil {
		t.Errorf("a ref from before the restart was acted on: %v", resp)
	}
	tb, err := restarted.resolveTab(ctx, tabRef)
	if err != nil {
		t.Fatal(err)
	}
	if got := readString(t, ctx, tb, "document.title"); got != "0" {
		t.Errorf("page counter %q after the refused click, want 0", got)
	}
}
