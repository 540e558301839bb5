package broker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// TestReplayOnAnotherGuest records two element clicks on guest vm1 (the GTK test app's button and check box,
// by refs of a window snapshot; the session never lists the apps) and replays the recording with `glovebox
// recording replay -guest vm2` on another guest: its own desktop, agent, accessibility bus and instance of
// the app, under another app id. Both steps are found by their description in vm2's app ("done") and land
// there (vm2's app prints them); vm1's app sees nothing more. Before, the element's app was known only by
// vm1's app id, which names nothing on vm2: the replay stopped at step 0 with "not found".
func TestReplayOnAnotherGuest(t *testing.T) {
	one, two := startRecGuest(t, "recapp"), startRecGuest(t, "recapp")
	if one.appID == two.appID {
		t.Fatalf("both apps are %s", one.appID)
	}
	br := setupBroker(t, map[string]string{"vm1": "unix://" + one.agent.Socket, "vm2": "unix://" + two.agent.Socket}, func(cfg map[string]any) {
		cfg["recording"] = map[string]any{"guests": []string{"vm1"}}
	}).start(t)
	ctx := context.Background()
	computer := brokerv1.NewComputerServiceClient(br.Conn)
	sid := br.session(t, "vm1")
	snap, err := computer.SnapshotWindow(ctx, &brokerv1.SnapshotWindowRequest{SessionId: sid,
		Request: &agentv1.SnapshotWindowRequest{AppId: one.appID, WindowId: one.window}})
	if err != nil {
		t.Fatal(err)
	}
	s := snap.GetResponse().GetSnapshot()
	for _, el := range []*agentv1.Element{findEl(t, s, "push button", "Press me"), findEl(t, s, "check box", "Enable feature")} {
		if _, err := computer.Act(ctx, act(&agentv1.ActRequest{Action: &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{
			Element: &agentv1.ElementRef{SnapshotId: s.GetSnapshotId(), Ref: el.GetRef()}}}}, sid)); err != nil {
			t.Fatalf("element click on vm1: %v", err)
		}
	}
	one.waitLine(t, "button clicked", 5*time.Second)
	one.waitLine(t, "check: on", 5*time.Second)
	if _, err := brokerv1.NewSessionServiceClient(br.Conn).DeleteSession(ctx, &brokerv1.DeleteSessionRequest{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	recDir := filepath.Join(br.Dir, "recordings")
	id := onlyRecording(t, recDir)
	data, err := os.ReadFile(filepath.Join(recDir, id, "steps.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var first struct {
		Element struct {
			AppID string `json:"app_id"`
			App   string `json:"app"`
		} `json:"element"`
	}
	if err := json.Unmarshal(data[:bytes.IndexByte(data, '\n')], &first); err != nil || first.Element.AppID != one.appID || first.Element.App != "recapp" {
		t.Errorf("recorded element %+v (%v), want vm1's app %s named recapp", first.Element, err, one.appID)
	}

	code, stdout, stderr := glovebox(t, "", "-broker", "unix://"+br.Socket, "recording", "replay", id, "-guest", "vm2", "-json")
	if code != 0 {
		t.Fatalf("replay on vm2: exit %d\n%s%s", code, stdout, stderr)
	}
	var rep struct {
		Steps []struct {
			Status string `json:"status"`
			Detail string `json:"detail"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("replay -json: %v: %s", err, stdout)
	}
	if len(rep.Steps) != 2 || rep.Steps[0].Status != "REPLAY_STATUS_DONE" || rep.Steps[1].Status != "REPLAY_STATUS_DONE" {
		t.Errorf("replay on vm2: %+v, want both steps done", rep.Steps)
	}
	two.waitLine(t, "button clicked", 5*time.Second)
	two.waitLine(t, "check: on", 5*time.Second)
	if n := one.count("button clicked"); n != 1 || one.count("check: off") != 0 {
		t.Errorf("vm1's app was acted on by the replay on vm2 (%d clicks)", n)
	}
}
