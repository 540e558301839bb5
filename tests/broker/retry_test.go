package broker_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// typeInto is an Act typing text into window win with request_id id.
func typeInto(session, id string, win uint32, text string, delayMs int32) *brokerv1.ActRequest {
	return act(&agentv1.ActRequest{RequestId: id, Target: &agentv1.Target{Kind: &agentv1.Target_Window{Window: &agentv1.WindowTarget{WindowId: win}}},
		Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: text, DelayMs: delayMs}}}, session)
}

// waitFile waits until the file's content is want.
func waitFile(t *testing.T, path, want string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got, _ := os.ReadFile(path)
		if string(got) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s = %q, want %q", filepath.Base(path), got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRetryDoneOnce: a request_id binds a request across kill -9 of the broker and of the agent. An xterm's
// shell copies what is typed into a file (the app's own output): a retry with the same id and content after
// each kill is answered from the audit log (replayed, the first attempt's audit_seq) and types nothing; the
// same id with other content is DUPLICATE_REQUEST; a retry of a request cut short by a broker kill is
// INTERRUPTED with outcome=unknown and types nothing. Before the broker owned request_id, the retry after
// the broker restart (a new session, so a new agent owner) typed the line again.
func TestRetryDoneOnce(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb", "openbox", "xterm", "xdotool")
	dir, err := os.MkdirTemp("", "gbr")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "agent.sock")
	extra := []string{"-listen", "unix://" + sock}
	a := agenttest.Start(t, agenttest.Options{ExtraArgs: extra})
	out := filepath.Join(dir, "typed")
	a.Desktop.StartProgram(t, a.Desktop.Command("xterm", "-T", "retry-term", "-geometry", "60x5", "-e", "sh", "-c", "cat > "+out))
	win := a.Desktop.WaitWindow(t, "retry-term", 10*time.Second)
	setup := setupBroker(t, map[string]string{"vm1": "unix://" + sock}, nil)
	ctx := context.Background()

	p := setup.start(t)
	cc := brokerv1.NewComputerServiceClient(p.Conn)
	first, err := cc.Act(ctx, typeInto(p.session(t, "vm1"), "r-1", win, "one\n", 0))
	if err != nil {
		t.Fatal(err)
	}
	waitFile(t, out, "one\n", 10*time.Second)

	retry := func(p *brokerProc, step string) {
		t.Helper()
		cc := brokerv1.NewComputerServiceClient(p.Conn)
		s := p.session(t, "vm1")
		got, err := cc.Act(ctx, typeInto(s, "r-1", win, "one\n", 0))
		if err != nil {
			t.Fatalf("%s: retry: %v", step, err)
		}
		if !got.GetReplayed() || got.GetAuditSeq() != first.GetAuditSeq() || got.GetResponse().GetEffect() != first.GetResponse().GetEffect() {
			t.Errorf("%s: retry answered replayed=%v seq %d effect %v, want replayed, seq %d, effect %v", step, got.GetReplayed(),
				got.GetAuditSeq(), got.GetResponse().GetEffect(), first.GetAuditSeq(), first.GetResponse().GetEffect())
		}
		if _, err := cc.Act(ctx, typeInto(s, "r-1", win, "other\n", 0)); !errors.Is(errgrpc.FromError(err), errdefs.ErrDuplicateRequest) {
			t.Errorf("%s: same id, other content: %v, want DUPLICATE_REQUEST", step, err)
		}
	}

	p.Kill()
	p = setup.start(t)
	retry(p, "after broker kill -9")

	a.Kill()
	os.Remove(sock)
	agenttest.Start(t, agenttest.Options{Desktop: a.Desktop, ExtraArgs: extra})
	p.waitGuest(t, "vm1", brokerv1.GuestState_GUEST_STATE_READY, 15*time.Second)
	retry(p, "after agent kill -9")

	// A new id still acts, and the file shows the retries typed nothing.
	cc = brokerv1.NewComputerServiceClient(p.Conn)
	s := p.session(t, "vm1")
	if _, err := cc.Act(ctx, typeInto(s, "r-2", win, "two\n", 0)); err != nil {
		t.Fatal(err)
	}
	waitFile(t, out, "one\ntwo\n", 10*time.Second)

	// In flight: kill the broker once the slow request's intent is on disk.
	errc := make(chan error, 1)
	go func() {
		_, err := cc.Act(ctx, typeInto(s, "r-3", win, "abcdefghij", 200))
		errc <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !hasIntent(t, setup.AuditDir, "r-3") {
		if time.Now().After(deadline) {
			t.Fatal("no INTENT record for r-3")
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.Kill()
	select {
	case <-errc:
	case <-time.After(10 * time.Second):
		t.Fatal("the in-flight Act did not end when the broker died")
	}
	p = setup.start(t)
	cc = brokerv1.NewComputerServiceClient(p.Conn)
	s = p.session(t, "vm1")
	_, err = cc.Act(ctx, typeInto(s, "r-3", win, "abcdefghij", 200))
	if !errors.Is(errgrpc.FromError(err), errdefs.ErrInterrupted) || errgrpc.Metadata(errgrpc.FromError(err))["outcome"] != "unknown" {
		t.Errorf("retry of a request in flight when the broker died: %v (metadata %v), want INTERRUPTED with outcome=unknown", err, errgrpc.Metadata(errgrpc.FromError(err)))
	}
	if _, err := cc.Act(ctx, typeInto(s, "r-4", win, "\n", 0)); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(10 * time.Second)
	var got []byte
	for {
		got, _ = os.ReadFile(out)
		if strings.Count(string(got), "\n") == 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	rest, ok := strings.CutPrefix(string(got), "one\ntwo\n")
	if !ok || strings.Count(rest, "\n") != 1 || strings.Count(rest, "a") > 1 || !strings.HasPrefix("abcdefghij\n", strings.TrimSuffix(rest, "\n")) {
		t.Errorf("typed file %q: want one\\ntwo\\n then at most one prefix of abcdefghij and a newline", got)
	}
	// The replays are on the record as answers, not actions: no second INTENT for r-1.
	intents := 0
	for _, rec := range brokertest.AuditRecords(t, setup.AuditDir, "vm1") {
		if rec.GetRequestId() == "r-1" && rec.GetPhase() == brokerv1.AuditPhase_AUDIT_PHASE_INTENT {
			intents++
		}
	}
	if intents != 1 {
		t.Errorf("r-1 has %d INTENT records, want 1", intents)
	}
	// Records with request_id, request_hash, response and replay_of verify like any other.
	verifyAudit(t, setup.AuditDir)
}

// hasIntent reports whether the audit log holds an INTENT for request_id id.
func hasIntent(t *testing.T, auditDir, id string) bool {
	for _, rec := range brokertest.AuditRecords(t, auditDir, "vm1") {
		if rec.GetRequestId() == id && rec.GetPhase() == brokerv1.AuditPhase_AUDIT_PHASE_INTENT {
			return true
		}
	}
	return false
}

// TestRetryIsNoSecondAction: with a rate limit of one mutation, a retry of an answered request is replayed,
// not refused RESOURCE_EXHAUSTED, while a new request is; the log holds one INTENT and OUTCOME for it and the
// replay as a COMPLETE record with replay_of and no args. A WriteClipboard retried after another program
// took the clipboard (xclip) does not write it again: xclip still reads the other program's text. Before, the
// retry was rate limited and audited as a second action, and WriteClipboard had no request_id.
func TestRetryIsNoSecondAction(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb", "openbox", "xclip")
	a := agenttest.Start(t, agenttest.Options{})
	setup := setupBroker(t, map[string]string{"vm1": "unix://" + a.Socket}, func(cfg map[string]any) {
		p := cfg["principals"].([]map[string]any)
		p[0]["rate_per_second"], p[0]["burst"] = 0.001, 2
	})
	p := setup.start(t)
	ctx := context.Background()
	cc := brokerv1.NewComputerServiceClient(p.Conn)
	s := p.session(t, "vm1")
	move := func(id string, x int32) *brokerv1.ActRequest {
		return act(&agentv1.ActRequest{RequestId: id, Action: &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{To: &agentv1.Point{X: x, Y: 20}}}}, s)
	}
	first, err := cc.Act(ctx, move("m-1", 20))
	if err != nil {
		t.Fatal(err)
	}
	clip, err := cc.WriteClipboard(ctx, &brokerv1.WriteClipboardRequest{SessionId: s, RequestId: "c-1", Request: &agentv1.WriteClipboardRequest{Text: "from the agent"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		again, err := cc.Act(ctx, move("m-1", 20))
		if err != nil || !again.GetReplayed() || again.GetAuditSeq() != first.GetAuditSeq() {
			t.Fatalf("retry %d with the bucket empty: %v (replayed=%v seq %d), want the first answer replayed", i, err, again.GetReplayed(), again.GetAuditSeq())
		}
	}
	if _, err := cc.Act(ctx, move("m-2", 30)); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("a new request with the bucket empty: %v, want RESOURCE_EXHAUSTED", err)
	}

	other := a.Desktop.Command("xclip", "-selection", "clipboard")
	other.Stdin = strings.NewReader("from another program")
	if err := other.Run(); err != nil {
		t.Fatal(err)
	}
	again, err := cc.WriteClipboard(ctx, &brokerv1.WriteClipboardRequest{SessionId: s, RequestId: "c-1", Request: &agentv1.WriteClipboardRequest{Text: "from the agent"}})
	if err != nil || !again.GetReplayed() || again.GetAuditSeq() != clip.GetAuditSeq() || again.GetResponse().GetLength() != clip.GetResponse().GetLength() {
		t.Errorf("WriteClipboard retry: %v %v, want %v replayed", err, again, clip)
	}
	got, err := a.Desktop.Command("xclip", "-selection", "clipboard", "-o").Output()
	if err != nil || string(got) != "from another program" {
		t.Errorf("clipboard after the retry = %q (%v), want the other program's text: the retry wrote again", got, err)
	}

	var intents, outcomes, replays int
	for _, rec := range brokertest.AuditRecords(t, setup.AuditDir, "vm1") {
		if rec.GetRequestId() != "m-1" {
			continue
		}
		switch {
		case rec.GetPhase() == brokerv1.AuditPhase_AUDIT_PHASE_INTENT:
			intents++
		case rec.GetPhase() == brokerv1.AuditPhase_AUDIT_PHASE_OUTCOME:
			outcomes++
		case rec.GetReplayOf() == first.GetAuditSeq() && len(rec.GetArgs().GetFields()) == 0 && rec.GetCode() == "OK":
			replays++
		default:
			t.Errorf("unexpected record for m-1: %v", rec)
		}
	}
	if intents != 1 || outcomes != 1 || replays != 3 {
		t.Errorf("m-1 records: %d INTENT, %d OUTCOME, %d replays; want 1, 1, 3", intents, outcomes, replays)
	}
}
