package broker_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
	"glovebox.dev/tests/internal/xstate"
)

// TestSIGTERMClosesSessions holds a key through the broker, stops the broker with SIGTERM and checks that it
// exits 0, that the key is up again on the X server (seen through a connection of the test's own), that the
// session's close is recorded with BROKER_SHUTDOWN, that the chain verifies and that the socket is gone.
func TestSIGTERMClosesSessions(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb", "openbox")
	a := agenttest.Start(t, agenttest.Options{})
	b := startBroker(t, map[string]string{"vm1": "unix://" + a.Socket})
	s := b.session(t, "vm1")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := brokerv1.NewComputerServiceClient(b.Conn).Act(ctx, &brokerv1.ActRequest{SessionId: s,
		Request: &agentv1.ActRequest{Action: &agentv1.ActRequest_KeyDown{KeyDown: &agentv1.KeyDown{Combo: "shift"}}}}); err != nil {
		t.Fatal(err)
	}
	if d, err := xstate.Query(a.Desktop.Display); err != nil || len(d.Keys) != 1 {
		t.Fatalf("after key_down shift: %v %v", d, err)
	}
	b.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-b.done:
	case <-time.After(15 * time.Second):
		t.Fatal("broker did not exit within 15s of SIGTERM")
	}
	if code := b.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	if d, err := xstate.Query(a.Desktop.Display); err != nil || !d.Empty() {
		t.Errorf("still down after broker shutdown: %v %v", d, err)
	}
	var closed *brokerv1.AuditRecord
	for _, r := range brokertest.AuditRecords(t, b.AuditDir, "vm1") {
		if r.GetSessionId() == s && r.GetRpc() == "/glovebox.broker.v1.SessionService/DeleteSession" {
			closed = r
		}
	}
	if closed == nil || closed.GetArgs().GetFields()["close_reason"].GetStringValue() != brokerv1.CloseReason_CLOSE_REASON_BROKER_SHUTDOWN.String() || closed.GetCode() != "OK" {
		t.Errorf("close record = %v, want BROKER_SHUTDOWN with OK", closed)
	}
	verifyAudit(t, b.AuditDir)
	if _, err := os.Lstat(b.Socket); err == nil {
		t.Errorf("socket %s left behind", b.Socket)
	}
}

// TestSIGTERMDuringMutation stops the broker while acts are in flight (one waiting on the agent longer than
// the drain, the rest queued behind it): the broker exits and every intent has its outcome on disk, the chain
// verifying.
func TestSIGTERMDuringMutation(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb", "openbox")
	a := agenttest.Start(t, agenttest.Options{})
	b := startBroker(t, map[string]string{"vm1": "unix://" + a.Socket})
	const n = 20
	done := make(chan error, n)
	for range n {
		s := b.session(t, "vm1")
		go func() {
			_, err := brokerv1.NewComputerServiceClient(b.Conn).Act(context.Background(), &brokerv1.ActRequest{SessionId: s,
				// hold_key, not wait: a wait is an observation and would not hold the queue.
				Request: &agentv1.ActRequest{Action: &agentv1.ActRequest_HoldKey{HoldKey: &agentv1.HoldKey{Combo: "shift", DurationMs: 20000}}}})
			done <- err
		}()
	}
	time.Sleep(1000 * time.Millisecond)
	start := time.Now()
	b.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-b.done:
	case <-time.After(15 * time.Second):
		t.Fatal("broker did not exit within 15s of SIGTERM")
	}
	t.Logf("exit after %v, code %d", time.Since(start), b.cmd.ProcessState.ExitCode())
	if code := b.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	select {
	case err := <-done:
		t.Logf("act: %v", err)
	case <-time.After(5 * time.Second):
		t.Error("act call did not end")
	}
	recs := brokertest.AuditRecords(t, b.AuditDir, "vm1")
	outcomes := map[uint64]bool{}
	for _, r := range recs {
		if r.GetPhase() == brokerv1.AuditPhase_AUDIT_PHASE_OUTCOME {
			outcomes[r.GetIntentSeq()] = true
		}
	}
	intents := 0
	for _, r := range recs {
		if r.GetPhase() == brokerv1.AuditPhase_AUDIT_PHASE_INTENT {
			intents++
			if !outcomes[r.GetSeq()] {
				t.Errorf("intent %d (%s) has no outcome on disk", r.GetSeq(), r.GetRpc())
			}
		}
	}
	t.Logf("%d intents", intents)
	if intents == 0 {
		t.Error("no intent recorded for the act")
	}
	verifyAudit(t, b.AuditDir)
}

// TestRefusesStrayArguments: an argument that is not a flag (a config path given without -config) is refused
// before anything starts, not ignored while the broker serves with another config.
func TestRefusesStrayArguments(t *testing.T) {
	s := setupBroker(t, nil, nil)
	cmd := exec.Command(brokerBinary(t), "-config", s.cfgPath, "/etc/glovebox/other.json")
	var out agenttest.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
			t.Errorf("exit %v, want code 2", err)
		}
	case <-time.After(5 * time.Second):
		cmd.Process.Signal(syscall.SIGTERM)
		<-exited
		t.Fatalf("broker started despite a stray argument:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "/etc/glovebox/other.json") {
		t.Errorf("error does not name the stray argument:\n%s", out.String())
	}
	if _, err := os.Lstat(s.Socket); err == nil {
		t.Errorf("socket %s left behind", s.Socket)
	}
}
