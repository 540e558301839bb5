package broker

import (
	"strings"
	"testing"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

func phases(recs []*brokerv1.AuditRecord, rpc string) []string {
	var out []string
	for _, r := range recs {
		if r.GetRpc() == rpc {
			out = append(out, strings.TrimPrefix(r.GetPhase().String(), "AUDIT_PHASE_")+":"+r.GetCode())
		}
	}
	return out
}

// TestActBatchRefusedWhole: one action the policy, the session's mode or control refuses refuses the whole
// batch before the guest sees any of it, with one COMPLETE record naming the reason.
func TestActBatchRefusedWhole(t *testing.T) {
	tb, a := oneGuest(t)
	s := tb.session(t, "agent", "g1")
	left, right := agentv1.MouseButton_MOUSE_BUTTON_LEFT, agentv1.MouseButton_MOUSE_BUTTON_RIGHT
	batch := func(session string, acts ...*agentv1.ActRequest) error {
		_, err := tb.ActBatch(tb.as("agent"), &brokerv1.ActBatchRequest{SessionId: session, Request: &agentv1.ActBatchRequest{Actions: acts}})
		return err
	}
	err := batch(s, click(1, 1, left), click(2, 2, right), click(3, 3, left))
	if reason(err) != "CONFIRMATION_REQUIRED" || !strings.Contains(err.Error(), "request.actions[1]") {
		t.Errorf("right click in a batch: %v, want CONFIRMATION_REQUIRED naming request.actions[1]", err)
	}
	foreign := click(1, 1, left)
	foreign.Owner = "someone-else"
	if err := batch(s, click(1, 1, left), foreign); reason(err) != "INVALID_ARGUMENT" || !strings.Contains(err.Error(), "request.actions[1].owner") {
		t.Errorf("foreign owner in a batch: %v, want INVALID_ARGUMENT naming request.actions[1].owner", err)
	}
	if _, err := tb.AcquireControl(tb.as("human"), &brokerv1.AcquireControlRequest{Guest: "g1", Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	if err := batch(s, click(1, 1, left)); reason(err) != "CONTROL_HELD" {
		t.Errorf("batch while control is held: %v, want CONTROL_HELD", err)
	}
	if n := len(a.received()); n != 0 {
		t.Errorf("the guest received %d actions of refused batches", n)
	}
	want := []string{"COMPLETE:FAILED_PRECONDITION", "COMPLETE:INVALID_ARGUMENT", "COMPLETE:FAILED_PRECONDITION"}
	if got := phases(tb.audit.records("g1"), RPCActBatch); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("audit records %v, want %v", got, want)
	}
}

// TestActBatchOneIntent: a batch is one INTENT and one OUTCOME record and one guest call, every action with the
// session as owner, its target frozen, and each result's target carrying the broker's generation.
func TestActBatchOneIntent(t *testing.T) {
	tb, a := oneGuest(t)
	s := tb.session(t, "agent", "g1")
	left := agentv1.MouseButton_MOUSE_BUTTON_LEFT
	onWindow := click(5, 5, left)
	onWindow.Target = &agentv1.Target{Kind: &agentv1.Target_Window{Window: &agentv1.WindowTarget{WindowId: 7}}}
	resp, err := tb.ActBatch(tb.as("agent"), &brokerv1.ActBatchRequest{SessionId: s, Request: &agentv1.ActBatchRequest{
		Actions: []*agentv1.ActRequest{click(1, 1, left), onWindow, typeText("abc")}}})
	if err != nil {
		t.Fatal(err)
	}
	got := a.received()
	if len(got) != 3 {
		t.Fatalf("the guest received %d actions, want 3", len(got))
	}
	gen, agentGen := tb.guests["g1"].generations()
	for i, r := range got {
		if r.GetOwner() != s || r.GetTarget().GetGeneration() != agentGen {
			t.Errorf("action %d sent with owner %q generation %d, want %s and %d", i, r.GetOwner(), r.GetTarget().GetGeneration(), s, agentGen)
		}
	}
	if got[1].GetTarget().GetWindow().GetWindowId() != 7 {
		t.Errorf("action 1 target %v, want window 7", got[1].GetTarget())
	}
	for i, r := range resp.GetResponse().GetResults() {
		if r.GetTarget().GetGeneration() != gen {
			t.Errorf("result %d target %v, want the broker's generation %d", i, r.GetTarget(), gen)
		}
	}
	want := []string{"INTENT:", "OUTCOME:OK"}
	if got := phases(tb.audit.records("g1"), RPCActBatch); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("audit records %v, want %v", got, want)
	}
	if tm := resp.GetTiming(); tm.GetTotalUs() <= 0 || tm.GetGuestUs() <= 0 {
		t.Errorf("broker timing %v, want the guest call and the total", tm)
	}
}

// TestWaitIsAnObservation: a wait runs while a human holds control and in an observe-only session, outside
// the mutation queue, with one COMPLETE record.
func TestWaitIsAnObservation(t *testing.T) {
	tb, _ := oneGuest(t)
	s, watcher := tb.session(t, "agent", "g1"), tb.session(t, "watcher", "g1")
	wait := &agentv1.ActRequest{Action: &agentv1.ActRequest_Wait{Wait: &agentv1.Wait{DurationMs: 1}}}
	if _, err := tb.Act(tb.as("watcher"), &brokerv1.ActRequest{SessionId: watcher, Request: wait}); err != nil {
		t.Errorf("wait in an observe-only session: %v", err)
	}
	if _, err := tb.AcquireControl(tb.as("human"), &brokerv1.AcquireControlRequest{Guest: "g1", Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Act(tb.as("agent"), &brokerv1.ActRequest{SessionId: s, Request: wait}); err != nil {
		t.Errorf("wait while control is held: %v", err)
	}
	for _, r := range tb.audit.records("g1") {
		if r.GetRpc() == RPCAct && r.GetPhase() != brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE {
			t.Errorf("wait audited as %v, want one COMPLETE record", r.GetPhase())
		}
	}
}
