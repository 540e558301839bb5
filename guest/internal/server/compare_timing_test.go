package server

import (
	"slices"
	"testing"
	"time"
)

// timeOp runs op once to warm up (connections, keymap, caches), then b.N times, and reports the median, 90th
// and 99th percentiles beside the mean ns/op (bench/run.sh prints ratios of the means and of the medians).
func timeOp(b *testing.B, op func()) {
	b.Helper()
	op()
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		op()
		ds = append(ds, time.Since(start))
	}
	b.StopTimer()
	reportPercentiles(b, ds)
}

// reportPercentiles sorts ds and reports p50-ms, p90-ms and p99-ms.
func reportPercentiles(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	for _, p := range []struct {
		name string
		q    int
	}{{"p50-ms", 50}, {"p90-ms", 90}, {"p99-ms", 99}} {
		b.ReportMetric(float64(ds[len(ds)*p.q/100])/float64(time.Millisecond), p.name)
	}
}
