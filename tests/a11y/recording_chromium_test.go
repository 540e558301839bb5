package a11y

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv/chromium"
	"glovebox.dev/tests/internal/brokertest"
)

// labelPage is a page with one button whose label the test's server decides (the page polls /label) and whose
// clicks it counts (each one POSTs /clicked): the test reads both on its own server, not through the agent.
const labelPage = `<!doctype html><title>Recorded page</title>
<main><h1>Recorded page</h1><button id="b">%s</button></main>
<script>
const b = document.getElementById('b');
b.addEventListener('click', () => fetch('/clicked', {method: 'POST'}));
setInterval(async () => {
  const l = await (await fetch('/label')).text();
  if (b.textContent !== l) b.textContent = l;
}, 100);
</script>`

// labelServer serves labelPage.
type labelServer struct {
	mu     sync.Mutex
	label  string
	clicks int
}

func (s *labelServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.URL.Path {
	case "/label":
		fmt.Fprint(w, s.label)
	case "/clicked":
		s.clicks++
	default:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, labelPage, s.label)
	}
}

func (s *labelServer) setLabel(l string) {
	s.mu.Lock()
	s.label = l
	s.mu.Unlock()
}

func (s *labelServer) clickCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clicks
}

// waitClicks waits until the page reported n clicks to the server.
func (s *labelServer) waitClicks(t *testing.T, n int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for s.clickCount() != n {
		if time.Now().After(deadline) {
			t.Fatalf("the page reported %d clicks within %v, want %d", s.clickCount(), timeout, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRecordingReplayChromiumRenamedButton records an element click on a button of a page in Debian's
// Chromium (its AT-SPI tree, through the broker) and replays it: on the unchanged page the replay clicks it
// again (the page's own report to the test's server), and after the page renamed the button the replay stops
// at that step with "not found" and nothing is clicked.
func TestRecordingReplayChromiumRenamedButton(t *testing.T) {
	chromium.Need(t)
	s, agent := startAgent(t)
	page := &labelServer{label: "Save"}
	srv := httptest.NewServer(page)
	t.Cleanup(srv.Close)
	chrome := s.Command("chromium", "--force-renderer-accessibility", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--no-default-browser-check", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--password-store=basic", "--user-data-dir="+t.TempDir(), "--window-size=1000,700", srv.URL)
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
	page.waitClicks(t, 1, 10*time.Second)
	if _, err := sessions.DeleteSession(ctx, &brokerv1.DeleteSessionRequest{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	id := sealedRecording(t, recordingsDir(b), 10*time.Second)

	// The page unchanged: the replay finds the button by its description and clicks it.
	out, err := gloveboxCLI(t, b, "recording", "replay", id, "-guest", b.Guest)
	if err != nil || !strings.Contains(out, "step 0 element_click: done") && !strings.Contains(out, "step 0 element_click: resolved differently") {
		t.Fatalf("replay on the unchanged page: %v\n%s", err, out)
	}
	page.waitClicks(t, 2, 10*time.Second)

	// The button renamed (seen in the tree first, so the replay cannot race the rename): the replay stops at
	// the step, "not found", and the page reports no click.
	page.setLabel("Store")
	buttonIn(newSession(), "Store")
	out, err = gloveboxCLI(t, b, "recording", "replay", id, "-guest", b.Guest)
	if err == nil || !strings.Contains(out, "step 0 element_click: not found") {
		t.Fatalf("replay on the renamed button: %v\n%s", err, out)
	}
	if n := page.clickCount(); n != 2 {
		t.Errorf("the page reported %d clicks after the replay on the renamed button, want 2", n)
	}
}
