// Package benchtest holds what the host's benchmarks share: an open-loop driver that offers operations at a
// fixed rate. It is imported by test files only.
package benchtest

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// OpenLoop offers b.N operations at rate per second: operation i starts when it is due, in a goroutine of its
// own, and its latency is measured from that moment, so a stall shows in the percentiles instead of slowing
// the offered load. A failed operation fails the benchmark. It reports mutations/s (each operation is one
// audited mutation in the host's benchmarks), p50-ms and p99-ms, with the timer stopped afterwards.
func OpenLoop(b *testing.B, rate int, op func(i int) error) {
	lat := make([]time.Duration, b.N)
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		due := start.Add(time.Duration(i) * time.Second / time.Duration(rate))
		if d := time.Until(due); d > 0 {
			time.Sleep(d)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := op(i); err != nil {
				b.Error(err)
				return
			}
			lat[i] = time.Since(due)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "mutations/s")
	b.ReportMetric(Ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(Ms(lat[len(lat)*99/100]), "p99-ms")
}

// Ms is d in milliseconds, for ReportMetric.
func Ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
