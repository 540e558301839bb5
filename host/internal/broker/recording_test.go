package broker

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"glovebox.dev/host/internal/config"
	"glovebox.dev/host/internal/recording"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// TestHumanTakeoverIsItsOwnRecording: a person's console input during a lease is recorded (source HUMAN)
// apart from any session, sealed when the lease ends, its manifest hash chained into the audit log, and the
// text they typed kept only as length + HMAC.
func TestHumanTakeoverIsItsOwnRecording(t *testing.T) {
	a := startFakeAgent(t)
	cfg := testConfig(config.Guest{Name: "g1", Endpoint: a.endpoint()})
	cfg.Recording = config.Recording{Principals: []string{"human"}, Dir: t.TempDir()}
	tb := newTestBroker(t, cfg, nil)
	// The agent's session is not recorded (its principal is not in the policy).
	sid := tb.session(t, "agent", "g1")
	if _, err := tb.Act(tb.as("agent"), &brokerv1.ActRequest{SessionId: sid, Request: click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT)}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.AcquireControl(tb.as("human"), &brokerv1.AcquireControlRequest{Guest: "g1", Reason: "demo"}); err != nil {
		t.Fatal(err)
	}
	human := &cfg.Principals[3]
	const canary = "human canary 41c7"
	for _, r := range []*agentv1.ActRequest{click(30, 40, agentv1.MouseButton_MOUSE_BUTTON_LEFT), typeText(canary)} {
		if _, err := tb.HumanAct(context.Background(), human, "g1", r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tb.ReleaseControl(tb.as("human"), &brokerv1.ReleaseControlRequest{Guest: "g1"}); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(cfg.Recording.Dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("%d recordings, %v; want the lease's one", len(entries), err)
	}
	id := entries[0].Name()
	st, err := recording.Open(cfg.Recording.Dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := st.ReadManifest(id)
	if err != nil {
		t.Fatalf("lease recording not sealed when the lease ended: %v", err)
	}
	if m.Kind != recording.KindLease || m.Principal != "human" || m.Steps != 2 {
		t.Errorf("manifest %+v, want a lease of human with 2 steps", m)
	}
	steps, err := st.ReadSteps(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 2 || steps[0].Source != "HUMAN" || steps[0].Action != "click" || steps[1].Action != "type" || steps[0].AuditSeq == 0 {
		t.Errorf("steps %+v, want HUMAN click then type with audit seqs", steps)
	}
	data, _ := os.ReadFile(filepath.Join(cfg.Recording.Dir, id, recording.StepsFile))
	if bytes.Contains(data, []byte(canary)) {
		t.Error("the typed text is in the recording")
	}
	var sealed *brokerv1.AuditRecord
	for _, r := range tb.audit.records("g1") {
		if r.GetRpc() == recording.SealRPC {
			sealed = r
		}
	}
	mb, _ := os.ReadFile(filepath.Join(cfg.Recording.Dir, id, recording.ManifestFile))
	sum := sha256.Sum256(mb)
	if sealed == nil || sealed.GetArgs().GetFields()["manifest_sha256"].GetStringValue() != hex.EncodeToString(sum[:]) ||
		sealed.GetSource() != brokerv1.AuditSource_AUDIT_SOURCE_HUMAN {
		t.Fatalf("seal record %v, want the manifest's hash, source HUMAN", sealed)
	}
	if err := st.Verify(id, hex.EncodeToString(sum[:])); err != nil {
		t.Errorf("verify: %v", err)
	}
	// One byte changed: Verify names the recording and the file.
	data[len(data)/2] ^= 1
	if err := os.WriteFile(filepath.Join(cfg.Recording.Dir, id, recording.StepsFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := st.Verify(id, hex.EncodeToString(sum[:])); err == nil || !bytes.Contains([]byte(err.Error()), []byte(id+": steps.jsonl was changed")) {
		t.Errorf("verify after an edit: %v", err)
	}
}

// TestElementStepRecordsStableDescription: an element action is recorded with the element's role, name,
// the path of roles and names from the snapshot's root and the app's name, taken from the snapshot the
// session read, so a replay need not trust the old ref.
func TestElementStepRecordsStableDescription(t *testing.T) {
	a := startFakeAgent(t)
	a.elements = []*agentv1.Element{
		{Ref: "e1", Role: "frame", Name: "Untitled - gedit"},
		{Ref: "e2", Role: "menu bar", ParentRef: "e1"},
		{Ref: "e3", Role: "menu", Name: "File", ParentRef: "e2"},
		{Ref: "e4", Role: "menu item", Name: "Save", ParentRef: "e3"},
	}
	cfg := testConfig(config.Guest{Name: "g1", Endpoint: a.endpoint()})
	cfg.Recording = config.Recording{Guests: []string{"g1"}, Dir: t.TempDir()}
	tb := newTestBroker(t, cfg, nil)
	ctx := tb.as("agent")
	sid := tb.session(t, "agent", "g1")
	if _, err := tb.ListApps(ctx, &brokerv1.ListAppsRequest{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	snap, err := tb.SnapshotApp(ctx, &brokerv1.SnapshotAppRequest{SessionId: sid, Request: &agentv1.SnapshotAppRequest{AppId: "app:42"}})
	if err != nil {
		t.Fatal(err)
	}
	ref := &agentv1.ElementRef{SnapshotId: snap.GetResponse().GetSnapshot().GetSnapshotId(), Ref: "e4"}
	if _, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: sid, Request: &agentv1.ActRequest{
		Action: &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{Element: ref}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.DeleteSession(tb.as("agent"), sid); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(cfg.Recording.Dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("%d recordings, %v", len(entries), err)
	}
	st, _ := recording.Open(cfg.Recording.Dir)
	steps, err := st.ReadSteps(entries[0].Name())
	if err != nil || len(steps) != 1 {
		t.Fatalf("steps %v, %v; want the element click", steps, err)
	}
	e := steps[0].Element
	want := &recording.Element{AppID: "app:42", App: "gedit", Role: "menu item", Name: "Save", Ref: "e4", SnapshotID: ref.GetSnapshotId(),
		Path: []recording.PathStep{{Role: "frame", Name: "Untitled - gedit"}, {Role: "menu bar"}, {Role: "menu", Name: "File"}}}
	if diff := cmp.Diff(want, e); diff != "" || steps[0].Action != "element_click" {
		t.Errorf("action %s, element (-want +got):\n%s", steps[0].Action, diff)
	}
}

// TestReplayRecordingRefusals: bad fields are INVALID_ARGUMENT naming them, and another principal's recording
// is NOT_FOUND (an admin may replay it), nothing replayed.
func TestReplayRecordingRefusals(t *testing.T) {
	a := startFakeAgent(t)
	cfg := testConfig(config.Guest{Name: "g1", Endpoint: a.endpoint()})
	cfg.Recording = config.Recording{Principals: []string{"agent"}, Dir: t.TempDir()}
	// The broker's redaction as far as a click goes: the request's JSON form.
	tb := newTestBroker(t, cfg, func(o *Options) {
		o.Redact = func(m proto.Message) *structpb.Struct {
			b, _ := protojson.Marshal(m)
			st := &structpb.Struct{}
			_ = protojson.Unmarshal(b, st)
			return st
		}
	})
	sid := tb.session(t, "agent", "g1")
	if _, err := tb.Act(tb.as("agent"), &brokerv1.ActRequest{SessionId: sid, Request: click(3, 4, agentv1.MouseButton_MOUSE_BUTTON_LEFT)}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.DeleteSession(tb.as("agent"), sid); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(cfg.Recording.Dir)
	if len(entries) != 1 {
		t.Fatalf("%d recordings", len(entries))
	}
	id := entries[0].Name()
	_, err := tb.ReplayRecording(tb.as("agent"), &brokerv1.ReplayRecordingRequest{RecordingId: "../etc", Guest: ""})
	if reason(err) != "INVALID_ARGUMENT" || !strings.Contains(err.Error(), "recording_id") || !strings.Contains(err.Error(), "guest") {
		t.Errorf("bad fields: %v", err)
	}
	before := len(a.received())
	if _, err := tb.ReplayRecording(tb.as("other"), &brokerv1.ReplayRecordingRequest{RecordingId: id, Guest: "g1"}); reason(err) != "NOT_FOUND" {
		t.Errorf("another principal's recording: %v, want NOT_FOUND", err)
	}
	if n := len(a.received()); n != before {
		t.Errorf("%d acts sent by a refused replay", n-before)
	}
	resp, err := tb.ReplayRecording(tb.as("root"), &brokerv1.ReplayRecordingRequest{RecordingId: id, Guest: "g1"})
	if err != nil || len(resp.GetSteps()) != 1 || resp.GetSteps()[0].GetStatus() != brokerv1.ReplayStatus_REPLAY_STATUS_DONE_BY_COORDINATES {
		t.Fatalf("admin replay: %v, %v", resp, err)
	}
	// The replay's acts: its click, then its session's release_all at the close.
	got := a.received()[before:]
	if len(got) != 2 || got[0].GetClick().GetAt().GetX() != 3 || got[0].GetClick().GetAt().GetY() != 4 || got[0].GetOwner() != resp.GetSessionId() {
		t.Errorf("replayed %v, want the click at 3,4 in the replay's session", got)
	}
}
