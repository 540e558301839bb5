package broker_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/desktop"
	"glovebox.dev/tests/internal/agenttest"
)

// TestGuestInfoFollowsLateDisplay starts the agent before its X server, as a VM boot does: the broker reports
// the guest READY with the screen unavailable, and once the display appears GetGuest shows the screen
// available without a reconnect, and a screenshot through the broker works.
func TestGuestInfoFollowsLateDisplay(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb")
	d := desktop.Start(t, desktop.Options{NoWindowManager: true})
	display := desktop.FreeDisplay(t)
	a := agenttest.Start(t, agenttest.Options{Desktop: d, ExtraArgs: []string{"-display", display}})
	b := startBroker(t, map[string]string{"late": "unix://" + a.Socket})
	g := b.waitGuest(t, "late", brokerv1.GuestState_GUEST_STATE_READY, 30*time.Second)
	if screenState(g) == agentv1.CapabilityState_CAPABILITY_STATE_AVAILABLE {
		t.Fatal("screen available before the display exists")
	}

	xvfb := exec.Command("Xvfb", display, "-screen", "0", "640x480x24", "-nolisten", "tcp")
	if err := xvfb.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { xvfb.Process.Kill(); xvfb.Wait() })

	guests := brokerv1.NewGuestServiceClient(b.Conn)
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := guests.GetGuest(context.Background(), &brokerv1.GetGuestRequest{Name: "late"})
		if err != nil {
			t.Fatal(err)
		}
		if screenState(resp.GetGuest()) == agentv1.CapabilityState_CAPABILITY_STATE_AVAILABLE {
			if resp.GetGuest().GetState() != brokerv1.GuestState_GUEST_STATE_READY {
				t.Fatalf("guest %v after the display appeared, want READY without a reconnect", resp.GetGuest().GetState())
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("broker still reports the screen %v 20s after the display appeared", screenState(resp.GetGuest()))
		}
		time.Sleep(100 * time.Millisecond)
	}
	shot, err := brokerv1.NewComputerServiceClient(b.Conn).CaptureScreenshot(context.Background(), &brokerv1.CaptureScreenshotRequest{
		SessionId: b.session(t, "late"), Request: &agentv1.CaptureScreenshotRequest{}})
	if err != nil {
		t.Fatal(err)
	}
	if w := shot.GetResponse().GetImage().GetWidth(); w != 640 {
		t.Errorf("screenshot width %d, want 640 (the late display)", w)
	}
}

func screenState(g *brokerv1.Guest) agentv1.CapabilityState {
	for _, c := range g.GetAgent().GetCapabilities() {
		if c.GetBackend() == agentv1.Backend_BACKEND_SCREEN {
			return c.GetState()
		}
	}
	return agentv1.CapabilityState_CAPABILITY_STATE_UNSPECIFIED
}
