package audit

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// benchConcurrency is how many goroutines per CPU append at once: the broker serves many sessions, each
// waiting for its audit record before it can go on.
const benchConcurrency = 32

// BenchmarkAppendParallel measures audited mutations (an intent and an outcome record, each durable before
// the next step) from many goroutines on one guest. glovebox-mutation is Log.Append with group commit; the
// peer fsynceach-mutation writes and fsyncs every record on its own under a lock, as a log without group
// commit would. Reported: mutations/s, records/s, p50/p99 latency of one Append and of a whole mutation, and
// the fsync latency the Observer saw.
func BenchmarkAppendParallel(b *testing.B) {
	b.Run("glovebox-mutation", func(b *testing.B) {
		o := &observer{}
		l, _ := openLog(b, Options{Observer: o})
		benchMutations(b, func(rec *brokerv1.AuditRecord) error {
			_, err := l.Append(context.Background(), rec)
			return err
		})
		l.Close()
		if len(o.fsyncs) > 0 {
			slices.Sort(o.fsyncs)
			b.ReportMetric(ms(o.fsyncs[len(o.fsyncs)/2]), "fsync-p50-ms")
			depth := 0
			for _, d := range o.depth {
				depth += d
			}
			b.ReportMetric(float64(depth)/float64(len(o.depth)), "records/fsync")
		}
	})
	b.Run("fsynceach-mutation", func(b *testing.B) {
		f, err := os.OpenFile(filepath.Join(b.TempDir(), "log.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		var mu sync.Mutex
		var seq uint64
		var last string
		benchMutations(b, func(rec *brokerv1.AuditRecord) error {
			mu.Lock()
			defer mu.Unlock()
			seq++
			rec.Seq, rec.PrevHash = seq, last
			h, err := hashUnsealed(rec, nil)
			if err != nil {
				return err
			}
			rec.Hash, last = h, h
			line, err := appendLine(nil, rec)
			if err != nil {
				return err
			}
			if _, err := f.Write(line); err != nil {
				return err
			}
			return datasync(f)
		})
	})
}

func benchMutations(b *testing.B, appendRec func(*brokerv1.AuditRecord) error) {
	var mu sync.Mutex
	var appends, mutations []time.Duration
	b.SetParallelism(benchConcurrency)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		var a, m []time.Duration
		i := 0
		for pb.Next() {
			i++
			t0 := time.Now()
			intent := clickRecord("vm1", "s", i)
			if err := appendRec(intent); err != nil {
				b.Error(err)
				return
			}
			t1 := time.Now()
			outcome := clickRecord("vm1", "s", i)
			outcome.Phase, outcome.IntentSeq, outcome.Code = brokerv1.AuditPhase_AUDIT_PHASE_OUTCOME, intent.GetSeq(), "OK"
			outcome.DurationUs = t1.Sub(t0).Microseconds()
			if err := appendRec(outcome); err != nil {
				b.Error(err)
				return
			}
			t2 := time.Now()
			a = append(a, t1.Sub(t0), t2.Sub(t1))
			m = append(m, t2.Sub(t0))
		}
		mu.Lock()
		appends, mutations = append(appends, a...), append(mutations, m...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	b.StopTimer()
	if len(mutations) == 0 {
		return
	}
	slices.Sort(appends)
	slices.Sort(mutations)
	b.ReportMetric(float64(len(mutations))/elapsed.Seconds(), "mutations/s")
	b.ReportMetric(float64(len(appends))/elapsed.Seconds(), "records/s")
	b.ReportMetric(ms(appends[len(appends)/2]), "p50-ms")
	b.ReportMetric(ms(appends[len(appends)*99/100]), "p99-ms")
	b.ReportMetric(ms(mutations[len(mutations)*99/100]), "mutation-p99-ms")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
