package vm_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// benchBootEnv is the number of boots TestBootBench makes; unset, the test is skipped (make bench-boot).
const benchBootEnv = "GLOVEBOX_BENCH_BOOT"

// bootFigures are one boot's times, all from QEMU start (host clock) unless said otherwise.
type bootFigures struct {
	ready      time.Duration // the broker reports the guest READY over virtio-serial
	screenshot time.Duration // the first screenshot through the broker that shows the desktop
	init       time.Duration // the guest's init printed its first marker (the kernel's part)
	initUptime float64       // the guest's own uptime at that marker (s), without QEMU's start and firmware
	load       string        // the host's load averages when the boot ended
}

// TestBootBench boots the test guest $GLOVEBOX_BENCH_BOOT times (with $GLOVEBOX_BENCH_BOOT_VERBOSE set, -v
// shows each boot's console and agent log too), each with a fresh broker over
// virtio-serial, and prints each boot's boot-to-ready, first-screenshot and kernel-to-init times with the
// host's load, then the medians. TCG timings follow the host's load: compare kernel-to-init across runs to
// judge it.
func TestBootBench(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv(benchBootEnv))
	if n <= 0 {
		t.Skipf("set %s=N to boot the test guest N times (make bench-boot)", benchBootEnv)
	}
	needVM(t)
	root := agenttest.RepoRoot(t)
	if out, err := exec.Command(filepath.Join(root, "images/test-guest/build.sh")).CombinedOutput(); err != nil {
		t.Fatalf("images/test-guest/build.sh: %v\n%s", err, out)
	}
	brokertest.Binary(t, "glovebox-broker")
	var all []bootFigures
	for i := range n {
		f := benchOneBoot(t, root)
		all = append(all, f)
		fmt.Printf("boot %d: boot-to-ready %.2f s, first screenshot %.2f s, kernel-to-init %.2f s (guest uptime %.2f s); load %s\n",
			i+1, f.ready.Seconds(), f.screenshot.Seconds(), f.init.Seconds(), f.initUptime, f.load)
	}
	med := func(get func(bootFigures) float64) float64 {
		v := make([]float64, len(all))
		for i, f := range all {
			v[i] = get(f)
		}
		slices.Sort(v)
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	fmt.Printf("median of %d boots: boot-to-ready %.2f s, first screenshot %.2f s, kernel-to-init %.2f s (guest uptime %.2f s); load %s\n",
		n, med(func(f bootFigures) float64 { return f.ready.Seconds() }),
		med(func(f bootFigures) float64 { return f.screenshot.Seconds() }),
		med(func(f bootFigures) float64 { return f.init.Seconds() }),
		med(func(f bootFigures) float64 { return f.initUptime }), loadAvg())
}

// benchOneBoot boots the guest with a new broker, measures, and stops both.
func benchOneBoot(t *testing.T, root string) bootFigures {
	var f bootFigures
	t.Run("boot", func(t *testing.T) {
		g := startQEMU(t, filepath.Join(root, "images/test-guest/run.sh"), filepath.Join(root, "images/test-guest/build"))
		b := newBroker(t)
		b.start(t)
		ctx := context.Background()
		ep := "serial+unix://" + filepath.Join(g.dir, "agent.sock")
		if _, err := brokerv1.NewGuestServiceClient(b.conn).RegisterGuest(ctx, &brokerv1.RegisterGuestRequest{Name: guestName, Endpoint: ep}); err != nil {
			t.Fatalf("register guest: %v", err)
		}
		b.waitReady(t, guestName, 90*time.Second, nil)
		f.ready = time.Since(g.start)
		s, err := brokerv1.NewSessionServiceClient(b.conn).CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: guestName})
		if err != nil {
			t.Fatal(err)
		}
		cc := brokerv1.NewComputerServiceClient(b.conn)
		for {
			img, err := screenshot(ctx, cc, s.GetSession().GetId())
			if err == nil && magentaShare(img) > 0.3 {
				break
			}
			if time.Since(g.start) > 90*time.Second {
				t.Fatalf("no desktop in the screenshots within 90 s of QEMU start: %v", err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		f.screenshot = time.Since(g.start)
		f.init, _ = g.mark("init")
		f.initUptime = g.markUptime("init")
		f.load = loadAvg()
		for _, line := range strings.Split(b.log.String(), "\n") {
			if strings.Contains(line, `"guest state"`) || strings.Contains(line, `"guest handshake"`) {
				t.Logf("broker: %s", line)
			}
		}
		for _, m := range g.markNames() {
			at, _ := g.mark(m)
			t.Logf("guest timeline: %s: %.2f s (guest uptime %.2f s)", m, at.Seconds(), g.markUptime(m))
		}
		if os.Getenv(benchBootEnv+"_VERBOSE") != "" {
			agentLog, _ := os.ReadFile(filepath.Join(g.dir, "shared", "agent.log"))
			t.Logf("guest console:\n%s\nagent log:\n%s", g.consoleText(), agentLog)
		}
	})
	if f.ready == 0 {
		t.FailNow()
	}
	return f
}

// markUptime returns the guest's uptime (s) that the console marker name carried, or 0.
func (g *guest) markUptime(name string) float64 {
	for _, line := range strings.Split(g.consoleText(), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "GLOVEBOX-MARK" && f[1] == name {
			if v, err := strconv.ParseFloat(f[2], 64); err == nil && v < 1e6 { // qemu-start carries the host's date
				return v
			}
			return 0
		}
	}
	return 0
}

// loadAvg is the host's 1, 5 and 15 minute load averages.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
