package broker

import (
	"sync/atomic"
	"time"
)

// fsyncStats is an audit.Observer counting fsyncs for the throughput benchmark's report.
type fsyncStats struct {
	n, recs, ns, max atomic.Int64
}

func (s *fsyncStats) ObserveFsync(guest string, d time.Duration, records int) {
	s.n.Add(1)
	s.recs.Add(int64(records))
	s.ns.Add(int64(d))
	for m := s.max.Load(); int64(d) > m && !s.max.CompareAndSwap(m, int64(d)); m = s.max.Load() {
	}
}

func (s *fsyncStats) ObserveQueueDepth(guest string, depth int) {}
