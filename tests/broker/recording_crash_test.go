package broker_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// TestRecordingCutByCrashIsSealed kills a real broker with SIGKILL while a recorded session drives pointer
// moves through it, leaves the last step line half written (as a kill during that write would), and starts the
// broker again on the same directories. At start the broker seals the recording as cut: its manifest has every
// step acknowledged before the kill (and at most the one in flight), says one line was dropped, and its hash is
// chained into the guest's log (a Seal record by the broker with cut), so `glovebox audit verify` passes; the
// recording exports and replays: after the replay the pointer is where the last recorded step put it (read
// with xdotool, not from the agent). Before, the recording stayed without a manifest, unverified and refused by
// export's readers and by replay (NOT_FOUND).
func TestRecordingCutByCrashIsSealed(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb", "openbox", "xdotool")
	a := agenttest.Start(t, agenttest.Options{})
	setup := setupBroker(t, map[string]string{"vm1": "unix://" + a.Socket}, func(cfg map[string]any) {
		cfg["recording"] = map[string]any{"guests": []string{"vm1"}, "screenshots": true}
	})
	p := setup.start(t)
	computer := brokerv1.NewComputerServiceClient(p.Conn)
	sid := p.session(t, "vm1")
	var (
		mu    sync.Mutex
		acked []*agentv1.Point
	)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			to := &agentv1.Point{X: int32(50 + i%400), Y: int32(60 + i%300)}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, err := computer.Act(ctx, act(&agentv1.ActRequest{WatchMs: -1, Action: &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{To: to}}}, sid))
			cancel()
			if err != nil {
				return
			}
			mu.Lock()
			acked = append(acked, to)
			mu.Unlock()
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d moves acknowledged in 20 s", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.Kill()
	wg.Wait()
	recDir := filepath.Join(setup.Dir, "recordings")
	id := onlyRecording(t, recDir)
	if _, err := os.Stat(filepath.Join(recDir, id, "manifest.json")); !os.IsNotExist(err) {
		t.Fatalf("manifest after a kill: %v", err)
	}
	torn := `{"index":999,"time":"2026-12-02T01:00:00Z","source":"AGE`
	f, err := os.OpenFile(filepath.Join(recDir, id, "steps.jsonl"), os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(torn)
	f.Close()

	p = setup.start(t)
	var m struct {
		Steps int    `json:"steps"`
		Guest string `json:"guest"`
		Cut   *struct {
			Reason       string `json:"reason"`
			DroppedLines int    `json:"dropped_lines"`
			DroppedBytes int64  `json:"dropped_bytes"`
		} `json:"cut"`
	}
	b, err := os.ReadFile(filepath.Join(recDir, id, "manifest.json"))
	if err != nil {
		t.Fatalf("not sealed at the broker's start: %v", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	n := len(acked)
	last := acked[n-1]
	mu.Unlock()
	if m.Cut == nil || m.Cut.DroppedLines != 1 || m.Cut.DroppedBytes != int64(len(torn)) || m.Guest != "vm1" || m.Steps < n || m.Steps > n+1 {
		t.Errorf("manifest steps %d guest %s cut %+v; want %d or %d steps (acknowledged, and the one in flight), the torn line dropped", m.Steps, m.Guest, m.Cut, n, n+1)
	}
	var seal *brokerv1.AuditRecord
	for _, r := range brokertest.AuditRecords(t, setup.AuditDir, "vm1") {
		if r.GetRpc() == "/glovebox.broker.v1.Recording/Seal" && r.GetArgs().GetFields()["recording_id"].GetStringValue() == id {
			seal = r
		}
	}
	if seal == nil || !seal.GetArgs().GetFields()["cut"].GetBoolValue() || seal.GetSource() != brokerv1.AuditSource_AUDIT_SOURCE_BROKER {
		t.Errorf("seal record %v, want one by the broker with cut", seal)
	}
	verifyAudit(t, setup.AuditDir)

	out := filepath.Join(t.TempDir(), "bundle")
	if code, stdout, stderr := glovebox(t, "", "recording", "export", id, "-dir", recDir, "-o", out, "-no-video"); code != 0 {
		t.Fatalf("export: exit %d: %s%s", code, stdout, stderr)
	}
	// The pointer away from the last recorded point, then the replay puts it back.
	a.Desktop.Command("xdotool", "mousemove", "5", "5").Run()
	code, stdout, stderr := glovebox(t, "", "-broker", "unix://"+setup.Socket, "recording", "replay", id, "-guest", "vm1", "-json")
	if code != 0 {
		t.Fatalf("replay: exit %d: %s%s", code, stdout, stderr)
	}
	var rep struct {
		Steps []struct {
			Status string `json:"status"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("replay -json: %v: %s", err, stdout)
	}
	if len(rep.Steps) != m.Steps {
		t.Errorf("replay reported %d steps, the recording has %d", len(rep.Steps), m.Steps)
	}
	for i, s := range rep.Steps {
		if s.Status != "REPLAY_STATUS_DONE_BY_COORDINATES" {
			t.Errorf("replay step %d: %s", i, s.Status)
			break
		}
	}
	loc, err := a.Desktop.Command("xdotool", "getmouselocation").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := []int32{last.GetX(), last.GetY()}
	if m.Steps == n+1 {
		// The move in flight at the kill was recorded: it is the last.
		want = []int32{int32(50 + n%400), int32(60 + n%300)}
	}
	if !strings.HasPrefix(string(loc), "x:"+strconv.Itoa(int(want[0]))+" y:"+strconv.Itoa(int(want[1]))+" ") {
		t.Errorf("pointer after the replay: %s, want %v", loc, want)
	}
}
