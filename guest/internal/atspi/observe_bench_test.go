package atspi

import (
	"context"
	"sort"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv"
)

// BenchmarkObserveFactory is the agent's part of get_app_state: an observation of gtk3-widget-factory's window
// (showing elements only, text only, get_app_state's agent budget for 4 KiB of text), without a screenshot.
func BenchmarkObserveFactory(b *testing.B) {
	testenv.NeedCommands(b, "gtk3-widget-factory")
	e := newEnv(b, Options{})
	a := e.startApp(b, "gtk3-widget-factory")
	e.waitOnBus(b, a.pid)
	ctx := context.Background()
	id := AppID(a.pid)
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		r, err := e.b.SnapshotApp(ctx, &agentv1.SnapshotAppRequest{AppId: id, Options: &agentv1.SnapshotOptions{MaxNodes: 20000}})
		if err == nil && len(r.Snapshot.Elements) > 200 {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("gtk3-widget-factory's window never showed 200 elements")
		}
	}
	for _, c := range []struct {
		name string
		o    *agentv1.SnapshotOptions
	}{
		{"visible-4k-text", &agentv1.SnapshotOptions{VisibleOnly: true, TextOnly: true, MaxBytes: 4096 + 1536}},
		{"all-4k-text", &agentv1.SnapshotOptions{TextOnly: true, MaxBytes: 4096 + 1536}},
		{"visible-4k", &agentv1.SnapshotOptions{VisibleOnly: true, MaxBytes: 4096}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				start := time.Now()
				if _, _, err := e.b.Observe(ctx, id, "", 0, "", c.o); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		})
	}
}
