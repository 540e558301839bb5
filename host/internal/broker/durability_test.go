package broker

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"glovebox.dev/host/internal/audit"
	"glovebox.dev/host/internal/config"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// steps is an ordered record of what happened, from the auditor, the fake agent and the caller.
type steps struct {
	mu  sync.Mutex
	got []string
}

func (s *steps) add(step string) {
	s.mu.Lock()
	s.got = append(s.got, step)
	s.mu.Unlock()
}

func (s *steps) reset() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	got := s.got
	s.got = nil
	return got
}

// slowAudit is a WrittenAuditor whose Append takes a while to become durable, so that a broker answering
// or sending before a record is durable shows in the order of steps.
type slowAudit struct {
	memAudit
	steps *steps
	delay time.Duration
}

func (a *slowAudit) Append(ctx context.Context, rec *brokerv1.AuditRecord) (uint64, error) {
	time.Sleep(a.delay)
	seq, err := a.memAudit.Append(ctx, rec)
	a.steps.add("durable " + rec.GetPhase().String())
	return seq, err
}

func (a *slowAudit) AppendWritten(ctx context.Context, rec *brokerv1.AuditRecord) (uint64, error) {
	seq, err := a.memAudit.Append(ctx, rec)
	a.steps.add("written " + rec.GetPhase().String())
	return seq, err
}

// TestDurableBeforeAcknowledged: a mutation's intent is durable before the guest gets it and its outcome
// before the caller gets the answer; an observation's record is written (in order, durable with the next
// group commit) before the answer, which does not wait for the disk.
func TestDurableBeforeAcknowledged(t *testing.T) {
	st := &steps{}
	a := startFakeAgent(t)
	sa := &slowAudit{steps: st, delay: 20 * time.Millisecond}
	tb := newTestBroker(t, testConfig(config.Guest{Name: "g1", Endpoint: a.endpoint()}), func(o *Options) { o.Audit = sa })
	a.setOnAct(func(ctx context.Context, r *agentv1.ActRequest) error { st.add("guest act"); return nil })
	a.mu.Lock()
	a.onShot = func(ctx context.Context) error { st.add("guest screenshot"); return nil }
	a.mu.Unlock()
	ctx := tb.as("agent")
	s := tb.session(t, "agent", "g1")
	for _, tc := range []struct {
		name string
		call func() error
		want []string
	}{
		{
			name: "click",
			call: func() error {
				_, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: click(3, 4, agentv1.MouseButton_MOUSE_BUTTON_LEFT)})
				return err
			},
			want: []string{"durable AUDIT_PHASE_INTENT", "guest act", "durable AUDIT_PHASE_OUTCOME", "answered"},
		},
		{
			name: "type",
			call: func() error {
				_, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: typeText("hello")})
				return err
			},
			want: []string{"durable AUDIT_PHASE_INTENT", "guest act", "durable AUDIT_PHASE_OUTCOME", "answered"},
		},
		{
			name: "screenshot",
			call: func() error {
				_, err := tb.CaptureScreenshot(ctx, &brokerv1.CaptureScreenshotRequest{SessionId: s})
				return err
			},
			want: []string{"guest screenshot", "written AUDIT_PHASE_COMPLETE", "answered"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st.reset()
			if err := tc.call(); err != nil {
				t.Fatal(err)
			}
			st.add("answered")
			if diff := cmp.Diff(tc.want, st.reset()); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
		})
	}
}

// TestObservationRecordListed: with the real audit log, an observation's audit_seq names its record, which
// List shows as soon as the answer is back, and the next mutation's records follow it in the chain.
func TestObservationRecordListed(t *testing.T) {
	tb := loadBroker(t, 1, &fsyncStats{})
	log := tb.Broker.audit.(*audit.Log)
	ctx := tb.as("agent")
	s := tb.session(t, "agent", "g0")
	shot, err := tb.CaptureScreenshot(ctx, &brokerv1.CaptureScreenshotRequest{SessionId: s})
	if err != nil {
		t.Fatal(err)
	}
	recs, _, err := log.List("g0", audit.Filter{FromSeq: shot.GetAuditSeq(), ToSeq: shot.GetAuditSeq()}, 1, "")
	if err != nil || len(recs) != 1 {
		t.Fatalf("List of seq %d: %v, %v", shot.GetAuditSeq(), recs, err)
	}
	if got, want := recs[0].GetRpc(), RPCCaptureScreenshot; got != want {
		t.Errorf("record %d is %s, want %s", shot.GetAuditSeq(), got, want)
	}
	act, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT)})
	if err != nil {
		t.Fatal(err)
	}
	if act.GetAuditSeq() <= shot.GetAuditSeq() {
		t.Errorf("click outcome seq %d not after screenshot seq %d", act.GetAuditSeq(), shot.GetAuditSeq())
	}
	if head, _, err := log.Head("g0"); err != nil || head < act.GetAuditSeq() {
		t.Errorf("Head = %d, %v after the click was answered, want >= %d", head, err, act.GetAuditSeq())
	}
}
