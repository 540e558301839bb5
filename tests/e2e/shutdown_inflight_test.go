package e2e

import (
	"context"
	"syscall"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/tests/internal/agenttest"
)

// TestShutdownDuringHoldKey stops the agent with SIGTERM while an RPC holds a key: the agent exits within its
// shutdown grace (not when the hold would have ended) and the key is up again on the X server.
func TestShutdownDuringHoldKey(t *testing.T) {
	a := agenttest.Start(t, agenttest.Options{ExtraArgs: []string{"-shutdown-grace", "1s"}})
	act := agentv1.NewActServiceClient(a.DialUnix(t))
	done := make(chan error, 1)
	go func() {
		_, err := act.Act(context.Background(), &agentv1.ActRequest{Owner: "holder",
			Action: &agentv1.ActRequest_HoldKey{HoldKey: &agentv1.HoldKey{Combo: "shift", DurationMs: 30000}}})
		done <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for len(down(t, a.Desktop).Keys) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("hold_key never pressed the key")
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	if !a.Signal(syscall.SIGTERM, 15*time.Second) {
		t.Fatal("agent did not exit within 15s of SIGTERM")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("agent took %v to exit with a 1s shutdown grace", took)
	}
	if code := a.ExitCode(); code != 0 {
		t.Errorf("agent exit code %d, want 0", code)
	}
	if d := down(t, a.Desktop); !d.Empty() {
		t.Errorf("still down after agent shutdown: %v", d)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Error("hold_key cut by shutdown reported success")
		}
	case <-time.After(5 * time.Second):
		t.Error("hold_key call did not end after the agent exited")
	}
}
