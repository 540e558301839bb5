package broker

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	"glovebox.dev/host/internal/config"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
)

func oneGuest(t *testing.T) (*testBroker, *fakeAgent) {
	a := startFakeAgent(t)
	tb := newTestBroker(t, testConfig(config.Guest{Name: "g1", Endpoint: a.endpoint()}), nil)
	return tb, a
}

func TestHandshakeReleasesEverything(t *testing.T) {
	_, a := oneGuest(t)
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.acts) == 0 || !a.acts[0].GetReleaseAll().GetEverything() {
		t.Fatalf("first act on connect = %v, want release_all{everything}", a.acts)
	}
}

// TestFreezing: each session acts on its own default; an explicit target wins; the agent gets its own
// generation in the target so it re-checks it.
func TestFreezing(t *testing.T) {
	tb, a := oneGuest(t)
	ctx := tb.as("agent")
	s1, s2, s3 := tb.session(t, "agent", "g1"), tb.session(t, "agent", "g1"), tb.session(t, "agent", "g1")
	for s, w := range map[string]uint32{s1: 0x400001, s2: 0x400002} {
		if _, err := tb.SetSessionDefaults(ctx, &brokerv1.SetSessionDefaultsRequest{SessionId: s, DefaultTarget: windowTarget(w)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tb.SetSessionDefaults(ctx, &brokerv1.SetSessionDefaultsRequest{SessionId: s3, DefaultTarget: windowTarget(0x999)}); reason(err) != "TARGET_GONE" {
		t.Errorf("default to a missing window: %v, want TARGET_GONE", err)
	}
	explicit := typeText("hi")
	explicit.Target = windowTarget(0x400002)
	tests := []struct {
		session    string
		req        *agentv1.ActRequest
		wantWindow uint32
		wantSource agentv1.TargetSource
	}{
		{s1, typeText("a"), 0x400001, agentv1.TargetSource_TARGET_SOURCE_SESSION},
		{s2, typeText("b"), 0x400002, agentv1.TargetSource_TARGET_SOURCE_SESSION},
		{s1, explicit, 0x400002, agentv1.TargetSource_TARGET_SOURCE_EXPLICIT},
		{s3, typeText("c"), 0, agentv1.TargetSource_TARGET_SOURCE_ACTIVE},
	}
	for i, tc := range tests {
		resp, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: tc.session, Request: tc.req})
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		got := a.received()[i]
		if got.GetOwner() != tc.session || got.GetTarget().GetWindow().GetWindowId() != tc.wantWindow || got.GetTarget().GetGeneration() != 1000 {
			t.Errorf("%d: agent got owner %s target %v, want owner %s window %#x generation 1000", i, got.GetOwner(), got.GetTarget(), tc.session, tc.wantWindow)
		}
		want := &agentv1.FrozenTarget{WindowId: tc.wantWindow, Source: tc.wantSource, Generation: 1}
		if tc.wantWindow == 0 {
			want.DisplayId = ":0"
		}
		if diff := cmp.Diff(want, resp.GetResponse().GetTarget(), protocmp.Transform()); diff != "" {
			t.Errorf("%d: frozen target (-want +got):\n%s", i, diff)
		}
		if resp.GetAuditSeq() == 0 {
			t.Errorf("%d: no audit seq", i)
		}
	}
	// Intent then outcome for each act, both with the frozen target.
	recs := tb.audit.records("g1")
	var phases []brokerv1.AuditPhase
	for _, r := range recs {
		if r.GetRpc() == RPCAct {
			phases = append(phases, r.GetPhase())
		}
	}
	if len(phases) != 8 || phases[0] != brokerv1.AuditPhase_AUDIT_PHASE_INTENT || phases[1] != brokerv1.AuditPhase_AUDIT_PHASE_OUTCOME {
		t.Errorf("act audit phases = %v, want intent/outcome x4", phases)
	}
}

// TestControl: while a human holds the guest every mutation is refused and audited, observations are served;
// release bumps the generation and refuses the old one.
func TestControl(t *testing.T) {
	tb, a := oneGuest(t)
	ctx := tb.as("agent")
	s := tb.session(t, "agent", "g1")
	if _, err := tb.AcquireControl(ctx, &brokerv1.AcquireControlRequest{Guest: "g1"}); !errors.Is(err, errdefs.ErrPolicyDenied) {
		t.Fatalf("agent acquiring control: %v, want POLICY_DENIED", err)
	}
	if _, err := tb.AcquireControl(tb.as("human"), &brokerv1.AcquireControlRequest{Guest: "g1", Reason: "fixing"}); err != nil {
		t.Fatal(err)
	}
	before := len(a.received())
	const n = 50
	for i := range n {
		var err error
		if i%2 == 0 {
			_, err = tb.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT)})
		} else {
			_, err = tb.WriteClipboard(ctx, &brokerv1.WriteClipboardRequest{SessionId: s, Request: &agentv1.WriteClipboardRequest{Text: "x"}})
		}
		if reason(err) != "CONTROL_HELD" {
			t.Fatalf("mutation %d while held: %v, want CONTROL_HELD", i, err)
		}
	}
	if got := len(a.received()); got != before {
		t.Errorf("agent received %d acts while control was held", got-before)
	}
	if _, err := tb.CaptureScreenshot(ctx, &brokerv1.CaptureScreenshotRequest{SessionId: s}); err != nil {
		t.Errorf("observation while held: %v", err)
	}
	refused := 0
	for _, r := range tb.audit.records("g1") {
		if r.GetReason() == "CONTROL_HELD" && r.GetPhase() == brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE {
			refused++
		}
	}
	if refused != n {
		t.Errorf("audited %d CONTROL_HELD refusals, want %d", refused, n)
	}
	if _, err := tb.ReleaseControl(ctx, &brokerv1.ReleaseControlRequest{Guest: "g1"}); !errors.Is(err, errdefs.ErrPolicyDenied) {
		t.Errorf("non-holder release: %v, want POLICY_DENIED", err)
	}
	gen, err := tb.ReleaseControl(tb.as("human"), &brokerv1.ReleaseControlRequest{Guest: "g1"})
	if err != nil || gen != 2 {
		t.Fatalf("release = %d, %v; want generation 2", gen, err)
	}
	old := click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT)
	old.Target = &agentv1.Target{Generation: 1}
	if _, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: old}); reason(err) != "GENERATION_CHANGED" {
		t.Errorf("old generation after release: %v, want GENERATION_CHANGED", err)
	}
	old.Target.Generation = 2
	if _, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: old}); err != nil {
		t.Errorf("current generation after release: %v", err)
	}
}

