package broker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// a11yLine is one line of a recording's a11y.jsonl, as docs/RECORDINGS.md documents it.
type a11yLine struct {
	Name        string `json:"name"`
	AuditSeq    uint64 `json:"audit_seq"`
	Source      string `json:"source"`
	WindowID    uint32 `json:"window_id"`
	AppID       string `json:"app_id"`
	AppWindowID string `json:"app_window_id"`
	Complete    bool   `json:"complete"`
	Bytes       int    `json:"bytes"`
	Budget      int32  `json:"budget"`
}

// TestRecordingA11yText records, with the policy's a11y_text, an element click on a window snapshot and a
// click at the button's coordinates on the real GTK test app: each step names its accessibility text file,
// the file holds the window's text after the step (the app's button and text entry, within the 2048-byte budget)
// and a11y.jsonl describes it (the app's window; the X window). Reading it did not disturb the session: a
// second click on the same snapshot's ref lands (the app prints it; a kept snapshot of the same window would
// have superseded the session's). A canary typed into the entry is in the app's text, not in the recording's
// (redacted: the policy keeps no text). The texts are covered by the manifest (one byte changed makes `glovebox
// audit verify` fail naming the recording and the file), exported under a11y/, and never in the broker's log.
func TestRecordingA11yText(t *testing.T) {
	g := startRecGuest(t, "recapp")
	br := setupBroker(t, map[string]string{"vm1": "unix://" + g.agent.Socket}, func(cfg map[string]any) {
		cfg["recording"] = map[string]any{"guests": []string{"vm1"}, "screenshots": true, "a11y_text": true, "a11y_max_bytes": 2048}
	}).start(t)
	ctx := context.Background()
	computer := brokerv1.NewComputerServiceClient(br.Conn)
	sessions := brokerv1.NewSessionServiceClient(br.Conn)
	sid := br.session(t, "vm1")
	snap, err := computer.SnapshotWindow(ctx, &brokerv1.SnapshotWindowRequest{SessionId: sid,
		Request: &agentv1.SnapshotWindowRequest{AppId: g.appID, WindowId: g.window}})
	if err != nil {
		t.Fatal(err)
	}
	s := snap.GetResponse().GetSnapshot()
	button := findEl(t, s, "push button", "Press me")
	elementClick := &agentv1.ActRequest{Action: &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{
		Element: &agentv1.ElementRef{SnapshotId: s.GetSnapshotId(), Ref: button.GetRef()}}}}
	recDir := filepath.Join(br.Dir, "recordings")

	first, err := computer.Act(ctx, act(elementClick, sid))
	if err != nil {
		t.Fatalf("element click: %v", err)
	}
	g.waitLine(t, "button clicked", 5*time.Second)
	id := onlyRecording(t, recDir)
	waitExists(t, filepath.Join(recDir, id, a11yName(first.GetAuditSeq())), 10*time.Second)
	// The session's snapshot is still the newest of the window: its ref acts again.
	if _, err := computer.Act(ctx, act(elementClick, sid)); err != nil {
		t.Fatalf("the session's ref after the recording read the window's text: %v", err)
	}
	g.waitLine(t, "button clicked", 5*time.Second, 2)
	b := button.GetBounds()
	third, err := computer.Act(ctx, act(clickAt(b.GetX()+b.GetWidth()/2, b.GetY()+b.GetHeight()/2), sid))
	if err != nil {
		t.Fatalf("click at the button: %v", err)
	}
	g.waitLine(t, "button clicked", 5*time.Second, 3)
	waitExists(t, filepath.Join(recDir, id, a11yName(third.GetAuditSeq())), 10*time.Second)
	// A canary typed into the entry: the entry's text shows it, the recording's texts must not (no keep_text).
	var entry *agentv1.Element
	for _, e := range s.GetElements() {
		if e.GetRole() == "text" && entry == nil {
			entry = e
		}
	}
	if _, err := computer.Act(ctx, act(&agentv1.ActRequest{Action: &agentv1.ActRequest_ElementFocus{ElementFocus: &agentv1.ElementFocus{
		Element: &agentv1.ElementRef{SnapshotId: s.GetSnapshotId(), Ref: entry.GetRef()}}}}, sid)); err != nil {
		t.Fatal(err)
	}
	if _, err := computer.Act(ctx, act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Key{Key: &agentv1.Key{Combo: "End"}}}, sid)); err != nil {
		t.Fatal(err)
	}
	const canary = "canary a11y 7q2x"
	typed, err := computer.Act(ctx, act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: canary}}}, sid))
	if err != nil {
		t.Fatal(err)
	}
	g.waitLine(t, "entry: hello world"+canary, 5*time.Second)
	waitExists(t, filepath.Join(recDir, id, a11yName(typed.GetAuditSeq())), 10*time.Second)
	if _, err := sessions.DeleteSession(ctx, &brokerv1.DeleteSessionRequest{SessionId: sid}); err != nil {
		t.Fatal(err)
	}

	// The steps name their texts; every file is described.
	stepsData, err := os.ReadFile(filepath.Join(recDir, id, "steps.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, line := range bytes.Split(bytes.TrimSpace(stepsData), []byte("\n")) {
		var st struct {
			Action    string `json:"action"`
			AuditSeq  uint64 `json:"audit_seq"`
			A11yAfter string `json:"a11y_after"`
		}
		if err := json.Unmarshal(line, &st); err != nil {
			t.Fatal(err)
		}
		if st.A11yAfter != a11yName(st.AuditSeq) {
			t.Errorf("step %s (seq %d): a11y_after %q, want %q", st.Action, st.AuditSeq, st.A11yAfter, a11yName(st.AuditSeq))
		}
		names = append(names, st.A11yAfter)
	}
	if len(names) != 6 {
		t.Fatalf("%d steps, want 6", len(names))
	}
	listed := map[string]a11yLine{}
	listData, err := os.ReadFile(filepath.Join(recDir, id, "a11y.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(listData), []byte("\n")) {
		var l a11yLine
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatal(err)
		}
		listed[l.Name] = l
	}
	for _, name := range []string{names[0], names[2]} {
		text, err := os.ReadFile(filepath.Join(recDir, id, name))
		if err != nil {
			t.Fatalf("text of a step: %v", err)
		}
		if !bytes.Contains(text, []byte(`push button "Press me"`)) || !bytes.Contains(text, []byte(`text "hello world" (editable)`)) || len(text) > 2048 {
			t.Errorf("%s (%d bytes, budget 2048) is not the window's text:\n%s", name, len(text), text)
		}
		if l := listed[name]; l.Source != "atspi" || l.Bytes != len(text) || l.Budget != 2048 {
			t.Errorf("a11y.jsonl for %s: %+v", name, l)
		}
	}
	if l := listed[names[0]]; l.AppID != g.appID || l.AppWindowID != g.window {
		t.Errorf("the element step's text is of %s window %s, want %s window %s", l.AppID, l.AppWindowID, g.appID, g.window)
	}
	if l := listed[names[2]]; l.WindowID == 0 || l.AuditSeq != third.GetAuditSeq() {
		t.Errorf("the pointer step's text: %+v, want the X window acted on, seq %d", l, third.GetAuditSeq())
	}
	if strings.Contains(br.Log.String(), "Enable feature") || strings.Contains(br.Log.String(), "Press me") {
		t.Error("the window's text is in the broker's log")
	}
	typedText, err := os.ReadFile(filepath.Join(recDir, id, names[5]))
	if err != nil || !bytes.Contains(typedText, []byte("hello world[redacted: typed text]")) {
		t.Errorf("the text after typing (%v), want the typed text redacted:\n%s", err, typedText)
	}
	files, _ := os.ReadDir(filepath.Join(recDir, id))
	for _, f := range files {
		if data, _ := os.ReadFile(filepath.Join(recDir, id, f.Name())); bytes.Contains(data, []byte(canary)) {
			t.Errorf("the typed canary is in %s", f.Name())
		}
	}

	// Exported beside the images.
	out := filepath.Join(t.TempDir(), "bundle")
	if code, stdout, stderr := glovebox(t, "", "recording", "export", id, "-dir", recDir, "-o", out); code != 0 {
		t.Fatalf("export: exit %d: %s%s", code, stdout, stderr)
	}
	for _, name := range []string{names[0], names[2]} {
		if _, err := os.Stat(filepath.Join(out, "a11y", name)); err != nil {
			t.Errorf("bundle: %v", err)
		}
	}

	// Covered by the manifest.
	verifyAudit(t, br.AuditDir)
	path := filepath.Join(recDir, id, names[0])
	text, _ := os.ReadFile(path)
	text[len(text)/2] ^= 1
	if err := os.WriteFile(path, text, 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := glovebox(t, "", "audit", "verify", "-dir", br.AuditDir)
	if code != 1 || !strings.Contains(stdout+stderr, id) || !strings.Contains(stdout+stderr, names[0]) {
		t.Errorf("verify after one byte of a text changed: exit %d\n%s%s", code, stdout, stderr)
	}
}

// a11yName is the text file name of the step whose outcome record is seq (docs/RECORDINGS.md).
func a11yName(seq uint64) string { return "seq-" + pad12(seq) + ".a11y.txt" }

func pad12(n uint64) string {
	s := []byte("000000000000")
	for i := len(s) - 1; i >= 0 && n > 0; i-- {
		s[i] = byte('0' + n%10)
		n /= 10
	}
	return string(s)
}
