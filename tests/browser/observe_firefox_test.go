package browser_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/chromium"
	"glovebox.dev/shared/testenv/desktop"
	"glovebox.dev/shared/testenv/firefox"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// reportScript makes the benchmarks' page focus Field 80 once loaded and tell the test's server what it holds
// (POST /report "focus=<label>" and "<label>=<value>" on input): Firefox takes one WebDriver BiDi session, which
// the agent holds, so the page itself is the test's independent reader.
const reportScript = `<script>
const report = s => fetch('/report', {method: 'POST', body: s});
addEventListener('load', () => { const f = document.querySelector('input[aria-label="Field 80"]'); f.focus();
  report('focus=' + document.activeElement.getAttribute('aria-label')); });
document.addEventListener('input', e => report(e.target.getAttribute('aria-label') + '=' + e.target.value));
</script>`

// TestObserveFirefoxTabThroughBroker is TestObserveTabThroughBroker on Firefox ESR: the one-call observation of a
// Firefox tab through the real broker and agent answers a snapshot within its 4 KiB budget, the focused field
// (the one the page reported focused) with a ref past the first page that fills it (the page reports the value
// it then holds), and the screenshot with its scale.
func TestObserveFirefoxTabThroughBroker(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb", "openbox")
	firefox.Need(t)
	var mu sync.Mutex
	var reports []string
	got := make(chan struct{}, 16)
	page := strings.Replace(chromium.BenchPage(), "</body>", reportScript+"</body>", 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/report" {
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			reports = append(reports, string(b))
			mu.Unlock()
			got <- struct{}{}
			return
		}
		if r.URL.Path == "/" {
			io.WriteString(w, page)
		}
	}))
	t.Cleanup(srv.Close)
	// waitReport waits (bounded) for the page to report want.
	waitReport := func(want string) {
		t.Helper()
		deadline := time.After(15 * time.Second)
		for {
			mu.Lock()
			for _, r := range reports {
				if r == want {
					mu.Unlock()
					return
				}
			}
			seen := append([]string(nil), reports...)
			mu.Unlock()
			select {
			case <-got:
			case <-deadline:
				t.Fatalf("the page did not report %q within 15 s (it reported %q)", want, seen)
			}
		}
	}
	d := desktop.Start(t, desktop.Options{})
	port := firefox.Start(t, d)
	a := agenttest.Start(t, agenttest.Options{Desktop: d, ExtraArgs: []string{"-browser-port", "1", "-firefox-port", strconv.Itoa(port), "-firefox-profile", t.TempDir()}})
	b := brokertest.Start(t, a)
	conn := dialBroker(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cc := brokerv1.NewComputerServiceClient(conn)
	se, err := brokerv1.NewSessionServiceClient(conn).CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: b.Guest})
	if err != nil {
		t.Fatal(err)
	}
	s := se.GetSession().GetId()
	browserID := "firefox-" + strconv.Itoa(port)
	// The remote agent listens a few seconds before it takes sessions.
	var tab string
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		r, err := cc.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: &agentv1.ActRequest{Action: &agentv1.ActRequest_NewTab{NewTab: &agentv1.NewTab{BrowserId: browserID}}}})
		if err == nil {
			tab = r.GetResponse().GetTab().GetTabId()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("new_tab on %s: %v", browserID, err)
		}
	}
	tr := &agentv1.TabRef{BrowserId: browserID, TabId: tab}
	if _, err := cc.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: &agentv1.ActRequest{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: tr, Url: srv.URL + "/"}}}}); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	waitReport("focus=Field 80")
	r, err := cc.Observe(ctx, &brokerv1.ObserveRequest{SessionId: s, Request: &agentv1.ObserveRequest{
		Target: tabTarget(browserID, tab), Snapshot: &agentv1.SnapshotOptions{MaxBytes: 4096, MaxNodes: 20000}}})
	if err != nil {
		t.Fatalf("observe: %v", err)
	}
	snap, f := r.GetResponse().GetSnapshot(), r.GetResponse().GetFocused()
	if n := proto.Size(snap); n > 4096 || snap.GetNextCursor() == "" {
		t.Errorf("snapshot %d bytes, cursor %q: want a first page within 4096 bytes", n, snap.GetNextCursor())
	}
	if snap.GetTarget().GetTab().GetTabId() != tab || r.GetTarget().GetTabId() != tab {
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
		Tab: tr, Text: "observed", Locator: &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: &agentv1.ElementRef{SnapshotId: snap.GetSnapshotId(), Ref: f.GetRef()}}}}}}}); err != nil {
		t.Fatalf("fill through the focused ref: %v", err)
	}
	waitReport("Field 80=observed")
	img := r.GetResponse().GetImage()
	if len(img.GetData()) == 0 || img.GetScale() != 1 || img.GetWidth() <= 0 {
		t.Errorf("image %dx%d scale %v, %d bytes", img.GetWidth(), img.GetHeight(), img.GetScale(), len(img.GetData()))
	}
}
