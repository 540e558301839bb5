package browser_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/chromium"
	"glovebox.dev/shared/testenv/desktop"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// TestObserveTabThroughBroker observes a tab of the benchmarks' page through the real broker and agent: the
// snapshot is within its 4 KiB budget (measured here), the focused element is the field the page itself says
// has the focus (read over the test's own DevTools connection), with a ref that fills it although it is far past
// the first page, and the screenshot comes with its scale.
func TestObserveTabThroughBroker(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb", "openbox", "chromium")
	page := chromium.BenchPage()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, page) }))
	t.Cleanup(srv.Close)
	d := desktop.Start(t, desktop.Options{})
	port := chromium.Start(t, d)
	dt := &devtools{port: port}
	tab := dt.newTab(t, srv.URL)
	for deadline := time.Now().Add(15 * time.Second); ; {
		var there bool
		dt.eval(t, tab, `document.readyState === 'complete' && !!document.querySelector('input[aria-label="Field 80"]')`, &there)
		if there {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the page did not load within 15s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	dt.eval(t, tab, `(document.querySelector('input[aria-label="Field 80"]').focus(), true)`, new(bool))
	var active string
	dt.eval(t, tab, `document.activeElement.getAttribute('aria-label')`, &active)
	if active != "Field 80" {
		t.Fatalf("the page's active element is %q", active)
	}
	a := agenttest.Start(t, agenttest.Options{Desktop: d, ExtraArgs: []string{"-browser-port", strconv.Itoa(port), "-browser-profile", t.TempDir()}})
	b := brokertest.Start(t, a)
	conn := dialBroker(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cc := brokerv1.NewComputerServiceClient(conn)
	se, err := brokerv1.NewSessionServiceClient(conn).CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: b.Guest})
	if err != nil {
		t.Fatal(err)
	}
	s := se.GetSession().GetId()
	browserID := "chrome-" + strconv.Itoa(port)
	r, err := cc.Observe(ctx, &brokerv1.ObserveRequest{SessionId: s, Request: &agentv1.ObserveRequest{
		Target: tabTarget(browserID, tab), Snapshot: &agentv1.SnapshotOptions{MaxBytes: 4096, MaxNodes: 20000}}})
	if err != nil {
		t.Fatal(err)
	}
	snap, f := r.GetResponse().GetSnapshot(), r.GetResponse().GetFocused()
	if n := proto.Size(snap); n > 4096 || snap.GetNextCursor() == "" {
		t.Errorf("snapshot %d bytes, cursor %q: want a first page within 4096 bytes", n, snap.GetNextCursor())
	}
	if snap.GetTarget().GetTab().GetTabId() != tab || r.GetTarget().GetTabId() != tab || r.GetTarget().GetSource() != agentv1.TargetSource_TARGET_SOURCE_EXPLICIT {
		t.Errorf("snapshot target %v, frozen %v, want tab %s", snap.GetTarget(), r.GetTarget(), tab)
	}
	if f.GetName() != "Field 80" || f.GetRef() == "" {
		t.Fatalf("focused %v, want Field 80 with a ref", f)
	}
	for _, el := range snap.GetElements() {
		if el.GetRef() == f.GetRef() {
			t.Errorf("the focused field %s is on the first page; the test wants it past it", f.GetRef())
		}
	}
	if _, err := cc.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: &agentv1.ActRequest{Action: &agentv1.ActRequest_Fill{Fill: &agentv1.Fill{
		Tab: &agentv1.TabRef{BrowserId: browserID, TabId: tab}, Text: "observed",
		Locator: &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: &agentv1.ElementRef{SnapshotId: snap.GetSnapshotId(), Ref: f.GetRef()}}}}}}}); err != nil {
		t.Fatalf("fill through the focused ref: %v", err)
	}
	var value string
	dt.eval(t, tab, `document.querySelector('input[aria-label="Field 80"]').value`, &value)
	if value != "observed" {
		t.Errorf("Field 80 holds %q after the fill", value)
	}
	img := r.GetResponse().GetImage()
	if len(img.GetData()) == 0 || img.GetScale() != 1 || img.GetWidth() <= 0 {
		t.Errorf("image %dx%d scale %v, %d bytes", img.GetWidth(), img.GetHeight(), img.GetScale(), len(img.GetData()))
	}
	whole, err := cc.SnapshotTab(ctx, &brokerv1.SnapshotTabRequest{SessionId: s, Request: &agentv1.SnapshotTabRequest{
		Tab: &agentv1.TabRef{BrowserId: browserID, TabId: tab}, Options: &agentv1.SnapshotOptions{MaxNodes: 20000}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tab snapshot of the benchmarks' page: %d bytes whole, %d bytes as the observation's first page", proto.Size(whole.GetResponse().GetSnapshot()), proto.Size(snap))
}
