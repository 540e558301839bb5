package a11y

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/a11ybus"
	"glovebox.dev/shared/testenv/desktop"
	"glovebox.dev/tests/internal/agenttest"
)

// TestRootWindowBus: the X root window's AT_SPI_BUS names one accessibility bus and the agent's session bus
// (org.a11y.Bus) another. GTK takes the root window's, and so must the agent: a GTK app started on the agent's session is listed,
// one forced onto the session's bus (AT_SPI_BUS_ADDRESS) is not; until an app has appeared on its bus, GetInfo
// says accessibility is DEGRADED and why, then AVAILABLE.
func TestRootWindowBus(t *testing.T) {
	testenv.NeedCommands(t, python)
	d := desktop.Start(t, desktop.Options{})
	own := a11ybus.Start(t, d)
	sessionBus, rootBus := own.BusAddress(t), own.StartBus(t)
	a11ybus.SetRootBus(t, d, rootBus)
	agent := agenttest.Start(t, agenttest.Options{Desktop: d, Env: []string{"DBUS_SESSION_BUS_ADDRESS=" + own.Address}})
	conn := agent.DialUnix(t)
	info := agentv1.NewAgentServiceClient(conn)
	ax := agentv1.NewAccessibilityServiceClient(conn)
	capability := func() *agentv1.Capability {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		r, err := info.GetInfo(ctx, &agentv1.GetInfoRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range r.GetCapabilities() {
			if c.GetBackend() == agentv1.Backend_BACKEND_ACCESSIBILITY {
				return c
			}
		}
		t.Fatal("GetInfo has no accessibility capability")
		return nil
	}
	if c := capability(); c.GetState() != agentv1.CapabilityState_CAPABILITY_STATE_DEGRADED || !strings.Contains(c.GetReason(), "no application") {
		t.Errorf("before any app: accessibility %v %q, want DEGRADED saying no application appeared", c.GetState(), c.GetReason())
	}

	app := filepath.Join(agenttest.RepoRoot(t), "guest/internal/atspi/testdata/a11yapp.py")
	// One app is told the session's bus, the other finds the bus as GTK does: the root window's.
	c := own.Command(python, app, "offbus")
	c.Env = append(c.Env, "AT_SPI_BUS_ADDRESS="+sessionBus)
	offBus := startCmd(t, own, c)
	offBus.waitLine(t, "ready", 20*time.Second)
	onBus := start(t, own, python, app, "onbus")
	onBus.waitLine(t, "ready", 20*time.Second)
	list := func(ctx context.Context) ([]*agentv1.App, error) {
		r, err := ax.ListApps(ctx, &agentv1.ListAppsRequest{})
		return r.GetApps(), err
	}
	waitOnBus(t, appID(onBus.pid), list)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	apps, err := list(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range apps {
		if a.GetAppId() == appID(offBus.pid) {
			t.Errorf("the app on the session's bus is listed: the agent reads another bus than the root window's")
		}
	}
	if c := capability(); c.GetState() != agentv1.CapabilityState_CAPABILITY_STATE_AVAILABLE {
		t.Errorf("with an app on the bus: accessibility %v %q, want AVAILABLE", c.GetState(), c.GetReason())
	}
}
