package broker

import (
	"context"
	"sort"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// BenchmarkInProcessOverhead puts the broker's own pipeline (in process, real audit log, no gRPC into the
// broker) beside a straight call to the fake agent, for a screenshot and a click: the broker's cost
// without the client's gRPC hop. Compare p50-ms of glovebox-x against direct-x.
func BenchmarkInProcessOverhead(b *testing.B) {
	tb := loadBroker(b, 1, &fsyncStats{})
	ctx := tb.as("agent")
	s := tb.session(b, "agent", "g0")
	g := tb.Broker.guests["g0"]
	direct := func(fn func(ctx context.Context, c guestClients) error) error { return g.conn.Call(ctx, 0, fn) }
	for _, c := range []struct {
		name string
		run  func() error
	}{
		{"direct-png", func() error {
			return direct(func(ctx context.Context, c guestClients) error {
				_, err := c.Observe.CaptureScreenshot(ctx, &agentv1.CaptureScreenshotRequest{})
				return err
			})
		}},
		{"glovebox-png", func() error {
			_, err := tb.CaptureScreenshot(ctx, &brokerv1.CaptureScreenshotRequest{SessionId: s})
			return err
		}},
		{"direct-click", func() error {
			return direct(func(ctx context.Context, c guestClients) error {
				_, err := c.Act.Act(ctx, click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT))
				return err
			})
		}},
		{"glovebox-click", func() error {
			_, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT)})
			return err
		}},
	} {
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
