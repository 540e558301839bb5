package browser

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// TestTabCrashed: actions and reads on a tab whose renderer crashed fail promptly with TARGET_GONE, and
// another tab still works.
func TestTabCrashed(t *testing.T) {
	lb := startBrowser(t)
	b := lb.b
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	newTab := func() *agentv1.TabRef { return lb.newTab(t, ctx, "data:text/html,<p>hi</p>") }
	other, tr := newTab(), newTab()
	tb, err := b.resolveTab(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	go tb.s.Call(ctx, "Page.crash", nil, nil)
	// Chromium's Inspector.targetCrashed reaches the tab (its down channel closes), bounded.
	select {
	case <-tb.down():
	case <-time.After(10 * time.Second):
		t.Fatal("no Inspector.targetCrashed within 10 s of Page.crash")
	}
	start := time.Now()
	_, err = b.SnapshotTab(ctx, &agentv1.SnapshotTabRequest{Tab: tr})
	t.Logf("snapshot: %v after %v", err, time.Since(start))
	if !errors.Is(err, errdefs.ErrTargetGone) || time.Since(start) > 5*time.Second {
		t.Errorf("snapshot of a crashed tab: %v after %v, want TARGET_GONE at once", err, time.Since(start))
	}
	start = time.Now()
	err = b.Act(ctx, &agentv1.ActRequest{Owner: "test", Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: tr,
		Locator: &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: "p"}}}}}, &agentv1.ActResponse{})
	t.Logf("click: %v after %v", err, time.Since(start))
	if !errors.Is(err, errdefs.ErrTargetGone) || time.Since(start) > 5*time.Second {
		t.Errorf("click on a crashed tab: %v after %v, want TARGET_GONE at once", err, time.Since(start))
	}
	if _, err := b.SnapshotTab(ctx, &agentv1.SnapshotTabRequest{Tab: other}); err != nil {
		t.Errorf("another tab: %v", err)
	}
	// Navigating brings the crashed tab back.
	if err := b.Act(ctx, &agentv1.ActRequest{Owner: "test", Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: tr,
		Url: "data:text/html,<p>back</p>", TimeoutMs: 10000}}}, &agentv1.ActResponse{}); err != nil {
		t.Errorf("navigate a crashed tab: %v", err)
	}
	if s, err := b.SnapshotTab(ctx, &agentv1.SnapshotTabRequest{Tab: tr}); err != nil || !strings.Contains(s.GetSnapshot().GetText(), "back") {
		t.Errorf("snapshot after navigating a crashed tab: %v %q", err, s.GetSnapshot().GetText())
	}
}
