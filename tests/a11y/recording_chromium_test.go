package a11y

import (
	"context"
	"strings"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv/chromium"
	"glovebox.dev/tests/internal/brokertest"
	"glovebox.dev/tests/internal/labelpage"
)

// TestRecordingReplayChromiumRenamedButton records an element click on a button of a page in Debian's
// Chromium (its AT-SPI tree, through the broker) and replays it: on the unchanged page the replay clicks it
// again (the page's own report to the test's server), and after the page renamed the button the replay stops
// at that step with "not found" and nothing is clicked.
func TestRecordingReplayChromiumRenamedButton(t *testing.T) {
	chromium.Need(t)
	s, agent := startAgent(t)
	page := labelpage.Start(t, "Save")
	chrome := s.Command("chromium", "--force-renderer-accessibility", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--no-default-browser-check", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--password-store=basic", "--user-data-dir="+t.TempDir(), "--window-size=1000,700", page.URL)
	if err := s.StartProgram(t, chrome); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	b := brokertest.StartConfig(t, agent, func(cfg map[string]any) {
		cfg["recording"] = map[string]any{"principals": []string{"tester"}}
	})
	conn := dialBroker(t, b)
	computer, sessions := brokerv1.NewComputerServiceClient(conn), brokerv1.NewSessionServiceClient(conn)
	ctx := ctxT(t, 150*time.Second)
	newSession := func() string {
		sess, err := sessions.CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: b.Guest})
		if err != nil {
			t.Fatal(err)
		}
		return sess.GetSession().GetId()
	}
	// buttonIn waits until the browser's tree, read in session sid, shows a push button named label.
	buttonIn := func(sid, label string) (*agentv1.Snapshot, *agentv1.Element) {
		t.Helper()
		id := appID(int32(chrome.Process.Pid))
		waitOnBus(t, id, func(ctx context.Context) ([]*agentv1.App, error) {
			r, err := computer.ListApps(ctx, &brokerv1.ListAppsRequest{SessionId: sid})
			return r.GetResponse().GetApps(), err
		})
		deadline := time.Now().Add(60 * time.Second)
		for {
			r, err := computer.SnapshotApp(ctx, &brokerv1.SnapshotAppRequest{SessionId: sid, Request: &agentv1.SnapshotAppRequest{AppId: id}})
			for _, el := range r.GetResponse().GetSnapshot().GetElements() {
				if err == nil && el.GetRole() == "push button" && el.GetName() == label {
					return r.GetResponse().GetSnapshot(), el
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("no push button %q in Chromium's tree within 60s (last: %v)", label, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}

	// Record: the page's button clicked by ref.
	sid := newSession()
	snap, button := buttonIn(sid, "Save")
	if _, err := computer.Act(ctx, &brokerv1.ActRequest{SessionId: sid, Request: &agentv1.ActRequest{Action: &agentv1.ActRequest_ElementClick{
		ElementClick: &agentv1.ElementClick{Element: &agentv1.ElementRef{SnapshotId: snap.GetSnapshotId(), Ref: button.GetRef()}}}}}); err != nil {
		t.Fatal(err)
	}
	page.WaitClicks(t, 1, 10*time.Second)
	if _, err := sessions.DeleteSession(ctx, &brokerv1.DeleteSessionRequest{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	id := b.WaitSealedRecording(t, 10*time.Second)

	// The page unchanged: the replay finds the button by its description and clicks it.
	out, err := gloveboxCLI(t, b, "recording", "replay", id, "-guest", b.Guest)
	if err != nil || !strings.Contains(out, "step 0 element_click: done") && !strings.Contains(out, "step 0 element_click: resolved differently") {
		t.Fatalf("replay on the unchanged page: %v\n%s", err, out)
	}
	page.WaitClicks(t, 2, 10*time.Second)

	// The button renamed (seen in the tree first, so the replay cannot race the rename): the replay stops at
	// the step, "not found", and the page reports no click.
	page.SetLabel("Store")
	buttonIn(newSession(), "Store")
	out, err = gloveboxCLI(t, b, "recording", "replay", id, "-guest", b.Guest)
	if err == nil || !strings.Contains(out, "step 0 element_click: not found") {
		t.Fatalf("replay on the renamed button: %v\n%s", err, out)
	}
	if n := page.Clicks(); n != 2 {
		t.Errorf("the page reported %d clicks after the replay on the renamed button, want 2", n)
	}
}