func TestPolicyGates(t *testing.T) {
	tb, a := oneGuest(t)
	ctx := tb.as("agent")
	s := tb.session(t, "agent", "g1")
	confirmed := func(r *agentv1.ActRequest) *agentv1.ActRequest { r.Confirm = true; return r }
	tests := []struct {
		name string
		req  *agentv1.ActRequest
		want string
	}{
		{"left click", click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT), ""},
		{"right click", click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_RIGHT), "CONFIRMATION_REQUIRED"},
		{"middle click", click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_MIDDLE), "CONFIRMATION_REQUIRED"},
		{"right click confirmed", confirmed(click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_RIGHT)), ""},
		{"plain text", typeText("hello world, the quick brown fox"), ""},
		{"aws key", typeText("key AKIAIOSFODNN7EXAMPLE"), "CONFIRMATION_REQUIRED"},
		{"private key", typeText("-----BEGIN OPENSSH PRIVATE KEY-----\nabc"), "CONFIRMATION_REQUIRED"},
		{"jwt", typeText("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"), "CONFIRMATION_REQUIRED"},
		{"password assignment", typeText("password=hunter22"), "CONFIRMATION_REQUIRED"},
		{"random token", typeText("token Zx8qP2mW9vL4kR7tY1nB6cJ3"), "CONFIRMATION_REQUIRED"},
		{"secret confirmed", confirmed(typeText("password=hunter22")), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(a.received())
			_, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: tc.req})
			if got := reason(err); (tc.want == "") != (err == nil) || err != nil && got != tc.want {
				t.Fatalf("err = %v (%s), want %q", err, got, tc.want)
			}
			if sent := len(a.received()) - before; (tc.want == "") != (sent == 1) {
				t.Errorf("agent received %d acts", sent)
			}
			if err != nil && strings.Contains(err.Error(), "hunter22") {
				t.Errorf("error message leaks the text: %v", err)
			}
		})
	}
	_, err := tb.WriteClipboard(ctx, &brokerv1.WriteClipboardRequest{SessionId: s, Request: &agentv1.WriteClipboardRequest{Text: "AKIAIOSFODNN7EXAMPLE"}})
	if reason(err) != "CONFIRMATION_REQUIRED" {
		t.Errorf("clipboard secret: %v", err)
	}
	if _, err := tb.WriteClipboard(ctx, &brokerv1.WriteClipboardRequest{SessionId: s, Request: &agentv1.WriteClipboardRequest{Text: "AKIAIOSFODNN7EXAMPLE"}, Confirm: true}); err != nil {
		t.Errorf("confirmed clipboard secret: %v", err)
	}
}

