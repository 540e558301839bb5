package console

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// TestTakeoverRecordingReplays: a person's takeover through the console is its own recording (a lease,
// source HUMAN), sealed at the release; replaying it presses the GTK button again and types the person's
// text (a key burst, kept by the policy) into the entry again, Return included (the app's own output).
func TestTakeoverRecordingReplays(t *testing.T) {
	r := newRig(t, func(cfg map[string]any) {
		cfg["recording"] = map[string]any{"principals": []string{"tester"}, "keep_text": true}
	})
	sid := r.session(t)
	snap := r.snapshotApp(t, sid)
	button, entry := element(t, snap, "push button", "Press"), findRole(t, snap, "text")
	// The session closes before the takeover so the lease is the only recording with input.
	if _, err := brokerv1.NewSessionServiceClient(r.conn).DeleteSession(ctxT(t, 10*time.Second), &brokerv1.DeleteSessionRequest{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	tab := openConsole(t, r, brokerv1.ViewerMode_VIEWER_MODE_CONTROL)
	run(t, tab, 10*time.Second, chromedp.Click(chromedp.CSS("#take")))
	waitJS(t, tab, `document.body.dataset.control === 'mine'`, 10*time.Second)
	bx, by := center(button)
	px, py := pageXY(t, tab, bx, by)
	run(t, tab, 10*time.Second, chromedp.MouseClickXY(px, py))
	waitClicks(t, r, 1)
	const typed = "typed by hand 4e2a"
	ex, ey := center(entry)
	px, py = pageXY(t, tab, ex, ey)
	run(t, tab, 10*time.Second, chromedp.MouseClickXY(px, py))
	run(t, tab, 20*time.Second, chromedp.SendKeys(chromedp.CSS("#keys"), typed), chromedp.KeyEvent(kb.Enter))
	waitTexts(t, r, typed, 1)
	run(t, tab, 10*time.Second, chromedp.Click(chromedp.CSS("#release")))
	waitJS(t, tab, `document.body.dataset.control === 'free'`, 10*time.Second)

	recDir := filepath.Join(filepath.Dir(r.broker.AuditDir), "recordings")
	var lease string
	deadline := time.Now().Add(10 * time.Second)
	for lease == "" {
		entries, _ := os.ReadDir(recDir)
		for _, e := range entries {
			var m struct{ Kind, ID string }
			if b, err := os.ReadFile(filepath.Join(recDir, e.Name(), "manifest.json")); err == nil && json.Unmarshal(b, &m) == nil && m.Kind == "lease" {
				lease = m.ID
			}
		}
		if lease == "" && time.Now().After(deadline) {
			t.Fatalf("no sealed lease recording in %s after the release", recDir)
		}
		time.Sleep(50 * time.Millisecond)
	}
	steps, err := os.ReadFile(filepath.Join(recDir, lease, "steps.jsonl"))
	if err != nil || !strings.Contains(string(steps), `"source":"HUMAN"`) || !strings.Contains(string(steps), `"action":"mouse_down"`) {
		t.Fatalf("lease steps %s, %v; want HUMAN steps with the button press", steps, err)
	}

	out, err := r.glovebox(t, "recording", "replay", lease, "-guest", r.broker.Guest, "-keep-going")
	if err != nil || !strings.Contains(out, "mouse_down: done by coordinates") || !strings.Contains(out, "type: done") {
		t.Fatalf("replay of the takeover: %v\n%s", err, out)
	}
	t.Logf("replay report:\n%s", out)
	waitClicks(t, r, 2)
	waitTexts(t, r, typed, 2)
}

// waitTexts waits until the app reported text n times (Return in its entry).
func waitTexts(t *testing.T, r *rig, text string, n int) {
	t.Helper()
	count := func() int {
		c := 0
		for _, e := range r.app.events("text") {
			if e["text"] == text {
				c++
			}
		}
		return c
	}
	deadline := time.Now().Add(20 * time.Second)
	for count() != n {
		if time.Now().After(deadline) {
			t.Fatalf("the app reported the text %d times, want %d (its text events: %v)", count(), n, r.app.events("text"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitClicks waits until the app saw n clicks.
func waitClicks(t *testing.T, r *rig, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(r.app.events("clicked")) != n {
		if time.Now().After(deadline) {
			t.Fatalf("the app saw %d clicks, want %d", len(r.app.events("clicked")), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
