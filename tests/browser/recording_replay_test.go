package browser_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/chromium"
	"glovebox.dev/shared/testenv/desktop"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// replayPage is a button that counts its clicks in the page (label "Press me", or "Store" once renamed).
const replayPage = `<!doctype html><html><head><title>Replay page</title></head><body>
<button onclick="document.getElementById('count').textContent = ++window.n">%s</button>
<span id="count">0</span><script>window.n = 0</script></body></html>`

// pageGuest is a desktop with Chromium (an about:blank tab and the page's) and an agent using it.
type pageGuest struct {
	dt    *devtools
	tab   string
	agent *agenttest.Agent
}

func startPageGuest(t *testing.T, url string) *pageGuest {
	t.Helper()
	d := desktop.Start(t, desktop.Options{})
	port := chromium.Start(t, d)
	g := &pageGuest{dt: &devtools{port: port}}
	g.tab = g.dt.newTab(t, url)
	g.dt.eval(t, g.tab, `new Promise(r => document.readyState === 'complete' ? r(true) : addEventListener('load', () => r(true)))`, new(bool))
	g.agent = agenttest.Start(t, agenttest.Options{Desktop: d, ExtraArgs: []string{"-browser-port", strconv.Itoa(port), "-browser-profile", t.TempDir()}})
	return g
}

func (g *pageGuest) count(t *testing.T) string {
	var c string
	g.dt.eval(t, g.tab, `document.getElementById('count').textContent`, &c)
	return c
}

// TestReplayPageStepOnAnotherGuest records two page_clicks by a ref of a tab snapshot on guest g1 (the session
// never lists the tabs; the recording reads the tab's accessibility text after each, and the second click shows
// the session's ref survived that read) and replays them with `glovebox recording replay -guest g2` on another guest, whose
// Chromium has other browser and tab ids and two tabs: the tab is found by the recorded URL and the button by
// its role and name, and the click lands in g2's page (its DOM, read over the test's own DevTools connection,
// counts 2; g1's still 2). After g2's page renames the button, the replay stops at the step with "not found"
// and nothing is clicked. Before, the replay sent g1's browser and tab ids and the old ref: it failed.
func TestReplayPageStepOnAnotherGuest(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb", "openbox", "chromium")
	var renamed atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		label := "Press me"
		if renamed.Load() {
			label = "Store"
		}
		fmt.Fprintf(w, replayPage, label)
	}))
	t.Cleanup(srv.Close)
	url := srv.URL + "/replay"
	one, two := startPageGuest(t, url), startPageGuest(t, url)
	b := brokertest.StartConfig(t, one.agent, func(cfg map[string]any) {
		cfg["guests"] = append(cfg["guests"].([]map[string]any), map[string]any{"name": "g2", "endpoint": "unix://" + two.agent.Socket})
		cfg["recording"] = map[string]any{"guests": []string{"g1"}, "a11y_text": true}
	})
	conn := dialBroker(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cc, sessions := brokerv1.NewComputerServiceClient(conn), brokerv1.NewSessionServiceClient(conn)
	se, err := sessions.CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: "g1"})
	if err != nil {
		t.Fatal(err)
	}
	sid := se.GetSession().GetId()
	tab := &agentv1.TabRef{BrowserId: "chrome-" + strconv.Itoa(one.dt.port), TabId: one.tab}
	snap, err := cc.SnapshotTab(ctx, &brokerv1.SnapshotTabRequest{SessionId: sid, Request: &agentv1.SnapshotTabRequest{Tab: tab}})
	if err != nil {
		t.Fatal(err)
	}
	button := ref(t, snap.GetResponse().GetSnapshot(), "button", "Press me")
	click := &brokerv1.ActRequest{SessionId: sid, Request: &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{
		PageClick: &agentv1.PageClick{Tab: tab, Locator: &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: button}}}}}}
	first, err := cc.Act(ctx, click)
	if err != nil {
		t.Fatal(err)
	}
	// The recording reads the tab's text after the step (a11y_text): a detached snapshot, so the session's
	// snapshot stays the tab's newest and its ref clicks again.
	recDir := filepath.Join(filepath.Dir(b.AuditDir), "recordings")
	entries, err := os.ReadDir(recDir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("recordings: %d, %v", len(entries), err)
	}
	id := entries[0].Name()
	textFile := filepath.Join(recDir, id, fmt.Sprintf("seq-%012d.a11y.txt", first.GetAuditSeq()))
	deadline := time.Now().Add(10 * time.Second)
	for {
		if text, err := os.ReadFile(textFile); err == nil {
			if !bytes.Contains(text, []byte(`button "Press me"`)) {
				t.Errorf("the tab's text after the click:\n%s", text)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no accessibility text of the tab within 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := cc.Act(ctx, click); err != nil {
		t.Fatalf("the session's ref after the recording read the tab's text: %v", err)
	}
	if c := one.count(t); c != "2" {
		t.Fatalf("g1's page counts %s after the two recorded clicks", c)
	}
	if _, err := sessions.DeleteSession(ctx, &brokerv1.DeleteSessionRequest{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	replay := func() (int, []struct{ Status, Detail string }) {
		t.Helper()
		cmd := exec.Command(brokertest.Binary(t, "glovebox"), "recording", "replay", id, "-guest", "g2", "-json")
		cmd.Env = append(os.Environ(), "GLOVEBOX_BROKER="+b.URI)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		var rep struct {
			Steps []struct{ Status, Detail string }
		}
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("replay -json: %v: %s%s", err, out.String(), errOut.String())
		}
		return code, rep.Steps
	}
	code, steps := replay()
	if code != 0 || len(steps) != 2 || steps[0].Status != "REPLAY_STATUS_DONE" || steps[1].Status != "REPLAY_STATUS_DONE" {
		t.Fatalf("replay on g2: exit %d, %+v", code, steps)
	}
	if c := two.count(t); c != "2" {
		t.Errorf("g2's page counts %s after the replay, want 2", c)
	}
	if c := one.count(t); c != "2" {
		t.Errorf("g1's page counts %s after the replay on g2, want 2", c)
	}

	renamed.Store(true)
	two.dt.eval(t, two.tab, `new Promise(r => { addEventListener('unload', () => {}); location.reload(); r(true) })`, new(bool))
	deadline = time.Now().Add(10 * time.Second)
	for {
		// The page may be between documents while it reloads ("Inspected target navigated or closed"): poll on.
		var label string
		err := two.dt.tryEval(two.tab, `document.querySelector('button') ? document.querySelector('button').textContent : ''`, &label)
		if err == nil && label == "Store" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("g2's page still shows %q (last eval error: %v)", label, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	code, steps = replay()
	if code != 1 || len(steps) != 2 || steps[0].Status != "REPLAY_STATUS_NOT_FOUND" {
		t.Errorf("replay on the renamed button: exit %d, %+v, want NOT_FOUND", code, steps)
	}
	if c := two.count(t); c != "0" {
		t.Errorf("g2's reloaded page counts %s: the renamed button was clicked", c)
	}
}
