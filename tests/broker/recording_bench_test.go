package broker_test

import (
	"context"
	"path/filepath"
	"sort"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/a11ybus"
	"glovebox.dev/shared/testenv/desktop"
	"glovebox.dev/tests/internal/agenttest"
)

// BenchmarkRecordingOverhead puts the same click (on a blank part of the AT-SPI test app's window, damage watch
// off, so the Act is delivery only) through two brokers in front of one agent, in one run: with recording off
// (guest "plain"), on with before/after screenshots (guest "rec" of the first broker), and on with screenshots
// and the accessibility text of the window after each step (guest "rec" of the second broker, policy
// a11y_text). Compare p50-ms of rec-click and rec-a11y-click against plain-click (the bound: at most
// 2 ms more). The recorded sessions' reads run off the Act's path but on the same two cores.
func BenchmarkRecordingOverhead(b *testing.B) {
	testenv.NeedCommands(b, "Xvfb", "openbox", debianPython)
	d := desktop.Start(b, desktop.Options{})
	bus := a11ybus.Start(b, d)
	a := agenttest.Start(b, agenttest.Options{Desktop: d, Env: []string{"DBUS_SESSION_BUS_ADDRESS=" + bus.Address}})
	app := bus.Command(debianPython, filepath.Join(agenttest.RepoRoot(b), "guest/internal/atspi/testdata/a11yapp.py"), "benchapp")
	if err := bus.StartProgram(b, app); err != nil {
		b.Fatal(err)
	}
	d.WaitWindow(b, "A11y Test", 20*time.Second)
	ep := "unix://" + a.Socket
	shots := setupBroker(b, map[string]string{"plain": ep, "rec": ep}, func(cfg map[string]any) {
		cfg["recording"] = map[string]any{"guests": []string{"rec"}, "screenshots": true}
	}).start(b)
	texts := setupBroker(b, map[string]string{"rec": ep}, func(cfg map[string]any) {
		cfg["recording"] = map[string]any{"guests": []string{"rec"}, "screenshots": true, "a11y_text": true}
	}).start(b)
	ctx := context.Background()
	// The window is at 20,20 and 600x420 (a11yapp.py): its lower right corner is blank.
	click := clickAt(590, 420)
	click.WatchMs = -1
	// Back to back, the recording's text reads wait for a pause (recording.TextQuiet, at least one a second);
	// paced (a step every 100 ms, like an agent that thinks between steps) every step gets its text, read
	// between the steps.
	for _, c := range []struct {
		name string
		br   *brokerProc
		g    string
		gap  time.Duration
	}{{"plain-click", shots, "plain", 0}, {"rec-click", shots, "rec", 0}, {"rec-a11y-click", texts, "rec", 0},
		{"plain-paced", shots, "plain", 100 * time.Millisecond}, {"rec-paced", shots, "rec", 100 * time.Millisecond},
		{"rec-a11y-paced", texts, "rec", 100 * time.Millisecond}} {
		computer := brokerv1.NewComputerServiceClient(c.br.Conn)
		s := c.br.session(b, c.g)
		b.Run(c.name, func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			var target *agentv1.FrozenTarget
			for b.Loop() {
				if c.gap > 0 {
					b.StopTimer()
					time.Sleep(c.gap)
					b.StartTimer()
				}
				t0 := time.Now()
				r, err := computer.Act(ctx, act(click, s))
				if err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
				target = r.GetResponse().GetTarget()
			}
			if target.GetWindowId() == 0 {
				b.Fatal("the click landed on the root window, not on the app's: no accessibility text to take")
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			// The texts the recording took so far (one a step at most: reads slower than clicks are coalesced).
			texts, _ := filepath.Glob(filepath.Join(c.br.Dir, "recordings", "rec-*", "seq-*.a11y.txt"))
			b.ReportMetric(float64(len(texts)), "a11y-texts")
		})
	}
}
