package a11y

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/brokertest"
)

// TestLaunchReport: GetApp with launch through the real broker answers what it did like every mutation: effect
// (VERIFIED when the app reached the bus, UNVERIFIABLE when the process never did), the frozen target naming
// the app with the broker's generation, and the agent's and the broker's timing. The launched process is checked
// in /proc, not through the agent. Before, the answer had no effect, target or timing.
func TestLaunchReport(t *testing.T) {
	testenv.NeedCommands(t, "gtk3-widget-factory", "xterm")
	_, agent := startAgent(t)
	b := brokertest.Start(t, agent)
	conn, err := grpc.NewClient(b.URI, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ctx := ctxT(t, 90*time.Second)
	sess, err := brokerv1.NewSessionServiceClient(conn).CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: b.Guest})
	if err != nil {
		t.Fatal(err)
	}
	g, err := brokerv1.NewGuestServiceClient(conn).GetGuest(ctx, &brokerv1.GetGuestRequest{Name: b.Guest})
	if err != nil {
		t.Fatal(err)
	}
	cc := brokerv1.NewComputerServiceClient(conn)
	launch := func(name string, ms int32) *brokerv1.GetAppResponse {
		t.Helper()
		r, err := cc.GetApp(ctx, &brokerv1.GetAppRequest{SessionId: sess.GetSession().GetId(),
			Request: &agentv1.GetAppRequest{Name: name, Launch: true, LaunchTimeoutMs: ms}})
		if err != nil {
			t.Fatalf("GetApp(%s, launch): %v", name, err)
		}
		if pid := r.GetResponse().GetPid(); pid > 0 {
			t.Cleanup(func() { _ = syscall.Kill(int(pid), syscall.SIGKILL) })
			if _, err := os.Stat("/proc/" + strconv.Itoa(int(pid))); err != nil {
				t.Errorf("%s: pid %d is not a process: %v", name, pid, err)
			}
		}
		if r.GetTiming().GetIntentAuditUs() <= 0 || r.GetTiming().GetOutcomeAuditUs() <= 0 || r.GetResponse().GetTiming().GetTotalUs() <= 0 {
			t.Errorf("%s: broker timing %v agent timing %v, want both", name, r.GetTiming(), r.GetResponse().GetTiming())
		}
		if r.GetResponse().GetTarget().GetGeneration() != g.GetGuest().GetGeneration() {
			t.Errorf("%s: target %v, want the broker's generation %d", name, r.GetResponse().GetTarget(), g.GetGuest().GetGeneration())
		}
		return r
	}
	r := launch("gtk3-widget-factory", 30000)
	pid := r.GetResponse().GetPid()
	if r.GetResponse().GetEffect() != agentv1.Effect_EFFECT_VERIFIED || r.GetResponse().GetTarget().GetAppId() != appID(pid) {
		t.Errorf("gtk3-widget-factory: effect %v target %v, want VERIFIED on %s", r.GetResponse().GetEffect(), r.GetResponse().GetTarget(), appID(pid))
	}
	r = launch("xterm", 1500)
	if r.GetResponse().GetEffect() != agentv1.Effect_EFFECT_UNVERIFIABLE || r.GetResponse().GetTarget().GetAppId() != "" {
		t.Errorf("xterm (never on the bus): effect %v target %v, want UNVERIFIABLE and no app", r.GetResponse().GetEffect(), r.GetResponse().GetTarget())
	}
}
