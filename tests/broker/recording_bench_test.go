package broker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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
// a11y_text). Compare p50-ms of rec-click and rec-a11y-click against plain-click, and paced's rec-p50-ms and
// rec-a11y-p50-ms against its plain-p50-ms (the bound: at most 2 ms more). The recorded sessions'
// screenshots and text reads run off the Act's path but on the same two cores; a11y-texts counts the texts
// written and a11y-read-p50-ms is the agent's time per read.
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
	// Back to back, the recording's text reads wait for a pause (recording.TextQuiet, at least one a second):
	// plain-click, rec-click and rec-a11y-click. Paced (a step every 100 ms, like an agent that thinks between
	// steps), every step gets its text, read between the steps: "paced" sends the three sessions' clicks in
	// turn, so the load and the machine's drift fall on all three alike, and reports each one's p50.
	for _, c := range []struct {
		name string
		br   *brokerProc
		g    string
	}{{"plain-click", shots, "plain"}, {"rec-click", shots, "rec"}, {"rec-a11y-click", texts, "rec"}} {
		computer := brokerv1.NewComputerServiceClient(c.br.Conn)
		s := c.br.session(b, c.g)
		b.Run(c.name, func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			var target *agentv1.FrozenTarget
			for b.Loop() {
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
			// How long the agent took to read them (a11y.jsonl's took_us), p50.
			var took []int64
			lists, _ := filepath.Glob(filepath.Join(c.br.Dir, "recordings", "rec-*", "a11y.jsonl"))
			for _, l := range lists {
				data, _ := os.ReadFile(l)
				for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
					var x struct {
						TookUs int64 `json:"took_us"`
					}
					if json.Unmarshal(line, &x) == nil {
						took = append(took, x.TookUs)
					}
				}
			}
			if len(took) > 0 {
				slices.Sort(took)
				b.ReportMetric(float64(took[len(took)/2])/1000, "a11y-read-p50-ms")
			}
		})
	}

	type paced struct {
		name     string
		computer brokerv1.ComputerServiceClient
		session  string
		lat      []time.Duration
	}
	ps := []*paced{{name: "plain"}, {name: "rec"}, {name: "rec-a11y"}}
	for i, br := range []*brokerProc{shots, shots, texts} {
		ps[i].computer = brokerv1.NewComputerServiceClient(br.Conn)
		ps[i].session = br.session(b, []string{"plain", "rec", "rec"}[i])
	}
	b.Run("paced", func(b *testing.B) {
		for b.Loop() {
			for _, p := range ps {
				b.StopTimer()
				time.Sleep(100 * time.Millisecond)
				b.StartTimer()
				t0 := time.Now()
				if _, err := p.computer.Act(ctx, act(click, p.session)); err != nil {
					b.Fatal(err)
				}
				p.lat = append(p.lat, time.Since(t0))
			}
		}
		for _, p := range ps {
			slices.Sort(p.lat)
			b.ReportMetric(float64(p.lat[len(p.lat)/2].Microseconds())/1000, p.name+"-p50-ms")
		}
		files, _ := filepath.Glob(filepath.Join(texts.Dir, "recordings", "rec-*", "seq-*.a11y.txt"))
		b.ReportMetric(float64(len(files)), "a11y-texts")
	})
}