func TestRefusals(t *testing.T) {
	tb, a := oneGuest(t)
	s := tb.session(t, "agent", "g1")
	w := tb.session(t, "watcher", "g1")
	bad := click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT)
	bad.GetClick().Count = 7
	tests := []struct {
		name      string
		principal string
		session   string
		req       *agentv1.ActRequest
		want      string
		field     string
	}{
		{"bad count", "agent", s, bad, "INVALID_ARGUMENT", "request.action.click.count"},
		{"foreign owner", "agent", s, &agentv1.ActRequest{Owner: "s-other", Action: &agentv1.ActRequest_Wait{Wait: &agentv1.Wait{}}}, "INVALID_ARGUMENT", "request.owner"},
		{"observe-only", "watcher", w, click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT), "READ_ONLY_SESSION", ""},
		{"someone else's session", "other", s, click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT), "PERMISSION_DENIED", ""},
		{"unknown session", "agent", "s-nope", click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT), "NOT_FOUND", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(a.received())
			_, err := tb.Act(tb.as(tc.principal), &brokerv1.ActRequest{SessionId: tc.session, Request: tc.req})
			if got := reason(err); got != tc.want {
				t.Fatalf("err = %v (%s), want %s", err, got, tc.want)
			}
			var br *errdefs.BadRequest
			if tc.field != "" && (!errors.As(err, &br) || br.Violations[0].Field != tc.field) {
				t.Errorf("violations %v, want field %s", err, tc.field)
			}
			if len(a.received()) != before {
				t.Errorf("refused request reached the agent")
			}
		})
	}
	var invalid int
	for _, r := range tb.audit.records("g1") {
		if r.GetCode() == "INVALID_ARGUMENT" && r.GetPhase() == brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE {
			invalid++
		}
	}
	if invalid != 2 {
		t.Errorf("audited %d INVALID_ARGUMENT refusals, want 2", invalid)
	}
	if s, err := tb.CreateSession(tb.as("watcher"), &brokerv1.CreateSessionRequest{Guest: "g1", Mode: brokerv1.SessionMode_SESSION_MODE_ACT}); err != nil || s.GetMode() != brokerv1.SessionMode_SESSION_MODE_OBSERVE {
		t.Errorf("observe-only principal got %v, %v", s.GetMode(), err)
	}
}

func TestRateLimit(t *testing.T) {
	a := startFakeAgent(t)
	cfg := testConfig(config.Guest{Name: "g1", Endpoint: a.endpoint()})
	cfg.Principals[0].RatePerSecond, cfg.Principals[0].Burst = 0.001, 3
	tb := newTestBroker(t, cfg, nil)
	s := tb.session(t, "agent", "g1")
	var reasons []string
	for range 5 {
		_, err := tb.Act(tb.as("agent"), &brokerv1.ActRequest{SessionId: s, Request: click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT)})
		reasons = append(reasons, reason(err))
	}
	want := []string{"UNSPECIFIED", "UNSPECIFIED", "UNSPECIFIED", "RESOURCE_EXHAUSTED", "RESOURCE_EXHAUSTED"}
	if diff := cmp.Diff(want, reasons); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
	// Another session has its own bucket.
	s2 := tb.session(t, "agent", "g1")
	if _, err := tb.Act(tb.as("agent"), &brokerv1.ActRequest{SessionId: s2, Request: click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT)}); err != nil {
		t.Errorf("second session: %v", err)
	}
}

