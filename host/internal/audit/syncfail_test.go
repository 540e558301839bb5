package audit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"glovebox.dev/shared/errdefs"
)

// TestSyncFailure fails some fsyncs while records are appended concurrently: an Append that fails says
// ErrUnavailable, every Append that succeeded is in the log at its seq with its hash (also after reopening),
// and the chain verifies (batches written behind a failed sync are truncated away, not kept half-durable).
func TestSyncFailure(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  Options
		every int64 // fail every n-th sync
	}{
		{name: "every-2nd", every: 2},
		{name: "every-3rd-rotating", opts: Options{RotateBytes: 4 << 10}, every: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			l, err := Open(dir, testKey, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var n atomic.Int64
			l.syncFault = func() error {
				if n.Add(1)%tc.every == 0 {
					return syscall.EIO
				}
				return nil
			}
			var mu sync.Mutex
			durable := map[uint64]string{}
			failed := 0
			var wg sync.WaitGroup
			for r := range 6 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 30 {
						rec := clickRecord("vm1", fmt.Sprintf("s%d", r), i)
						var seq uint64
						var err error
						if i%3 == 0 {
							_, err = l.AppendWritten(context.Background(), rec)
						} else {
							seq, err = l.Append(context.Background(), rec)
						}
						mu.Lock()
						switch {
						case err != nil && !errors.Is(err, errdefs.ErrUnavailable):
							t.Errorf("append failed with %v, want class ErrUnavailable", err)
						case err != nil:
							failed++
						case seq != 0:
							durable[seq] = rec.GetHash()
						}
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			if failed == 0 {
				t.Error("no append failed: the fault was not injected")
			}
			check := func(l *Log) {
				t.Helper()
				got := map[uint64]string{}
				recs, _, err := l.List("vm1", Filter{}, 1000, "")
				if err != nil {
					t.Fatal(err)
				}
				for _, rec := range recs {
					if _, ok := durable[rec.GetSeq()]; ok {
						got[rec.GetSeq()] = rec.GetHash()
					}
				}
				if diff := cmp.Diff(durable, got); diff != "" {
					t.Errorf("acknowledged durable records in the log (-want +got):\n%s", diff)
				}
			}
			check(l)
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			rep, err := Verify(dir, "vm1")
			if err != nil || !rep.OK() {
				t.Fatalf("Verify: %v, %v", rep.Problems, err)
			}
			l2, err := Open(dir, testKey, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer l2.Close()
			check(l2)
			if _, err := l2.Append(context.Background(), clickRecord("vm1", "s0", 0)); err != nil {
				t.Errorf("append after reopening: %v", err)
			}
		})
	}
}
