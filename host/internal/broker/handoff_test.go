package broker

import (
	"context"
	"strings"
	"testing"
	"time"

	"glovebox.dev/host/internal/config"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// collect watches a session's events into a channel until the test ends.
func collect(t *testing.T, tb *testBroker, ctx context.Context, sid string, from uint64) <-chan *brokerv1.SessionEvent {
	t.Helper()
	out := make(chan *brokerv1.SessionEvent, 64)
	wctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	go func() {
		defer close(out)
		tb.WatchSessionEvents(wctx, &brokerv1.WatchSessionEventsRequest{SessionId: sid, FromSeq: from}, func(ev *brokerv1.SessionEvent) error {
			out <- ev
			return nil
		})
	}()
	return out
}

func nextEvent(t *testing.T, ch <-chan *brokerv1.SessionEvent, what string) *brokerv1.SessionEvent {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatalf("event stream ended before %s", what)
		}
		return ev
	case <-time.After(5 * time.Second):
		t.Fatalf("no %s event within 5s", what)
	}
	return nil
}

// TestHelpAndEvents: a help request taken and answered reaches its session as HelpTaken and HelpAnswered with
// the note, beside the control events every session of the guest gets, in order and numbered; a session that
// closes ends its stream with SessionClosing and its pending requests are cancelled.
func TestHelpAndEvents(t *testing.T) {
	a := startFakeAgent(t)
	tb := newTestBroker(t, testConfig(config.Guest{Name: "g1", Endpoint: a.endpoint()}), nil)
	agent, human := tb.as("agent"), tb.as("human")
	sid, other := tb.session(t, "agent", "g1"), tb.session(t, "other", "g1")
	events, otherEvents := collect(t, tb, agent, sid, 0), collect(t, tb, tb.as("other"), other, 0)
	h, err := tb.RequestHelp(agent, &brokerv1.RequestHelpRequest{SessionId: sid, Reason: "a captcha", Instructions: "solve it"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.AcquireControl(human, &brokerv1.AcquireControlRequest{Guest: "g1", Reason: "helping", HelpId: h.GetId()}); err != nil {
		t.Fatal(err)
	}
	gen, err := tb.ReleaseControl(human, &brokerv1.ReleaseControlRequest{Guest: "g1", Note: "done"})
	if err != nil {
		t.Fatal(err)
	}
	acq := nextEvent(t, events, "control acquired")
	if acq.GetControlAcquired().GetHolder() != "human" || acq.GetSeq() != 1 {
		t.Fatalf("first event %v, want seq 1 control acquired by human", acq)
	}
	if ev := nextEvent(t, events, "help taken"); ev.GetHelpTaken().GetHelpId() != h.GetId() || ev.GetSeq() != 2 {
		t.Fatalf("second event %v, want help taken", ev)
	}
	if ev := nextEvent(t, events, "control released"); ev.GetControlReleased().GetGeneration() != gen ||
		ev.GetControlReleased().GetCause() != brokerv1.ControlEndCause_CONTROL_END_CAUSE_RELEASED {
		t.Fatalf("third event %v, want control released at generation %d", ev, gen)
	}
	if ev := nextEvent(t, events, "help answered"); ev.GetHelpAnswered().GetNote() != "done" || ev.GetHelpAnswered().GetGeneration() != gen {
		t.Fatalf("fourth event %v, want help answered with the note", ev)
	}
	// The other session got the control events, not the help ones.
	if ev := nextEvent(t, otherEvents, "control acquired"); ev.GetControlAcquired() == nil {
		t.Fatalf("other session's first event %v", ev)
	}
	if ev := nextEvent(t, otherEvents, "control released"); ev.GetControlReleased() == nil {
		t.Fatalf("other session's second event %v", ev)
	}
	list, err := tb.ListHelpRequests(human, &brokerv1.ListHelpRequestsRequest{Guest: "g1", IncludeDone: true})
	if err != nil || len(list) != 1 || list[0].GetState() != brokerv1.HelpState_HELP_STATE_ANSWERED || list[0].GetNote() != "done" {
		t.Fatalf("help requests %v (%v), want the one answered with its note", list, err)
	}

	// A pending request is cancelled when its session closes; the stream ends with SessionClosing.
	h2, err := tb.RequestHelp(agent, &brokerv1.RequestHelpRequest{SessionId: sid, Reason: "again"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.DeleteSession(agent, sid); err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, events, "session closing"); ev.GetSessionClosing().GetReason() != brokerv1.CloseReason_CLOSE_REASON_REQUESTED {
		t.Fatalf("event %v, want session closing", ev)
	}
	if _, ok := <-events; ok {
		t.Fatal("the stream went on after SessionClosing")
	}
	list, _ = tb.ListHelpRequests(human, &brokerv1.ListHelpRequestsRequest{Guest: "g1", IncludeDone: true})
	for _, x := range list {
		if x.GetId() == h2.GetId() && x.GetState() != brokerv1.HelpState_HELP_STATE_CANCELLED {
			t.Fatalf("closed session's request is %v, want cancelled", x.GetState())
		}
	}
}

// TestHelpRefusals: bad sizes name their field; taking control for a request that does not exist is
// NOT_FOUND and takes nothing; a principal without the control right sees only its own requests.
func TestHelpRefusals(t *testing.T) {
	a := startFakeAgent(t)
	tb := newTestBroker(t, testConfig(config.Guest{Name: "g1", Endpoint: a.endpoint()}), nil)
	agent := tb.as("agent")
	sid := tb.session(t, "agent", "g1")
	for _, tc := range []struct {
		r     *brokerv1.RequestHelpRequest
		field string
	}{
		{&brokerv1.RequestHelpRequest{SessionId: sid}, "reason"},
		{&brokerv1.RequestHelpRequest{SessionId: sid, Reason: strings.Repeat("x", MaxHelpReasonBytes+1)}, "reason"},
		{&brokerv1.RequestHelpRequest{SessionId: sid, Reason: "r", Instructions: strings.Repeat("x", MaxHelpInstructionsBytes+1)}, "instructions"},
		{&brokerv1.RequestHelpRequest{SessionId: sid, Reason: "\xff"}, "reason"},
	} {
		if _, err := tb.RequestHelp(agent, tc.r); reason(err) != "INVALID_ARGUMENT" || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("RequestHelp(%.40v): %v, want INVALID_ARGUMENT naming %s", tc.r, err, tc.field)
		}
	}
	for range MaxPendingHelpPerSession {
		if _, err := tb.RequestHelp(agent, &brokerv1.RequestHelpRequest{SessionId: sid, Reason: "r"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tb.RequestHelp(agent, &brokerv1.RequestHelpRequest{SessionId: sid, Reason: "r"}); reason(err) != "RESOURCE_EXHAUSTED" {
		t.Fatalf("a ninth pending request: %v, want RESOURCE_EXHAUSTED", err)
	}
	if _, err := tb.AcquireControl(tb.as("human"), &brokerv1.AcquireControlRequest{Guest: "g1", HelpId: "h-nope"}); reason(err) != "NOT_FOUND" {
		t.Fatalf("AcquireControl for an unknown help id: %v, want NOT_FOUND", err)
	}
	if c, _ := tb.GetControl(tb.as("human"), "g1"); c.GetHeld() {
		t.Fatal("control was taken for an unknown help request")
	}
	if list, _ := tb.ListHelpRequests(tb.as("other"), &brokerv1.ListHelpRequestsRequest{Guest: "g1"}); len(list) != 0 {
		t.Fatalf("another principal without the control right sees %d requests, want 0", len(list))
	}
	if _, err := tb.ReleaseControl(tb.as("human"), &brokerv1.ReleaseControlRequest{Guest: "g1", Note: strings.Repeat("n", MaxHelpNoteBytes+1)}); reason(err) != "INVALID_ARGUMENT" {
		t.Fatalf("a too long note: %v, want INVALID_ARGUMENT", err)
	}
}

// TestLeaseIdleTimeout: a lease without the holder's input for control.idle_timeout ends on its own: the
// generation moves on, sessions hear it with cause IDLE_TIMEOUT, and the audit log records the broker doing
// it; human input keeps it alive.
func TestLeaseIdleTimeout(t *testing.T) {
	a := startFakeAgent(t)
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	cfg := testConfig(config.Guest{Name: "g1", Endpoint: a.endpoint()})
	cfg.Control.IdleTimeout = config.Duration(time.Minute)
	// The reaper never runs on its own here: the test calls expireLeases after moving the clock.
	tb := newTestBroker(t, cfg, func(o *Options) { o.Now, o.ReapInterval = clock.now, time.Hour })
	sid := tb.session(t, "agent", "g1")
	events := collect(t, tb, tb.as("agent"), sid, 0)
	if _, err := tb.AcquireControl(tb.as("human"), &brokerv1.AcquireControlRequest{Guest: "g1", Reason: "r"}); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, events, "control acquired")
	human := &cfg.Principals[3]
	// Input at 50 s keeps the lease past 60 s from its start.
	clock.add(50 * time.Second)
	if _, err := tb.HumanAct(context.Background(), human, "g1", &agentv1.ActRequest{Action: &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{To: &agentv1.Point{X: 1, Y: 1}}}}); err != nil {
		t.Fatal(err)
	}
	clock.add(50 * time.Second)
	tb.expireLeases()
	if c, _ := tb.GetControl(tb.as("human"), "g1"); !c.GetHeld() {
		t.Fatal("the lease ended although its holder sent input 50s ago")
	}
	clock.add(20 * time.Second)
	tb.expireLeases()
	ev := nextEvent(t, events, "control released")
	if ev.GetControlReleased().GetCause() != brokerv1.ControlEndCause_CONTROL_END_CAUSE_IDLE_TIMEOUT || ev.GetControlReleased().GetBy() != brokerPrincipal {
		t.Fatalf("event %v, want released by the broker for idle timeout", ev)
	}
	found := false
	for _, r := range tb.audit.records("g1") {
		if r.GetRpc() == rpcReleaseControl && r.GetSource() == brokerv1.AuditSource_AUDIT_SOURCE_BROKER && r.GetPrincipal() == brokerPrincipal {
			found = true
		}
	}
	if !found {
		t.Fatal("no audit record of the broker ending the lease")
	}
	if _, err := tb.Act(tb.as("agent"), &brokerv1.ActRequest{SessionId: sid, Request: click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT)}); err != nil {
		t.Fatalf("a session's act after the lease timed out: %v", err)
	}
}

// TestHideScreenWhileHeld: with the policy, a session's observations are CONTROL_HELD while a human holds
// the guest, and allowed again after; the console's own capture still sees.
func TestHideScreenWhileHeld(t *testing.T) {
	a := startFakeAgent(t)
	cfg := testConfig(config.Guest{Name: "g1", Endpoint: a.endpoint(), HideScreenWhileHeld: true})
	tb := newTestBroker(t, cfg, nil)
	sid := tb.session(t, "agent", "g1")
	shot := func() error {
		_, err := tb.CaptureScreenshot(tb.as("agent"), &brokerv1.CaptureScreenshotRequest{SessionId: sid})
		return err
	}
	if err := shot(); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.AcquireControl(tb.as("human"), &brokerv1.AcquireControlRequest{Guest: "g1", Reason: "password"}); err != nil {
		t.Fatal(err)
	}
	if err := shot(); reason(err) != "CONTROL_HELD" {
		t.Fatalf("screenshot while held: %v, want CONTROL_HELD", err)
	}
	if _, err := tb.ConsoleCapture(context.Background(), &cfg.Principals[3], "g1", nil); err != nil {
		t.Fatalf("the console's capture while held: %v", err)
	}
	if _, err := tb.ReleaseControl(tb.as("human"), &brokerv1.ReleaseControlRequest{Guest: "g1"}); err != nil {
		t.Fatal(err)
	}
	if err := shot(); err != nil {
		t.Fatalf("screenshot after release: %v", err)
	}
}

// TestHumanActNeedsLease: a person's input without the lease is CONTROL_HELD and reaches nothing; with it,
// it lands with the human owner and a HUMAN audit record while sessions stay refused.
func TestHumanActNeedsLease(t *testing.T) {
	a := startFakeAgent(t)
	cfg := testConfig(config.Guest{Name: "g1", Endpoint: a.endpoint()})
	tb := newTestBroker(t, cfg, nil)
	human := &cfg.Principals[3]
	act := typeText("hello")
	if _, err := tb.HumanAct(context.Background(), human, "g1", act); reason(err) != "CONTROL_HELD" {
		t.Fatalf("input without the lease: %v, want CONTROL_HELD", err)
	}
	before := len(a.received())
	if _, err := tb.AcquireControl(tb.as("human"), &brokerv1.AcquireControlRequest{Guest: "g1", Reason: "r"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.HumanAct(context.Background(), human, "g1", act); err != nil {
		t.Fatal(err)
	}
	got := a.received()
	if len(got) != before+1 || got[len(got)-1].GetOwner() != HumanOwner("human") {
		t.Fatalf("agent received %d acts (last owner %q), want one more from %s", len(got), got[len(got)-1].GetOwner(), HumanOwner("human"))
	}
	sid := tb.session(t, "agent", "g1")
	if _, err := tb.Act(tb.as("agent"), &brokerv1.ActRequest{SessionId: sid, Request: typeText("x")}); reason(err) != "CONTROL_HELD" {
		t.Fatalf("session act while the person holds control: %v", err)
	}
	var human2 *brokerv1.AuditRecord
	for _, r := range tb.audit.records("g1") {
		if r.GetRpc() == RPCConsoleInput && r.GetPhase() == brokerv1.AuditPhase_AUDIT_PHASE_OUTCOME {
			human2 = r
		}
	}
	if human2 == nil || human2.GetSource() != brokerv1.AuditSource_AUDIT_SOURCE_HUMAN || human2.GetPrincipal() != "human" {
		t.Fatalf("human input outcome record %v, want source HUMAN principal human", human2)
	}
	if strings.Contains(human2.GetArgs().String(), "hello") {
		t.Fatal("the audit record holds the typed text")
	}
}
