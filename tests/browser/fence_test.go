package browser_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/chromium"
	"glovebox.dev/shared/testenv/desktop"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// TestTabFencingByDefault: a ref of a tab snapshot taken through the real broker before a human took control
// and gave it back is refused with GENERATION_CHANGED although the caller echoes no generation, and the
// page's counter (read over the test's own DevTools connection) shows no click; a fresh snapshot's ref clicks.
// (Before, the broker skipped the check when target.generation was 0 and the old ref clicked.)
func TestTabFencingByDefault(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb", "openbox", "chromium")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, formPage)
	}))
	t.Cleanup(srv.Close)
	d := desktop.Start(t, desktop.Options{})
	port := chromium.Start(t, d)
	dt := &devtools{port: port}
	tab := dt.newTab(t, srv.URL+"/form")
	dt.eval(t, tab, `new Promise(r => document.readyState === 'complete' ? r(true) : addEventListener('load', () => r(true)))`, new(bool))
	browserID := "chrome-" + strconv.Itoa(port)
	a := agenttest.Start(t, agenttest.Options{Desktop: d, ExtraArgs: []string{"-browser-port", strconv.Itoa(port), "-browser-profile", t.TempDir()}})
	b := brokertest.Start(t, a)
	conn := dialBroker(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cc, ctl := brokerv1.NewComputerServiceClient(conn), brokerv1.NewControlServiceClient(conn)
	se, err := brokerv1.NewSessionServiceClient(conn).CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: b.Guest})
	if err != nil {
		t.Fatal(err)
	}
	s := se.GetSession().GetId()
	tabRef := &agentv1.TabRef{BrowserId: browserID, TabId: tab}
	snapButton := func() *agentv1.ElementRef {
		t.Helper()
		snap, err := cc.SnapshotTab(ctx, &brokerv1.SnapshotTabRequest{SessionId: s, Request: &agentv1.SnapshotTabRequest{Tab: tabRef}})
		if err != nil {
			t.Fatalf("SnapshotTab: %v", err)
		}
		return ref(t, snap.GetResponse().GetSnapshot(), "button", "Press me")
	}
	click := func(button *agentv1.ElementRef) error {
		_, err := cc.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{
			PageClick: &agentv1.PageClick{Tab: tabRef, Locator: &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: button}}}}}})
		return err
	}
	old := snapButton()
	if _, err := ctl.AcquireControl(ctx, &brokerv1.AcquireControlRequest{Guest: b.Guest, Reason: "a human looks"}); err != nil {
		t.Fatal(err)
	}
	if _, err := ctl.ReleaseControl(ctx, &brokerv1.ReleaseControlRequest{Guest: b.Guest}); err != nil {
		t.Fatal(err)
	}
	err = click(old)
	if got := errgrpc.ReasonString(errdefs.Reason(errgrpc.FromError(err))); got != "GENERATION_CHANGED" || errgrpc.Metadata(errgrpc.FromError(err))[errgrpc.MetaCause] != errgrpc.CauseGenerationChanged {
		t.Errorf("page_click with a ref from before the hand-over: %v (%s), want GENERATION_CHANGED", err, got)
	}
	count := func() string {
		var c string
		dt.eval(t, tab, `document.getElementById('count').textContent`, &c)
		return c
	}
	if got := count(); got != "0" {
		t.Errorf("page counter %q after the refused click, want 0", got)
	}
	if err := click(snapButton()); err != nil {
		t.Fatalf("page_click with a fresh snapshot's ref: %v", err)
	}
	if got := count(); got != "1" {
		t.Errorf("page counter %q after the fresh click, want 1", got)
	}
}
