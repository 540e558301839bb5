package broker_test

import (
	"context"
	"sort"
	"testing"
	"time"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/agenttest"
)

// BenchmarkRecordingOverhead puts the same click through one broker with recording off (guest "plain") and
// on with screenshots (guest "rec": the same agent, recorded by the guest policy) in one run. Compare p50-ms
// of rec-click against plain-click (the bound: at most 2 ms more).
func BenchmarkRecordingOverhead(b *testing.B) {
	testenv.NeedCommands(b, "Xvfb", "openbox")
	a := agenttest.Start(b, agenttest.Options{})
	ep := "unix://" + a.Socket
	br := setupBroker(b, map[string]string{"plain": ep, "rec": ep}, func(cfg map[string]any) {
		cfg["recording"] = map[string]any{"guests": []string{"rec"}, "screenshots": true}
	}).start(b)
	computer := brokerv1.NewComputerServiceClient(br.Conn)
	ctx := context.Background()
	for _, guest := range []string{"plain", "rec"} {
		s := br.session(b, guest)
		b.Run(guest+"-click", func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			for b.Loop() {
				t0 := time.Now()
				if _, err := computer.Act(ctx, act(clickAt(20, 20), s)); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		})
	}
}
