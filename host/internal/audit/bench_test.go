package audit

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"glovebox.dev/host/internal/benchtest"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// benchConcurrency is how many goroutines per CPU append at once: the broker serves many sessions, each
// waiting for its audit record before it can go on.
const benchConcurrency = 32

// BenchmarkAppendParallel measures audited mutations (an intent and an outcome record, each durable before
// the next step) from many goroutines on one guest. glovebox-mutation is Log.Append with group commit; the
// peer fsynceach-mutation writes and fsyncs every record on its own under a lock, as a log without group
// commit would. Reported: mutations/s, records/s, p50/p99 latency of one Append and of a whole mutation, and
// the fsync latency the Observer saw.
func BenchmarkAppendParallel(b *testing.B) { benchAppend(b, benchConcurrency) }

// BenchmarkAppendSerial is BenchmarkAppendParallel from one goroutine: the latency of a lone durable Append
// (one write and one fsync each, nothing to group).
func BenchmarkAppendSerial(b *testing.B) { benchAppend(b, 0) }

// benchAppend runs both sides with parallelism goroutines per CPU (0: a single goroutine).
func benchAppend(b *testing.B, parallelism int) {
	b.Run("glovebox-mutation", func(b *testing.B) {
		o := &observer{}
		l, _ := openLog(b, Options{Observer: o})
		benchMutations(b, parallelism, func(rec *brokerv1.AuditRecord) error {
			_, err := l.Append(context.Background(), rec)
			return err
		})
		l.Close()
		if len(o.fsyncs) > 0 {
			slices.Sort(o.fsyncs)
			b.ReportMetric(benchtest.Ms(o.fsyncs[len(o.fsyncs)/2]), "fsync-p50-ms")
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
		benchMutations(b, parallelism, func(rec *brokerv1.AuditRecord) error {
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

// next is testing.PB.Next, or a loop counter when the benchmark runs in one goroutine.
type next interface{ Next() bool }

type counter struct{ n, max int }

func (c *counter) Next() bool { c.n++; return c.n <= c.max }

func benchMutations(b *testing.B, parallelism int, appendRec func(*brokerv1.AuditRecord) error) {
	var mu sync.Mutex
	var appends, mutations []time.Duration
	b.ResetTimer()
	start := time.Now()
	body := func(pb next) {
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
	}
	if parallelism > 0 {
		b.SetParallelism(parallelism)
		b.RunParallel(func(pb *testing.PB) { body(pb) })
	} else {
		body(&counter{max: b.N})
	}
	elapsed := time.Since(start)
	b.StopTimer()
	if len(mutations) == 0 {
		return
	}
	slices.Sort(appends)
	slices.Sort(mutations)
	b.ReportMetric(float64(len(mutations))/elapsed.Seconds(), "mutations/s")
	b.ReportMetric(float64(len(appends))/elapsed.Seconds(), "records/s")
	b.ReportMetric(benchtest.Ms(appends[len(appends)/2]), "p50-ms")
	b.ReportMetric(benchtest.Ms(appends[len(appends)*99/100]), "p99-ms")
	b.ReportMetric(benchtest.Ms(mutations[len(mutations)*99/100]), "mutation-p99-ms")
}

// BenchmarkAppendRate5k offers audited mutations at a fixed 5000/s (open loop, the target rate) and
// measures each from the moment it was due, so a stall shows in the percentiles instead of slowing the
// offered load. b.N is the number of mutations.
func BenchmarkAppendRate5k(b *testing.B) {
	b.Run("glovebox-mutation", func(b *testing.B) {
		const rate = 5000
		o := &observer{}
		l, _ := openLog(b, Options{Observer: o})
		benchtest.OpenLoop(b, rate, func(i int) error {
			intent := clickRecord("vm1", "s", i)
			if _, err := l.Append(context.Background(), intent); err != nil {
				return err
			}
			outcome := clickRecord("vm1", "s", i)
			outcome.Phase, outcome.IntentSeq, outcome.Code = brokerv1.AuditPhase_AUDIT_PHASE_OUTCOME, intent.GetSeq(), "OK"
			_, err := l.Append(context.Background(), outcome)
			return err
		})
		l.Close()
		if len(o.fsyncs) > 0 {
			// The disk's share of the tail: a mutation waits for at least two fsyncs.
			slices.Sort(o.fsyncs)
			b.ReportMetric(benchtest.Ms(o.fsyncs[len(o.fsyncs)/2]), "fsync-p50-ms")
			b.ReportMetric(benchtest.Ms(o.fsyncs[len(o.fsyncs)*99/100]), "fsync-p99-ms")
			b.ReportMetric(benchtest.Ms(o.fsyncs[len(o.fsyncs)-1]), "fsync-max-ms")
			b.ReportMetric(float64(2*b.N)/float64(len(o.fsyncs)), "records/fsync")
		}
	})
}

// BenchmarkRedact redacts a typical act request: glovebox-act is Redact's direct walk, the peer protojson-act
// the protojson round trip it replaced.
func BenchmarkRedact(b *testing.B) {
	req := &brokerv1.ActRequest{SessionId: "s1", Request: &agentv1.ActRequest{
		Owner: "s1", Target: &agentv1.Target{Kind: &agentv1.Target_Window{Window: &agentv1.WindowTarget{WindowId: 0x400007}}},
		Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: "hello world", DelayMs: 2}},
	}}
	for _, side := range []struct {
		name   string
		redact func(Key, proto.Message) *structpb.Struct
	}{{"glovebox-act", Redact}, {"protojson-act", redactViaJSON}} {
		b.Run(side.name, func(b *testing.B) {
			for b.Loop() {
				side.redact(testKey, req)
			}
		})
	}
}
