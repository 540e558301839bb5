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

// TestReplayPageStepOnAnotherGuest records a page_click by a ref of a tab snapshot on guest g1 (the session
// never lists the tabs) and replays it with `glovebox recording replay -guest g2` on another guest, whose
// Chromium has other browser and tab ids and two tabs: the tab is found by the recorded URL and the button by
// its role and name, and the click lands in g2's page (its DOM, read over the test's own DevTools connection,
// counts 1; g1's still 1). After g2's page renames the button, the replay stops at the step with "not found"
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
		cfg["recording"] = map[string]any{"guests": []string{"g1"}}
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
	if _, err := cc.Act(ctx, &brokerv1.ActRequest{SessionId: sid, Request: &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{
		PageClick: &agentv1.PageClick{Tab: tab, Locator: &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: button}}}}}}); err != nil {
		t.Fatal(err)
	}
	if c := one.count(t); c != "1" {
		t.Fatalf("g1's page counts %s after the recorded click", c)
	}
	if _, err := sessions.DeleteSession(ctx, &brokerv1.DeleteSessionRequest{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	recDir := filepath.Join(filepath.Dir(b.AuditDir), "recordings")
	entries, err := os.ReadDir(recDir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("recordings: %d, %v", len(entries), err)
	}
	id := entries[0].Name()

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
	if code != 0 || len(steps) != 1 || steps[0].Status != "REPLAY_STATUS_DONE" {
		t.Fatalf("replay on g2: exit %d, %+v", code, steps)
	}
	if c := two.count(t); c != "1" {
		t.Errorf("g2's page counts %s after the replay, want 1", c)
	}
	if c := one.count(t); c != "1" {
		t.Errorf("g1's page counts %s after the replay on g2, want 1", c)
	}

	renamed.Store(true)
	two.dt.eval(t, two.tab, `new Promise(r => { addEventListener('unload', () => {}); location.reload(); r(true) })`, new(bool))
	deadline := time.Now().Add(10 * time.Second)
	for {
		var label string
		two.dt.eval(t, two.tab, `document.querySelector('button') ? document.querySelector('button').textContent : ''`, &label)
		if label == "Store" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("g2's page still shows %q", label)
		}
		time.Sleep(50 * time.Millisecond)
	}
	code, steps = replay()
	if code != 1 || len(steps) != 1 || steps[0].Status != "REPLAY_STATUS_NOT_FOUND" {
		t.Errorf("replay on the renamed button: exit %d, %+v, want NOT_FOUND", code, steps)
	}
	if c := two.count(t); c != "0" {
		t.Errorf("g2's reloaded page counts %s: the renamed button was clicked", c)
	}
}
