package broker

import (
	"sync/atomic"
	"testing"
	"time"
)

// slowFsync is the fsync latency fsyncStats counts as a stall: the 5k/s benchmark's p99 target. A request
// that waits for one such fsync (its intent's, its outcome's, or one it queued behind) is over target.
const slowFsync = 10 * time.Millisecond

// fsyncStats is an audit.Observer counting fsyncs for the throughput benchmarks' report.
type fsyncStats struct {
	n, recs, ns, max, slow atomic.Int64
}

func (s *fsyncStats) ObserveFsync(guest string, d time.Duration, records int) {
	s.n.Add(1)
	s.recs.Add(int64(records))
	s.ns.Add(int64(d))
	if d >= slowFsync {
		s.slow.Add(1)
	}
	for m := s.max.Load(); int64(d) > m && !s.max.CompareAndSwap(m, int64(d)); m = s.max.Load() {
	}
}

func (s *fsyncStats) ObserveQueueDepth(guest string, depth int) {}

// report adds the fsync figures to b's metrics: records per fsync, mean and worst fsync, and how many took
// slowFsync or longer (the disk's stalls, which the requests' p99 cannot hide).
func (s *fsyncStats) report(b *testing.B) {
	n := s.n.Load()
	if n == 0 {
		return
	}
	b.ReportMetric(float64(s.recs.Load())/float64(n), "records/fsync")
	b.ReportMetric(float64(s.ns.Load())/float64(n)/1e6, "fsync-ms")
	b.ReportMetric(float64(s.max.Load())/1e6, "fsync-max-ms")
	b.ReportMetric(float64(s.slow.Load()), "fsyncs-over-10ms")
}
