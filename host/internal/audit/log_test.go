package audit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// goldenLine is the contract: the exact bytes of one record. A change here is a change of the audit file
// format (or of the hash), which old logs and external verifiers depend on.
const goldenLine = `{"seq":"1","guest":"vm1","time":"2026-01-02T03:04:05.600Z","phase":"AUDIT_PHASE_INTENT","rpc":"/glovebox.broker.v1.ComputerService/Act","session_id":"sess-1","principal":"uid:1000","target":{"display_id":":0","window_id":4194311,"window_title":"xterm","source":"TARGET_SOURCE_SESSION","generation":"3"},"args":{"request":{"owner":"sess-1","type":{"delay_ms":5,"text":{"hmac_sha256":"aaf6d2a3a82f805d6c2ec590064739d657fc9b2ab7837d899764f47a3335ee4f","length":7}}},"session_id":"sess-1"},"duration_us":"12","hash":"e364eda39667eec4052276391e8e7b89a3bbbd881ab380bb48115811e36482e6"}` + "\n"

func TestRecordBytesPinned(t *testing.T) {
	l, dir := openLog(t, Options{})
	req := &brokerv1.ActRequest{SessionId: "sess-1", Request: &agentv1.ActRequest{
		Owner:  "sess-1",
		Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: "hunter2", DelayMs: 5}},
	}}
	rec := &brokerv1.AuditRecord{
		Guest: "vm1", Time: timestamppb.New(time.Date(2026, 1, 2, 3, 4, 5, 600000000, time.UTC)),
		Phase: brokerv1.AuditPhase_AUDIT_PHASE_INTENT, Rpc: "/glovebox.broker.v1.ComputerService/Act",
		SessionId: "sess-1", Principal: "uid:1000", Args: Redact(testKey, req),
		Target: &agentv1.FrozenTarget{DisplayId: ":0", WindowId: 4194311, WindowTitle: "xterm",
			Source: agentv1.TargetSource_TARGET_SOURCE_SESSION, Generation: 3},
		DurationUs: 12,
	}
	if _, err := l.Append(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "vm1", "audit-00000000000000000001.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(goldenLine, string(got)); diff != "" {
		t.Errorf("record bytes changed (-want +got):\n%s", diff)
	}
}

func TestChainAcrossRotation(t *testing.T) {
	l, dir := openLog(t, Options{RotateBytes: 2048})
	recs := appendN(t, l, "vm1", 40)
	if n := len(files(t, dir, "vm1")); n < 4 {
		t.Fatalf("%d files, want rotation into at least 4", n)
	}
	for i, rec := range recs {
		if rec.GetSeq() != uint64(i+1) {
			t.Fatalf("record %d has seq %d", i, rec.GetSeq())
		}
		if i > 0 && rec.GetPrevHash() != recs[i-1].GetHash() {
			t.Fatalf("seq %d: prev_hash does not link", rec.GetSeq())
		}
	}
	rep, err := Verify(dir, "vm1")
	if err != nil {
		t.Fatal(err)
	}
	want := Report{Guest: "vm1", Files: len(files(t, dir, "vm1")), Records: 40, LastSeq: 40, LastHash: recs[39].GetHash()}
	if diff := cmp.Diff(want, rep); diff != "" {
		t.Errorf("Verify (-want +got):\n%s", diff)
	}
	// Each file starts with the record it is named after, and records read back equal what was appended.
	var got []*brokerv1.AuditRecord
	if err := Scan(dir, "vm1", 1, func(r *brokerv1.AuditRecord) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recs, got, protocmp.Transform()); diff != "" {
		t.Errorf("records read back (-want +got):\n%s", diff)
	}
	tail, err := Tail(dir, "vm1", 7)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recs[33:], tail, protocmp.Transform()); diff != "" {
		t.Errorf("Tail 7 (-want +got):\n%s", diff)
	}
	// Reopening continues the chain.
	l.Close()
	l2, err := Open(dir, testKey, Options{RotateBytes: 2048})
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	more := appendN(t, l2, "vm1", 3)
	if more[0].GetSeq() != 41 || more[0].GetPrevHash() != recs[39].GetHash() {
		t.Errorf("after reopen: seq %d prev_hash %q, want 41 and the last hash", more[0].GetSeq(), more[0].GetPrevHash())
	}
	if rep, err := Verify(dir, "vm1"); err != nil || !rep.OK() || rep.LastSeq != 43 {
		t.Errorf("Verify after reopen: %+v, %v", rep, err)
	}
}