// TestFairness: a session with a backlog does not make another wait behind all of it.
func TestFairness(t *testing.T) {
	tb, a := oneGuest(t)
	sa, sb := tb.session(t, "agent", "g1"), tb.session(t, "agent", "g1")
	gate := make(chan struct{})
	var order []string
	var mu sync.Mutex
	a.setOnAct(func(ctx context.Context, r *agentv1.ActRequest) error {
		if r.GetOwner() == sa && r.GetKey().GetRepeat() == 2 {
			<-gate
		}
		mu.Lock()
		order = append(order, r.GetOwner())
		mu.Unlock()
		return nil
	})
	// Keys, not waits: a wait is an observation and never queues.
	keyReq := func(repeat int32) *agentv1.ActRequest {
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_Key{Key: &agentv1.Key{Combo: "a", Repeat: repeat}}}
	}
	var wg sync.WaitGroup
	send := func(s string, n int32) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := tb.as("agent") // a caller per goroutine: the broker records each RPC's session on it
			if _, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: keyReq(n)}); err != nil {
				t.Error(err)
			}
		}()
	}
	g := tb.guests["g1"]
	queued := func(n int) {
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			g.queue.mu.Lock()
			got := len(g.queue.fifos[sa]) + len(g.queue.fifos[sb])
			g.queue.mu.Unlock()
			if got >= n {
				return
			}
			time.Sleep(time.Millisecond)
		}
		t.Fatalf("queue never reached %d", n)
	}
	send(sa, 2) // blocks the guest
	time.Sleep(50 * time.Millisecond)
	for i := range 5 {
		send(sa, 1)
		queued(i + 1)
	}
	send(sb, 1)
	queued(6)
	close(gate)
	wg.Wait()
	pos := -1
	for i, o := range order {
		if o == sb {
			pos = i
		}
	}
	if pos != 2 {
		t.Errorf("session B ran at position %d of %d, want 2 (after A's running and next action)", pos, len(order))
	}
}

// TestGuestHang: a guest that stops answering costs an UNAVAILABLE naming it within the timeout, and the
// broker keeps serving other guests.
func TestGuestHang(t *testing.T) {
	a, b := startFakeAgent(t), startFakeAgent(t)
	cfg := testConfig(config.Guest{Name: "hung", Endpoint: a.endpoint()}, config.Guest{Name: "fine", Endpoint: b.endpoint()})
	cfg.GuestCallTimeout = config.Duration(300 * time.Millisecond)
	tb := newTestBroker(t, cfg, nil)
	hang := make(chan struct{})
	defer close(hang)
	a.setOnAct(func(ctx context.Context, r *agentv1.ActRequest) error { <-hang; return nil })
	a.mu.Lock()
	a.onShot = func(ctx context.Context) error { <-hang; return nil }
	a.mu.Unlock()
	ctx := tb.as("agent")
	s, sf := tb.session(t, "agent", "hung"), tb.session(t, "agent", "fine")
	start := time.Now()
	_, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT)})
	if !errors.Is(err, errdefs.ErrUnavailable) || !strings.Contains(err.Error(), "hung") {
		t.Errorf("act on hung guest: %v, want UNAVAILABLE naming the guest", err)
	}
	if _, err := tb.CaptureScreenshot(ctx, &brokerv1.CaptureScreenshotRequest{SessionId: s}); !errors.Is(err, errdefs.ErrUnavailable) {
		t.Errorf("screenshot on hung guest: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s, want about 2x300ms", d)
	}
	if _, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: sf, Request: click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT)}); err != nil {
		t.Errorf("other guest: %v", err)
	}
	var outcome *brokerv1.AuditRecord
	for _, r := range tb.audit.records("hung") {
		if r.GetPhase() == brokerv1.AuditPhase_AUDIT_PHASE_OUTCOME {
			outcome = r
		}
	}
	if outcome.GetCode() != "UNAVAILABLE" {
		t.Errorf("outcome record %v, want code UNAVAILABLE", outcome)
	}
}

// TestAgentErrorsPassThrough: the agent's own reason reaches the caller.
func TestAgentErrorsPassThrough(t *testing.T) {
	tb, a := oneGuest(t)
	a.setOnAct(func(ctx context.Context, r *agentv1.ActRequest) error {
		return errdefs.ErrTargetGone
	})
	s := tb.session(t, "agent", "g1")
	_, err := tb.Act(tb.as("agent"), &brokerv1.ActRequest{SessionId: s, Request: click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT)})
	if reason(err) != "TARGET_GONE" {
		t.Errorf("err = %v, want TARGET_GONE", err)
	}
}
