package broker

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"glovebox.dev/host/internal/config"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// releases returns the owners of the (non-everything) release_all requests the agent received.
func releases(a *fakeAgent) []string {
	var out []string
	for _, r := range a.received() {
		if r.GetReleaseAll() != nil {
			out = append(out, r.GetOwner())
		}
	}
	return out
}

func TestSessionCloseReleases(t *testing.T) {
	tb, a := oneGuest(t)
	ctx := tb.as("agent")
	s1, s2 := tb.session(t, "agent", "g1"), tb.session(t, "agent", "g1")
	got, err := tb.DeleteSession(ctx, s1)
	if err != nil {
		t.Fatal(err)
	}
	if got.GetState() != brokerv1.SessionState_SESSION_STATE_CLOSED || got.GetCloseReason() != brokerv1.CloseReason_CLOSE_REASON_REQUESTED {
		t.Errorf("closed session = %v", got)
	}
	if diff := cmp.Diff([]string{s1}, releases(a)); diff != "" {
		t.Errorf("release_all owners (-want +got):\n%s", diff)
	}
	if _, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: s1, Request: click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT)}); reason(err) != "NOT_FOUND" {
		t.Errorf("act on closed session: %v", err)
	}
	if _, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: s2, Request: click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT)}); err != nil {
		t.Errorf("other session after close: %v", err)
	}
	if _, err := tb.GetSession(tb.as("other"), s2); reason(err) != "PERMISSION_DENIED" {
		t.Errorf("other principal GetSession: %v", err)
	}
}

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestReaper(t *testing.T) {
	a := startFakeAgent(t)
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	tb := newTestBroker(t, testConfig(config.Guest{Name: "g1", Endpoint: a.endpoint()}), func(o *Options) {
		o.Now, o.ReapInterval = clock.now, 10*time.Millisecond
	})
	ctx := tb.as("agent")
	idle, err := tb.CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: "g1", IdleTimeoutSeconds: 10, TtlSeconds: 100})
	if err != nil {
		t.Fatal(err)
	}
	busy, err := tb.CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: "g1", IdleTimeoutSeconds: 20, TtlSeconds: 30})
	if err != nil {
		t.Fatal(err)
	}
	wait := func(id string, want brokerv1.CloseReason) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			s, _ := tb.GetSession(ctx, id)
			if s.GetState() == brokerv1.SessionState_SESSION_STATE_CLOSED {
				if s.GetCloseReason() != want {
					t.Errorf("%s closed with %v, want %v", id, s.GetCloseReason(), want)
				}
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatalf("%s never closed", id)
	}
	for range 3 {
		clock.add(8 * time.Second)
		if _, err := tb.GetCursorPosition(ctx, &brokerv1.GetCursorPositionRequest{SessionId: busy.GetId()}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(30 * time.Millisecond)
	}
	wait(idle.GetId(), brokerv1.CloseReason_CLOSE_REASON_IDLE_TIMEOUT)
	clock.add(8 * time.Second)
	wait(busy.GetId(), brokerv1.CloseReason_CLOSE_REASON_TTL_EXPIRED)
	got := releases(a)
	if len(got) != 2 {
		t.Errorf("release_all owners = %v, want both sessions", got)
	}
}