func TestConcurrentAppends(t *testing.T) {
	l, dir := openLog(t, Options{RotateBytes: 64 << 10})
	const workers, each = 16, 100
	var mu sync.Mutex
	seen := map[uint64]int{}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				guest := []string{"vm1", "vm2"}[w%2]
				seq, err := l.Append(context.Background(), clickRecord(guest, "s", i))
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				seen[seq]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	// Two guests, each with its own seq from 1: every seq 1..800 appears exactly twice.
	for seq := uint64(1); seq <= workers*each/2; seq++ {
		if seen[seq] != 2 {
			t.Fatalf("seq %d acknowledged %d times, want 2 (one per guest)", seq, seen[seq])
		}
	}
	if len(seen) != workers*each/2 {
		t.Errorf("%d distinct seqs, want %d", len(seen), workers*each/2)
	}
	for _, g := range []string{"vm1", "vm2"} {
		rep, err := Verify(dir, g)
		if err != nil || !rep.OK() || rep.Records != workers*each/2 {
			t.Errorf("Verify %s: %+v, %v", g, rep, err)
		}
	}
	if diff := cmp.Diff([]string{"vm1", "vm2"}, l.Guests()); diff != "" {
		t.Errorf("Guests (-want +got):\n%s", diff)
	}
}

func TestTornLastLineRepaired(t *testing.T) {
	l, dir := openLog(t, Options{})
	recs := appendN(t, l, "vm1", 5)
	l.Close()
	last := files(t, dir, "vm1")[0]
	f, err := os.OpenFile(last, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"seq":"6","guest":"vm1","ti`)
	f.Close()
	rep, err := Verify(dir, "vm1")
	if err != nil || rep.TornTailBytes == 0 || !rep.OK() {
		t.Fatalf("Verify before repair: %+v, %v; want a torn tail and no problem", rep, err)
	}
	// An empty file left by a rotation that crashed before its first record is not part of the chain.
	stray := filepath.Join(dir, "vm1", segmentName(9))
	if err := os.WriteFile(stray, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	l2, err := Open(dir, testKey, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	more := appendN(t, l2, "vm1", 2)
	if more[0].GetSeq() != 6 || more[0].GetPrevHash() != recs[4].GetHash() {
		t.Errorf("after repair: seq %d, want 6 chained to seq 5", more[0].GetSeq())
	}
	rep, err = Verify(dir, "vm1")
	want := Report{Guest: "vm1", Files: 1, Records: 7, LastSeq: 7, LastHash: more[1].GetHash()}
	if diff := cmp.Diff(want, rep); err != nil || diff != "" {
		t.Errorf("Verify after repair (-want +got):\n%s%v", diff, err)
	}
}

func TestCorruptMiddleNotRepaired(t *testing.T) {
	l, dir := openLog(t, Options{})
	appendN(t, l, "vm1", 5)
	l.Close()
	pos, lines := allLines(t, dir, "vm1")
	lines[2] = []byte(`{"seq":"3", not json` + "\n")
	writeLines(t, pos, lines)

	l2, err := Open(dir, testKey, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	if more := appendN(t, l2, "vm1", 1); more[0].GetSeq() != 6 {
		t.Errorf("appended seq %d after a corrupt middle record, want 6", more[0].GetSeq())
	}
	rep, err := Verify(dir, "vm1")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 1 || rep.Problems[0].Position != pos[2] || rep.Problems[0].Kind != ProblemUnparsable {
		t.Errorf("Problems = %v, want one unparsable line at %v", rep.Problems, pos[2])
	}
}

func TestListPages(t *testing.T) {
	l, _ := openLog(t, Options{RotateBytes: 4096})
	appendN(t, l, "vm1", 25) // sessions s0 (odd seqs) and s1 (even seqs)
	seqs := func(recs []*brokerv1.AuditRecord) []uint64 {
		var s []uint64
		for _, r := range recs {
			s = append(s, r.GetSeq())
		}
		return s
	}
	tests := []struct {
		name   string
		filter Filter
		size   int
		want   [][]uint64
	}{
		{"all", Filter{}, 10, [][]uint64{{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, {21, 22, 23, 24, 25}}},
		{"session", Filter{SessionID: "s1"}, 5, [][]uint64{{2, 4, 6, 8, 10}, {12, 14, 16, 18, 20}, {22, 24}}},
		{"range", Filter{FromSeq: 5, ToSeq: 9}, 2, [][]uint64{{5, 6}, {7, 8}, {9}}},
		{"exact page", Filter{ToSeq: 4}, 4, [][]uint64{{1, 2, 3, 4}}},
		{"empty", Filter{FromSeq: 26}, 10, [][]uint64{nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got [][]uint64
			token := ""
			for {
				recs, next, err := l.List("vm1", tt.filter, tt.size, token)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, seqs(recs))
				if next == "" {
					break
				}
				token = next
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("pages (-want +got):\n%s", diff)
			}
		})
	}
	if _, _, err := l.List("nope", Filter{}, 1, ""); !errors.Is(err, errdefs.ErrNotFound) {
		t.Errorf("List of unknown guest: %v, want not found", err)
	}
	if _, _, err := l.List("vm1", Filter{}, 1, "x"); !errors.Is(err, errdefs.ErrInvalidArgument) {
		t.Errorf("List with bad token: %v, want invalid argument", err)
	}
	if _, err := l.Append(context.Background(), clickRecord("../etc", "s", 0)); !errors.Is(err, errdefs.ErrInvalidArgument) {
		t.Errorf("Append for guest ../etc: %v, want invalid argument", err)
	}
}

func TestWatch(t *testing.T) {
	l, _ := openLog(t, Options{WatchBuffer: 4, RotateBytes: 8 << 10})
	appendN(t, l, "vm1", 5)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fromStart, err := l.Watch(ctx, "vm1", 2)
	if err != nil {
		t.Fatal(err)
	}
	// A watcher that does not read while 200 records are appended: Append must not wait for it, and it
	// must still see every record once it reads (catching up from the files).
	slow, err := l.Watch(ctx, "vm1", 0)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		appendN(t, l, "vm1", 200)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("appends blocked by watchers")
	}
	read := func(w *Watcher, n int) []uint64 {
		var got []uint64
		for len(got) < n {
			select {
			case r, ok := <-w.C:
				if !ok {
					t.Fatalf("watch ended: %v", w.Err())
				}
				got = append(got, r.GetSeq())
			case <-time.After(5 * time.Second):
				t.Fatalf("watch stalled after %d records", len(got))
			}
		}
		return got
	}
	span := func(a, b uint64) []uint64 {
		var s []uint64
		for i := a; i <= b; i++ {
			s = append(s, i)
		}
		return s
	}
	if diff := cmp.Diff(span(6, 205), read(slow, 200)); diff != "" {
		t.Errorf("slow watcher from now (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(span(2, 205), read(fromStart, 204)); diff != "" {
		t.Errorf("watcher from seq 2 (-want +got):\n%s", diff)
	}
	appendN(t, l, "vm1", 1)
	if diff := cmp.Diff([]uint64{206}, read(slow, 1)); diff != "" {
		t.Errorf("live record (-want +got):\n%s", diff)
	}
	cancel()
	for _, w := range []*Watcher{slow, fromStart} {
		for range w.C {
		}
		if !errors.Is(w.Err(), context.Canceled) {
			t.Errorf("watch ended with %v, want context canceled", w.Err())
		}
	}
	// Close ends a watcher too.
	w, err := l.Watch(context.Background(), "vm2", 0)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	for range w.C {
	}
	if !errors.Is(w.Err(), ErrClosed) {
		t.Errorf("watch ended with %v after Close, want ErrClosed", w.Err())
	}
	if _, err := l.Append(context.Background(), clickRecord("vm1", "s", 0)); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close: %v, want ErrClosed", err)
	}
}

// observer records what the log reports.
type observer struct {
	mu     sync.Mutex
	fsyncs []time.Duration
	depth  []int
}

func (o *observer) ObserveFsync(_ string, d time.Duration, _ int) {
	o.mu.Lock()
	o.fsyncs = append(o.fsyncs, d)
	o.mu.Unlock()
}

func (o *observer) ObserveQueueDepth(_ string, n int) {
	o.mu.Lock()
	o.depth = append(o.depth, n)
	o.mu.Unlock()
}

func TestObserver(t *testing.T) {
	o := &observer{}
	l, _ := openLog(t, Options{Observer: o})
	appendN(t, l, "vm1", 3)
	l.Close()
	sort.Ints(o.depth)
	if len(o.fsyncs) != 3 || !cmp.Equal(o.depth, []int{1, 1, 1}) {
		t.Errorf("observed %d fsyncs and depths %v, want 3 and [1 1 1] for sequential appends", len(o.fsyncs), o.depth)
	}
}
