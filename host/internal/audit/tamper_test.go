package audit

import (
	"bytes"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// writeLines rewrites the files of pos with lines (same order).
func writeLines(t testing.TB, pos []Position, lines [][]byte) {
	t.Helper()
	var es []entry
	for i, p := range pos {
		es = append(es, entry{p.File, lines[i]})
	}
	writeEntries(t, es, nil)
}

// entry is one line of a log file, for tampering.
type entry struct {
	file string
	data []byte
}

// writeEntries rewrites every file in files (empty when no entry is left for it) and those of es.
func writeEntries(t testing.TB, es []entry, files []string) {
	t.Helper()
	content := map[string][]byte{}
	for _, f := range files {
		content[f] = nil
	}
	for _, e := range es {
		content[e.file] = append(content[e.file], e.data...)
	}
	for f, b := range content {
		if err := os.WriteFile(f, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// editLine re-encodes one line with edit applied, keeping its hash as it was.
func editLine(t testing.TB, line []byte, edit func(*brokerv1.AuditRecord)) []byte {
	t.Helper()
	rec, err := parseLine(bytes.TrimSuffix(line, []byte("\n")))
	if err != nil {
		t.Fatal(err)
	}
	edit(rec)
	out, err := appendLine(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestVerifyFindsTampering(t *testing.T) {
	const n, k = 12, 6 // tamper with seq 6, in the middle of a middle file; i is its index
	const i = k - 1
	type want struct {
		seq  uint64
		kind ProblemKind
		only bool // every problem is at the tampered record
	}
	edit := func(f func(*brokerv1.AuditRecord)) func([]entry) []entry {
		return func(es []entry) []entry {
			es[i].data = editLine(t, es[i].data, f)
			return es
		}
	}
	tests := []struct {
		name   string
		tamper func([]entry) []entry
		want   want
	}{
		{"edit principal", edit(func(r *brokerv1.AuditRecord) { r.Principal = "uid:0" }), want{k, ProblemHashMismatch, true}},
		{"edit session", edit(func(r *brokerv1.AuditRecord) { r.SessionId = "other" }), want{k, ProblemHashMismatch, true}},
		{"edit time", edit(func(r *brokerv1.AuditRecord) { r.Time = timestamppb.New(r.Time.AsTime().Add(1)) }), want{k, ProblemHashMismatch, true}},
		{"edit phase", edit(func(r *brokerv1.AuditRecord) { r.Phase = brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE }), want{k, ProblemHashMismatch, true}},
		{"edit code", edit(func(r *brokerv1.AuditRecord) { r.Code = "OK" }), want{k, ProblemHashMismatch, true}},
		{"edit reason", edit(func(r *brokerv1.AuditRecord) { r.Reason = "X" }), want{k, ProblemHashMismatch, true}},
		{"edit rpc", edit(func(r *brokerv1.AuditRecord) { r.Rpc = "/x" }), want{k, ProblemHashMismatch, true}},
		{"edit duration", edit(func(r *brokerv1.AuditRecord) { r.DurationUs = 1 }), want{k, ProblemHashMismatch, true}},
		{"edit intent_seq", edit(func(r *brokerv1.AuditRecord) { r.IntentSeq = 1 }), want{k, ProblemHashMismatch, true}},
		{"edit target", edit(func(r *brokerv1.AuditRecord) { r.Target.WindowId++ }), want{k, ProblemHashMismatch, true}},
		{"drop target", edit(func(r *brokerv1.AuditRecord) { r.Target = nil }), want{k, ProblemHashMismatch, true}},
		{"edit args", edit(func(r *brokerv1.AuditRecord) {
			r.Args.Fields["session_id"] = structpb.NewStringValue("x")
		}), want{k, ProblemHashMismatch, true}},
		{"edit guest", edit(func(r *brokerv1.AuditRecord) { r.Guest = "vm2" }), want{k, ProblemGuest, true}},
		{"edit hash", edit(func(r *brokerv1.AuditRecord) { r.Hash = r.PrevHash }), want{k, ProblemHashMismatch, false}},
		{"edit prev_hash", edit(func(r *brokerv1.AuditRecord) { r.PrevHash = r.Hash }), want{k, ProblemPrevHashMismatch, true}},
		{"edit seq", edit(func(r *brokerv1.AuditRecord) { r.Seq = 60 }), want{60, ProblemSeqGap, false}},
		{"delete record", func(es []entry) []entry { return append(es[:i:i], es[i+1:]...) }, want{k + 1, ProblemSeqGap, false}},
		{"reorder two", func(es []entry) []entry {
			es[i].data, es[i+1].data = es[i+1].data, es[i].data
			return es
		}, want{k + 1, ProblemSeqGap, false}},
		{"cut inside a line", func(es []entry) []entry {
			a, b := es[i].data, es[i+1].data
			es[i].data = append(a[:len(a)/2:len(a)/2], b[len(b)/2:]...)
			return append(es[:i+1:i+1], es[i+2:]...)
		}, want{}}, // the joined halves may or may not parse: only where it breaks is pinned
		{"truncate a middle file", func(es []entry) []entry {
			var out []entry
			for j, e := range es {
				switch {
				case j == i:
					e.data = e.data[:len(e.data)/2]
				case j > i && e.file == es[i].file:
					continue
				}
				out = append(out, e)
			}
			return out
		}, want{0, ProblemTornLine, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, dir := openLog(t, Options{RotateBytes: 2048})
			appendN(t, l, "vm1", n)
			l.Close()
			pos, lines := allLines(t, dir, "vm1")
			if pos[i].File == pos[0].File || pos[i].File == pos[n-1].File || pos[i].File != pos[i+1].File {
				t.Fatalf("test setup: seq %d and %d should be in a middle file: %v", k, k+1, pos)
			}
			var es []entry
			for j := range pos {
				es = append(es, entry{pos[j].File, lines[j]})
			}
			writeEntries(t, tt.tamper(es), files(t, dir, "vm1"))
			rep, err := Verify(dir, "vm1")
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK() {
				t.Fatal("Verify passed a tampered log")
			}
			p := rep.Problems[0]
			type where struct {
				Position
				Seq  uint64
				Kind ProblemKind
			}
			if tt.want.kind == "" {
				p.Seq, p.Kind = 0, ""
			}
			if diff := cmp.Diff(where{pos[i], tt.want.seq, tt.want.kind}, where{p.Position, p.Seq, p.Kind}); diff != "" {
				t.Errorf("first problem (-want +got):\n%s\nall: %v", diff, rep.Problems)
			}
			for _, q := range rep.Problems {
				if tt.want.only && q.Position != p.Position {
					t.Errorf("problem away from the tampered record: %v", q)
				}
			}
			if rep.Err() == nil {
				t.Error("Report.Err() is nil for a failing report")
			}
		})
	}
}

func TestVerifyRecord(t *testing.T) {
	rec := clickRecord("vm1", "s", 1)
	rec.Time = timestamppb.Now()
	h, err := Hash(rec)
	if err != nil {
		t.Fatal(err)
	}
	rec.Hash = h
	if !VerifyRecord(rec) {
		t.Error("VerifyRecord rejects a sealed record")
	}
	rec.Target = &agentv1.FrozenTarget{}
	if VerifyRecord(rec) {
		t.Error("VerifyRecord accepts an edited record")
	}
}
