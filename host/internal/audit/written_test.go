package audit

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// TestAppendWritten: a record AppendWritten returned is already in the guest's file at its seq, List shows
// it right away (waiting for the fsync under way), and mixed durable and written appends, concurrent or not,
// make one gapless chain that verifies, with every sync mode.
func TestAppendWritten(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     Options
		pattern  string // per goroutine: d = Append, w = AppendWritten
		routines int
	}{
		{name: "serial-written", pattern: "wwww", routines: 1},
		{name: "serial-mixed", pattern: "wdwwdd", routines: 1},
		{name: "concurrent-mixed", pattern: "wdwdwwdd", routines: 8},
		{name: "concurrent-rotating", opts: Options{RotateBytes: 2 << 10}, pattern: "wwdwdw", routines: 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, dir := openLog(t, tc.opts)
			var mu sync.Mutex
			var got []uint64
			var wg sync.WaitGroup
			for r := range tc.routines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i, op := range tc.pattern {
						rec := clickRecord("vm1", fmt.Sprintf("s%d", r), i)
						var seq uint64
						var err error
						if op == 'w' {
							seq, err = l.AppendWritten(context.Background(), rec)
						} else {
							seq, err = l.Append(context.Background(), rec)
						}
						if err != nil {
							t.Error(err)
							return
						}
						if op == 'w' {
							// Already in the file, in chain order, at its seq.
							_, lines := allLines(t, dir, "vm1")
							if uint64(len(lines)) < seq {
								t.Errorf("AppendWritten returned seq %d with %d lines in the file", seq, len(lines))
							}
							// And List shows it without waiting for anything else.
							recs, _, err := l.List("vm1", Filter{FromSeq: seq, ToSeq: seq}, 1, "")
							if err != nil || len(recs) != 1 || recs[0].GetHash() != rec.GetHash() {
								t.Errorf("List of written seq %d: %v, %v", seq, recs, err)
							}
						}
						mu.Lock()
						got = append(got, seq)
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			n := len(tc.pattern) * tc.routines
			seen := map[uint64]bool{}
			for _, s := range got {
				seen[s] = true
			}
			var missing []uint64
			for s := uint64(1); s <= uint64(n); s++ {
				if !seen[s] {
					missing = append(missing, s)
				}
			}
			if diff := cmp.Diff([]uint64(nil), missing); diff != "" || len(got) != n {
				t.Errorf("seqs not 1..%d (got %d): missing diff (-want +got):\n%s", n, len(got), diff)
			}
			if head, _, _ := l.Head("vm1"); head != uint64(n) {
				t.Errorf("Head = %d after everything returned and List waited, want %d", head, n)
			}
			l.Close()
			rep, err := Verify(dir, "vm1")
			if err != nil || !rep.OK() || rep.LastSeq != uint64(n) {
				t.Errorf("Verify: %+v, %v", rep, err)
			}
		})
	}
}

// TestAppendWrittenClosed: AppendWritten on a closed log fails with ErrClosed.
func TestAppendWrittenClosed(t *testing.T) {
	l, _ := openLog(t, Options{})
	l.Close()
	if _, err := l.AppendWritten(context.Background(), clickRecord("vm1", "s", 1)); err == nil {
		t.Fatal("AppendWritten after Close succeeded")
	}
	if _, err := l.AppendWritten(context.Background(), &brokerv1.AuditRecord{}); err == nil {
		t.Fatal("AppendWritten of a record without guest succeeded")
	}
}
