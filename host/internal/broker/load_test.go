package broker

import (
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"glovebox.dev/host/internal/audit"
	"glovebox.dev/host/internal/benchtest"
	"glovebox.dev/host/internal/config"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// loadBroker is a broker over n fake guests with the real, fsyncing audit log in a temporary directory.
func loadBroker(t testing.TB, guests int, obs *fsyncStats) *testBroker {
	t.Helper()
	var cg []config.Guest
	for i := range guests {
		cg = append(cg, config.Guest{Name: fmt.Sprintf("g%d", i), Endpoint: startFakeAgentKeeping(t, 16).endpoint()})
	}
	cfg := testConfig(cg...)
	cfg.Principals[0].RatePerSecond = -1
	dir := t.TempDir()
	key, err := audit.LoadOrCreateKey(dir + "/audit.key")
	if err != nil {
		t.Fatal(err)
	}
	log, err := audit.Open(dir+"/log", key, audit.Options{Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	return newTestBroker(t, cfg, func(o *Options) { o.Audit, o.Redact = log, log.Redact })
}

// TestLoad: 256 sessions (16 on each of 16 fake guests, more than the 64 sessions x 16 guests) act and
// observe concurrently for 60 s with the durable audit log, with zero errors and bounded memory (2 s with
// -short).
func TestLoad(t *testing.T) {
	d := 60 * time.Second
	if testing.Short() {
		d = 2 * time.Second
	}
	const guests, perGuest = 16, 16
	tb := loadBroker(t, guests, &fsyncStats{})
	var sessions []string
	for g := range guests {
		for range perGuest {
			sessions = append(sessions, tb.session(t, "agent", fmt.Sprintf("g%d", g)))
		}
	}
	var ops, errs atomic.Int64
	var firstErr atomic.Value
	run := func(until time.Time) {
		var wg sync.WaitGroup
		for i, s := range sessions {
			wg.Add(1)
			go func() {
				ctx := tb.as("agent") // a caller per goroutine: the broker records each RPC's session on it
				defer wg.Done()
				for n := 0; time.Now().Before(until); n++ {
					var err error
					switch (i + n) % 4 {
					case 0, 1:
						_, err = tb.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: click(int32(n%100), 5, agentv1.MouseButton_MOUSE_BUTTON_LEFT)})
					case 2:
						_, err = tb.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: typeText("load")})
					case 3:
						_, err = tb.CaptureScreenshot(ctx, &brokerv1.CaptureScreenshotRequest{SessionId: s})
					}
					ops.Add(1)
					if err != nil {
						errs.Add(1)
						firstErr.CompareAndSwap(nil, err)
					}
				}
			}()
		}
		wg.Wait()
	}
	warm := d / 5
	run(time.Now().Add(warm))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	ops.Store(0)
	run(start.Add(d - warm))
	elapsed := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("%d requests in %s (%.0f/s) over %d sessions, heap %d -> %d KiB, goroutines %d",
		ops.Load(), elapsed.Round(time.Millisecond), float64(ops.Load())/elapsed.Seconds(), len(sessions),
		before.HeapAlloc>>10, after.HeapAlloc>>10, runtime.NumGoroutine())
	if n := errs.Load(); n != 0 {
		t.Errorf("%d errors, first: %v", n, firstErr.Load())
	}
	if growth := int64(after.HeapAlloc) - int64(before.HeapAlloc); growth > 64<<20 {
		t.Errorf("heap grew by %d MiB under steady load", growth>>20)
	}
}

// BenchmarkAuditedMutations measures sustained clicks through the broker (intent and outcome durable in the
// real audit log, group commit) against 16 fake guests with 16 sessions each, reporting mutations/s and the
// p50/p99 latency.
func BenchmarkAuditedMutations(b *testing.B) {
	const guests, perGuest = 16, 16
	obs := &fsyncStats{}
	tb := loadBroker(b, guests, obs)
	var sessions []string
	for g := range guests {
		for range perGuest {
			sessions = append(sessions, tb.session(b, "agent", fmt.Sprintf("g%d", g)))
		}
	}
	var next atomic.Int64
	lat := make([][]time.Duration, len(sessions))
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Add(1)
		go func() {
			ctx := tb.as("agent") // a caller per goroutine: the broker records each RPC's session on it
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				t0 := time.Now()
				if _, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT)}); err != nil {
					b.Error(err)
					return
				}
				lat[i] = append(lat[i], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	if len(all) > 0 {
		b.ReportMetric(float64(len(all))/elapsed.Seconds(), "mutations/s")
		b.ReportMetric(float64(all[len(all)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
		obs.report(b)
	}
}

// BenchmarkAuditedMutationsRate5k offers clicks at a fixed 5000/s (open loop, the target rate) spread
// over 16 fake guests with 16 sessions each, intent and outcome durable in the real audit log, and measures
// each from the moment it was due, so a stall shows in the percentiles instead of slowing the offered load.
// b.N is the number of mutations.
func BenchmarkAuditedMutationsRate5k(b *testing.B) {
	const guests, perGuest, rate = 16, 16, 5000
	obs := &fsyncStats{}
	tb := loadBroker(b, guests, obs)
	var sessions []string
	for g := range guests {
		for range perGuest {
			sessions = append(sessions, tb.session(b, "agent", fmt.Sprintf("g%d", g)))
		}
	}
	benchtest.OpenLoop(b, rate, func(i int) error {
		ctx := tb.as("agent") // a caller per goroutine: the broker records each RPC's session on it
		s := sessions[i%len(sessions)]
		_, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT)})
		return err
	})
	obs.report(b)
}
