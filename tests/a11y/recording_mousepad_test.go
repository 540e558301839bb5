package a11y

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/a11ybus"
	"glovebox.dev/shared/testenv/desktop"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
	"glovebox.dev/tests/internal/stepschema"
)

// startEditorAgent starts a desktop with an accessibility session and the agent on it; the programs the agent
// launches get their own XDG directories and an in-memory GSettings backend, so an editor keeps no state
// (recent files, window size, preferences) from one desktop to the next.
func startEditorAgent(t *testing.T) (*a11ybus.Session, *agenttest.Agent) {
	t.Helper()
	d := desktop.Start(t, desktop.Options{})
	s := a11ybus.Start(t, d)
	home := t.TempDir()
	a := agenttest.Start(t, agenttest.Options{Desktop: d, Env: []string{
		"DBUS_SESSION_BUS_ADDRESS=" + s.Address, "GSETTINGS_BACKEND=memory",
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
	}})
	return s, a
}

// TestRecordingMousepadScenario is the recordings issue's scenario as written: a recorded session launches
// Debian's mousepad, focuses its text view, types a line, selects a word by select_text and types over it,
// and clicks Edit > Select All, Edit > Convert > To Uppercase and File > Save by ref. The saved file is
// mousepad's own output. The CLI's export is checked by tools nobody here wrote: steps.jsonl against
// docs/recording-step.schema.json with Debian's python3-jsonschema, the images with image/jpeg, the video with
// ffprobe. Then the recording is replayed on a fresh desktop (its own Xvfb, bus and agent, mousepad not
// running): the replay launches mousepad, repeats the steps, and the file it saves holds the same text.
func TestRecordingMousepadScenario(t *testing.T) {
	testenv.NeedCommands(t, "mousepad", "ffmpeg", "ffprobe", python)
	stepschema.Need(t)
	_, recAgent := startEditorAgent(t)
	_, freshAgent := startEditorAgent(t)
	b := brokertest.StartConfig(t, recAgent, func(cfg map[string]any) {
		cfg["recording"] = map[string]any{"principals": []string{"tester"}, "keep_text": true, "screenshots": true}
		cfg["guests"] = append(cfg["guests"].([]map[string]any), map[string]any{"name": "g2", "endpoint": "unix://" + freshAgent.Socket})
	})
	conn := dialBroker(t, b)
	computer, sessions := brokerv1.NewComputerServiceClient(conn), brokerv1.NewSessionServiceClient(conn)
	ctx := ctxT(t, 180*time.Second)
	doc := filepath.Join(t.TempDir(), "notes.txt")
	const want = "THE QUICK RED FOX"

	// Record.
	sess, err := sessions.CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: b.Guest})
	if err != nil {
		t.Fatal(err)
	}
	sid := sess.GetSession().GetId()
	got, err := computer.GetApp(ctx, &brokerv1.GetAppRequest{SessionId: sid, Request: &agentv1.GetAppRequest{
		Name: "mousepad", Launch: true, Args: []string{doc}, LaunchTimeoutMs: 30000}})
	if err != nil || !got.GetResponse().GetAccessible() {
		t.Fatalf("launch mousepad: %v, %v", got, err)
	}
	appID := got.GetResponse().GetApp().GetAppId()
	// settle reads mousepad's tree until its text view holds want, so the next step starts once the one before
	// it reached the app (typed keys arrive asynchronously; the menu items act from an idle callback). Refs
	// are taken from the newest snapshot: a newer one supersedes them. The test's check is the saved file.
	var s *agentv1.Snapshot
	settle := func(want string) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for {
			r, err := computer.SnapshotApp(ctx, &brokerv1.SnapshotAppRequest{SessionId: sid, Request: &agentv1.SnapshotAppRequest{AppId: appID}})
			if err != nil {
				t.Fatal(err)
			}
			s = r.GetResponse().GetSnapshot()
			if findTrimmed(t, s, "text", "").GetText() == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("mousepad's text view never held %q within 15s", want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	ref := func(role, name string) *agentv1.ElementRef {
		return &agentv1.ElementRef{SnapshotId: s.GetSnapshotId(), Ref: findTrimmed(t, s, role, name).GetRef()}
	}
	act := func(r *agentv1.ActRequest) {
		t.Helper()
		if _, err := computer.Act(ctx, &brokerv1.ActRequest{SessionId: sid, Request: r}); err != nil {
			t.Fatalf("act %v: %v", r, err)
		}
	}
	click := func(menuItem string) {
		t.Helper()
		act(&agentv1.ActRequest{Action: &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{Element: ref("menu item", menuItem)}}})
	}
	settle("")
	act(&agentv1.ActRequest{Action: &agentv1.ActRequest_ElementFocus{ElementFocus: &agentv1.ElementFocus{Element: ref("text", "")}}})
	act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: "the quick brown fox"}}})
	settle("the quick brown fox")
	act(&agentv1.ActRequest{Action: &agentv1.ActRequest_ElementSelectText{ElementSelectText: &agentv1.ElementSelectText{
		Element: ref("text", ""), Range: &agentv1.ElementSelectText_Match{Match: &agentv1.TextMatch{Text: "brown"}}}}})
	act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: "red"}}})
	settle("the quick red fox")
	click("Select All")
	click("To Uppercase")
	settle(want)
	click("Save")
	recorded := waitFile(t, doc, want, 15*time.Second)
	if _, err := sessions.DeleteSession(ctx, &brokerv1.DeleteSessionRequest{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	// The replay's mousepad opens the same path: what it saves there is only the replay's.
	if err := os.Rename(doc, doc+".recorded"); err != nil {
		t.Fatal(err)
	}
	recDir := b.RecordingsDir()
	id := b.WaitSealedRecording(t, 10*time.Second)

	// Export with the CLI and check the bundle.
	bundle := filepath.Join(t.TempDir(), "bundle")
	if out, err := gloveboxCLI(t, b, "recording", "export", id, "-dir", recDir, "-o", bundle); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	steps := checkBundle(t, bundle)
	wantActions := []string{"GetApp", "element_focus", "type", "element_select_text", "type", "element_click", "element_click", "element_click"}
	var actions []string
	for _, st := range steps {
		actions = append(actions, fmt.Sprint(st["action"]))
	}
	if !slices.Equal(actions, wantActions) {
		t.Errorf("recorded actions %v, want %v", actions, wantActions)
	}

	// Replay on the fresh desktop, where mousepad is not running.
	waitGuestReady(t, conn, "g2", 30*time.Second)
	fresh, err := sessions.CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: "g2"})
	if err != nil {
		t.Fatal(err)
	}
	apps, err := computer.ListApps(ctx, &brokerv1.ListAppsRequest{SessionId: fresh.GetSession().GetId()})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range apps.GetResponse().GetApps() {
		if strings.EqualFold(a.GetName(), "mousepad") {
			t.Fatalf("mousepad already runs on the fresh desktop (%s)", a.GetAppId())
		}
	}
	out, err := gloveboxCLI(t, b, "recording", "replay", id, "-guest", "g2")
	if err != nil {
		t.Fatalf("replay on the fresh desktop: %v\n%s", err, out)
	}
	for i, a := range wantActions {
		if !strings.Contains(out, fmt.Sprintf("step %d %s: done\n", i, a)) && !strings.Contains(out, fmt.Sprintf("step %d %s: resolved differently\n", i, a)) {
			t.Errorf("replay report lacks step %d %s done:\n%s", i, a, out)
		}
	}
	// What the replayed mousepad saved is what the recorded one did.
	waitFile(t, doc, recorded, 15*time.Second)
}

// findTrimmed returns the first element of role whose name, without surrounding spaces (GTK pads menu item
// names for their accelerators), is name.
func findTrimmed(t *testing.T, s *agentv1.Snapshot, role, name string) *agentv1.Element {
	t.Helper()
	for _, el := range s.GetElements() {
		if el.GetRole() == role && strings.TrimSpace(el.GetName()) == name {
			return el
		}
	}
	t.Fatalf("no %s %q in the snapshot of %d elements", role, name, len(s.GetElements()))
	return nil
}

// waitFile waits until path holds want and returns its content; it fails with what the file last held.
func waitFile(t *testing.T, path, want string, timeout time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		b, err := os.ReadFile(path)
		if err == nil && string(b) == want {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s holds %q (%v) after %v, want %q", path, b, err, timeout, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// gloveboxCLI runs the glovebox CLI against b (killed after 2 minutes) and returns its stdout and stderr.
func gloveboxCLI(t *testing.T, b *brokertest.Broker, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, brokertest.Binary(t, "glovebox"), args...)
	cmd.Env = append(os.Environ(), "GLOVEBOX_BROKER="+b.URI)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