func TestUnregisterAndShutdown(t *testing.T) {
	a, b := startFakeAgent(t), startFakeAgent(t)
	tb := newTestBroker(t, testConfig(config.Guest{Name: "g1", Endpoint: a.endpoint()}, config.Guest{Name: "g2", Endpoint: b.endpoint()}), nil)
	s1, s2 := tb.session(t, "agent", "g1"), tb.session(t, "agent", "g2")
	if err := tb.UnregisterGuest(tb.as("agent"), "g1"); reason(err) != "POLICY_DENIED" {
		t.Errorf("non-admin unregister: %v", err)
	}
	if err := tb.UnregisterGuest(tb.as("root"), "g1"); err != nil {
		t.Fatal(err)
	}
	s, _ := tb.GetSession(tb.as("agent"), s1)
	if s.GetCloseReason() != brokerv1.CloseReason_CLOSE_REASON_GUEST_GONE {
		t.Errorf("session on unregistered guest: %v", s.GetCloseReason())
	}
	if diff := cmp.Diff([]string{s1}, releases(a)); diff != "" {
		t.Errorf("g1 releases (-want +got):\n%s", diff)
	}
	tb.Close(t.Context())
	s, _ = tb.GetSession(tb.as("agent"), s2)
	if s.GetCloseReason() != brokerv1.CloseReason_CLOSE_REASON_BROKER_SHUTDOWN {
		t.Errorf("session at shutdown: %v", s.GetCloseReason())
	}
	if diff := cmp.Diff([]string{s2}, releases(b)); diff != "" {
		t.Errorf("g2 releases (-want +got):\n%s", diff)
	}
}

func TestListSessionsPaged(t *testing.T) {
	tb, _ := oneGuest(t)
	var mine []string
	for range 5 {
		mine = append(mine, tb.session(t, "agent", "g1"))
	}
	tb.session(t, "other", "g1")
	var got []string
	token := ""
	for {
		page, next, err := tb.ListSessions(tb.as("agent"), &brokerv1.ListSessionsRequest{PageSize: 2, PageToken: token})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range page {
			got = append(got, s.GetId())
		}
		if token = next; token == "" {
			break
		}
	}
	if len(got) != 5 {
		t.Errorf("listed %d sessions, want the caller's 5: %v", len(got), got)
	}
	all, _, _ := tb.ListSessions(tb.as("root"), &brokerv1.ListSessionsRequest{})
	if len(all) != 6 {
		t.Errorf("admin listed %d, want 6", len(all))
	}
}

// TestAgentRestart: a new agent process is handshaken again (everything released) and bumps the broker
// generation, so targets from before are refused.
func TestAgentRestart(t *testing.T) {
	tb, a := oneGuest(t)
	ctx := tb.as("agent")
	s := tb.session(t, "agent", "g1")
	a.restart(t)
	deadline := time.Now().Add(10 * time.Second)
	for {
		g, _ := tb.GetGuest(ctx, "g1")
		if g.GetGeneration() == 2 && g.GetState() == brokerv1.GuestState_GUEST_STATE_READY {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("guest after restart: %v", g)
		}
		time.Sleep(10 * time.Millisecond)
	}
	a.mu.Lock()
	everything := 0
	for _, r := range a.acts {
		if r.GetReleaseAll().GetEverything() {
			everything++
		}
	}
	a.mu.Unlock()
	if everything != 2 {
		t.Errorf("release_all{everything} sent %d times, want 2 (connect, reconnect)", everything)
	}
	old := click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT)
	old.Target = &agentv1.Target{Generation: 1}
	if _, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: old}); reason(err) != "GENERATION_CHANGED" {
		t.Errorf("old generation: %v", err)
	}
	resp, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT)})
	if err != nil || resp.GetResponse().GetTarget().GetGeneration() != 2 {
		t.Errorf("act after restart: %v, %v", resp, err)
	}
}

// gatedAudit is an Auditor that stops the first Append for which stop returns true until proceed is closed.
type gatedAudit struct {
	Auditor
	stop    func(*brokerv1.AuditRecord) bool
	reached chan struct{}
	proceed chan struct{}
	once    sync.Once
}

func (g *gatedAudit) Append(ctx context.Context, rec *brokerv1.AuditRecord) (uint64, error) {
	if g.stop(rec) {
		first := false
		g.once.Do(func() { first = true })
		if first {
			close(g.reached)
			<-g.proceed
		}
	}
	return g.Auditor.Append(ctx, rec)
}

