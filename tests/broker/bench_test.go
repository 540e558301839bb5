package broker_test

import (
	"context"
	"sort"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/agenttest"
)

// BenchmarkBrokerOverhead puts the broker path and the straight-to-agent path side by side in one run: a
// PNG screenshot (one audit record) and a click (intent and outcome durable before the answer). Compare
// p50-ms of broker-x against direct-x.
func BenchmarkBrokerOverhead(b *testing.B) {
	testenv.NeedCommands(b, "Xvfb", "openbox")
	a := agenttest.Start(b, agenttest.Options{})
	br := startBroker(b, map[string]string{"vm1": "unix://" + a.Socket})
	ctx := context.Background()
	agentConn := a.DialUnix(b)
	observe, actc := agentv1.NewObserveServiceClient(agentConn), agentv1.NewActServiceClient(agentConn)
	computer := brokerv1.NewComputerServiceClient(br.Conn)
	s := br.session(b, "vm1")
	png := &agentv1.CaptureScreenshotRequest{Options: &agentv1.ScreenshotOptions{Format: agentv1.ImageFormat_IMAGE_FORMAT_PNG}}
	// Delivery only (watch_ms -1): the overhead of the broker, not the agent's 250 ms damage watch.
	click := func() *agentv1.ActRequest { r := clickAt(20, 20); r.WatchMs = -1; return r }
	cases := []struct {
		name string
		run  func() error
	}{
		{"direct-png", func() error { _, err := observe.CaptureScreenshot(ctx, png); return err }},
		{"broker-png", func() error {
			_, err := computer.CaptureScreenshot(ctx, &brokerv1.CaptureScreenshotRequest{SessionId: s, Request: png})
			return err
		}},
		{"direct-click", func() error {
			r := click()
			r.Owner = "bench"
			_, err := actc.Act(ctx, r)
			return err
		}},
		{"broker-click", func() error { _, err := computer.Act(ctx, act(click(), s)); return err }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			for b.Loop() {
				t0 := time.Now()
				if err := c.run(); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		})
	}
}

// BenchmarkBrokerBatch puts a batch of 5 clicks (one ActBatch: one intent and one outcome record, one guest
// call) beside the same 5 clicks as separate Acts (5 of each) through the real broker and agent. The ratio
// printed by bench/run.sh is acts time / batch time. Clicks land on the empty desktop with the damage watch off
// (watch_ms -1), so the figure is the cost of delivery and auditing, not the 250 ms watch.
func BenchmarkBrokerBatch(b *testing.B) {
	testenv.NeedCommands(b, "Xvfb", "openbox")
	a := agenttest.Start(b, agenttest.Options{})
	br := startBroker(b, map[string]string{"vm1": "unix://" + a.Socket})
	ctx := context.Background()
	computer := brokerv1.NewComputerServiceClient(br.Conn)
	s := br.session(b, "vm1")
	clicks := func() []*agentv1.ActRequest {
		var out []*agentv1.ActRequest
		for i := range 5 {
			r := clickAt(int32(20+i), 20)
			r.WatchMs = -1
			out = append(out, r)
		}
		return out
	}
	cases := []struct {
		name string
		run  func() error
	}{
		{"glovebox-5clicks", func() error {
			r, err := computer.ActBatch(ctx, &brokerv1.ActBatchRequest{SessionId: s, Request: &agentv1.ActBatchRequest{Actions: clicks()}})
			if err == nil && r.GetResponse().GetFailure() != nil {
				b.Fatalf("batch failed: %v", r.GetResponse().GetFailure())
			}
			return err
		}},
		{"acts-5clicks", func() error {
			for _, c := range clicks() {
				if _, err := computer.Act(ctx, act(c, s)); err != nil {
					return err
				}
			}
			return nil
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			for b.Loop() {
				t0 := time.Now()
				if err := c.run(); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		})
	}
}
