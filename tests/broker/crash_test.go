package broker_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// ack is a mutation the broker answered OK.
type ack struct {
	seq     uint64
	session string
	rpc     string
	round   int
}

// TestCrashSafety kills the broker with SIGKILL at random moments while several sessions drive audited
// mutations (act mouse_move and clipboard writes) through it, again and again on the same audit directory.
// After every kill, on the files as the crash left them: every mutation answered OK has its OUTCOME record
// under the audit_seq it was answered with (same session and RPC, OK, pointing at its INTENT record), no
// audit_seq was ever answered twice, and the chain verifies. After every restart the chain verifies again
// (the broker recovered the torn tail, if any, and continued the chain).
func TestCrashSafety(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb", "openbox")
	const (
		kills   = 22
		workers = 4
		guest   = "vm1"
	)
	a := agenttest.Start(t, agenttest.Options{})
	setup := setupBroker(t, map[string]string{guest: "unix://" + a.Socket}, nil)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	var (
		mu     sync.Mutex
		acked  []ack
		cut    int // calls in flight when the broker died
		starts time.Duration
	)
	for round := range kills + 1 {
		t0 := time.Now()
		p := setup.start(t)
		starts += time.Since(t0)
		if round > 0 {
			verifyAudit(t, setup.AuditDir)
		}
		if round == kills {
			p.Stop()
			break
		}
		cc := brokerv1.NewComputerServiceClient(p.Conn)
		var wg sync.WaitGroup
		for w := range workers {
			s := p.session(t, guest)
			wg.Go(func() {
				for i := 0; ; i++ {
					a := ack{session: s, round: round, rpc: "/glovebox.broker.v1.ComputerService/Act"}
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					var err error
					if i%4 == 3 {
						a.rpc = "/glovebox.broker.v1.ComputerService/WriteClipboard"
						var r *brokerv1.WriteClipboardResponse
						r, err = cc.WriteClipboard(ctx, &brokerv1.WriteClipboardRequest{SessionId: s, Request: &agentv1.WriteClipboardRequest{Text: fmt.Sprintf("round %d worker %d #%d", round, w, i)}})
						a.seq = r.GetAuditSeq()
					} else {
						var r *brokerv1.ActResponse
						to := &agentv1.Point{X: int32(10 + 300*w + i%200), Y: int32(10 + 30*round)}
						// watch_ms -1: many mutations per round, not a 250 ms damage watch after each pointer move.
						r, err = cc.Act(ctx, act(&agentv1.ActRequest{WatchMs: -1, Action: &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{To: to}}}, s))
						a.seq = r.GetAuditSeq()
					}
					cancel()
					mu.Lock()
					if err != nil {
						if status.Code(err) != codes.Unavailable {
							t.Errorf("round %d: %s: %v, want OK or UNAVAILABLE (broker killed)", round, a.rpc, err)
						}
						cut++
						mu.Unlock()
						return
					}
					acked = append(acked, a)
					mu.Unlock()
				}
			})
		}
		time.Sleep(time.Duration(20+rng.IntN(300)) * time.Millisecond)
		p.Kill()
		wg.Wait()

		checkAcked(t, brokertest.AuditRecords(t, setup.AuditDir, guest), acked)
		verifyAudit(t, setup.AuditDir)
		if t.Failed() {
			t.Fatalf("round %d failed", round)
		}
	}
	rounds := map[int]int{}
	for _, a := range acked {
		rounds[a.round]++
	}
	idle := 0
	for r := range kills {
		if rounds[r] == 0 {
			idle++
		}
	}
	if idle > kills/4 {
		t.Errorf("%d of %d rounds acknowledged no mutation before the kill: the test did not load the broker", idle, kills)
	}
	t.Logf("%d kills, %d mutations acknowledged, %d calls cut by a kill, %v per broker start", kills, len(acked), cut, starts/(kills+1))
}

// checkAcked checks every acknowledged mutation against the records on disk.
func checkAcked(t *testing.T, recs []*brokerv1.AuditRecord, acked []ack) {
	t.Helper()
	bySeq := map[uint64]*brokerv1.AuditRecord{}
	for _, r := range recs {
		bySeq[r.GetSeq()] = r
	}
	seen := map[uint64]ack{}
	for _, a := range acked {
		if prev, dup := seen[a.seq]; dup {
			t.Errorf("audit_seq %d acknowledged twice: %+v and %+v", a.seq, prev, a)
			continue
		}
		seen[a.seq] = a
		r := bySeq[a.seq]
		if r == nil {
			t.Errorf("acknowledged %s of round %d (audit_seq %d) is not in the log", a.rpc, a.round, a.seq)
			continue
		}
		if r.GetPhase() != brokerv1.AuditPhase_AUDIT_PHASE_OUTCOME || r.GetSessionId() != a.session || r.GetRpc() != a.rpc || r.GetCode() != "OK" {
			t.Errorf("audit_seq %d: record %v %s %s %s, want the OK OUTCOME of %s by %s", a.seq, r.GetPhase(), r.GetRpc(), r.GetSessionId(), r.GetCode(), a.rpc, a.session)
			continue
		}
		in := bySeq[r.GetIntentSeq()]
		if in.GetPhase() != brokerv1.AuditPhase_AUDIT_PHASE_INTENT || in.GetSessionId() != a.session || r.GetIntentSeq() >= a.seq {
			t.Errorf("audit_seq %d: intent_seq %d is %v of %s", a.seq, r.GetIntentSeq(), in.GetPhase(), in.GetSessionId())
		}
	}
}