// gateFirstIntent starts a broker with guest g1 on a fake agent, whose audit log stops the first INTENT record
// it is given (closing gate.reached) until gate.proceed is closed.
func gateFirstIntent(t *testing.T) (*testBroker, *fakeAgent, *gatedAudit) {
	a := startFakeAgent(t)
	gate := &gatedAudit{
		stop: func(rec *brokerv1.AuditRecord) bool {
			return rec.GetPhase() == brokerv1.AuditPhase_AUDIT_PHASE_INTENT
		},
		reached: make(chan struct{}), proceed: make(chan struct{}),
	}
	tb := newTestBroker(t, testConfig(config.Guest{Name: "g1", Endpoint: a.endpoint()}), func(o *Options) {
		gate.Auditor = o.Audit
		o.Audit = gate
	})
	return tb, a, gate
}

// A mutation that passed the session check while its session was being closed must not reach the guest
// after the close's release_all: the input it holds would never be released.
func TestSessionCloseDuringMutation(t *testing.T) {
	tb, a, gate := gateFirstIntent(t)
	ctx := tb.as("agent")
	s := tb.session(t, "agent", "g1")
	done := make(chan error, 1)
	go func() {
		_, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: &agentv1.ActRequest{
			Action: &agentv1.ActRequest_MouseDown{MouseDown: &agentv1.MouseDown{At: &agentv1.Point{X: 5, Y: 5}}}}})
		done <- err
	}()
	<-gate.reached // the mouse_down's intent is being written
	if _, err := tb.DeleteSession(ctx, s); err != nil {
		t.Fatal(err)
	}
	close(gate.proceed)
	err := <-done
	if reason(err) != "NOT_FOUND" {
		t.Errorf("mutation of a session closed meanwhile: %v, want NOT_FOUND", err)
	}
	var acts []string
	for _, r := range a.received() {
		acts = append(acts, fmt.Sprintf("%T", r.GetAction()))
	}
	if diff := cmp.Diff([]string{"*agentv1.ActRequest_ReleaseAll"}, acts); diff != "" {
		t.Errorf("acts the agent received (-want +got):\n%s", diff)
	}
	var outcome *brokerv1.AuditRecord
	for _, rec := range tb.audit.records("g1") {
		if rec.GetPhase() == brokerv1.AuditPhase_AUDIT_PHASE_OUTCOME {
			outcome = rec
		}
	}
	if outcome.GetCode() != "NOT_FOUND" || outcome.GetIntentSeq() == 0 {
		t.Errorf("outcome record = %v, want NOT_FOUND with its intent", outcome)
	}
}

// A target frozen before control was taken and given back (the guest's generation bumped) must not be acted
// on afterwards, even when the mutation was already on its way: the human may have changed everything.
func TestControlCycleDuringMutation(t *testing.T) {
	tb, a, gate := gateFirstIntent(t)
	ctx := tb.as("agent")
	s := tb.session(t, "agent", "g1")
	req := click(5, 5, agentv1.MouseButton_MOUSE_BUTTON_LEFT)
	req.Target = windowTarget(0x400001)
	req.Target.Generation = 1
	done := make(chan error, 1)
	go func() {
		_, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: req})
		done <- err
	}()
	<-gate.reached // the click's intent (generation 1) is being written
	if _, err := tb.AcquireControl(tb.as("human"), &brokerv1.AcquireControlRequest{Guest: "g1"}); err != nil {
		t.Fatal(err)
	}
	if gen, err := tb.ReleaseControl(tb.as("human"), &brokerv1.ReleaseControlRequest{Guest: "g1"}); err != nil || gen != 2 {
		t.Fatalf("release = %d, %v", gen, err)
	}
	close(gate.proceed)
	if err := <-done; reason(err) != "GENERATION_CHANGED" {
		t.Errorf("click frozen in generation 1, sent in 2: %v, want GENERATION_CHANGED", err)
	}
	if got := a.received(); len(got) != 0 {
		t.Errorf("agent received %v", got)
	}
}
