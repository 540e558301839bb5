package audit

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// TestSealMatchesMarshal checks that the writer's splice (preencode in the caller, seal in the writer) gives
// the same line and hash as encoding the whole record, for records from empty to every field set.
func TestSealMatchesMarshal(t *testing.T) {
	full := clickRecord("vm1", "s", 3)
	full.Time = timestamppb.Now()
	full.IntentSeq, full.Code, full.Reason, full.DurationUs = 9, "FAILED_PRECONDITION", "CONTROL_HELD", -1
	full.Args.Fields["weird"] = structpb.NewStringValue("\"quotes\" \\ \n \u2028 <&> é 漢字 🙂")
	full.Args.Fields["n"] = structpb.NewNumberValue(math.Pi)
	full.RequestId, full.RequestHash, full.ReplayOf, full.Source = "r-1", strings.Repeat("b", 64), 7, brokerv1.AuditSource_AUDIT_SOURCE_HUMAN
	full.Response = &structpb.Struct{Fields: map[string]*structpb.Value{"effect": structpb.NewStringValue("EFFECT_DONE")}}
	tests := []struct {
		name string
		rec  *brokerv1.AuditRecord
		seq  uint64
		prev string
	}{
		{"empty first", &brokerv1.AuditRecord{}, 1, ""},
		{"guest only", &brokerv1.AuditRecord{Guest: "g"}, 2, strings.Repeat("a", 64)},
		{"every field", full, math.MaxUint64, strings.Repeat("f", 64)},
		{"empty target", &brokerv1.AuditRecord{Guest: "g", Target: &agentv1.FrozenTarget{}, Args: &structpb.Struct{}}, 300, "x"},
		{"only fields after hash, first", &brokerv1.AuditRecord{RequestId: "r", ReplayOf: 3}, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := proto.Clone(tt.rec).(*brokerv1.AuditRecord)
			enc, err := preencode(rec)
			if err != nil {
				t.Fatal(err)
			}
			line, _ := seal(nil, nil, rec, enc, tt.seq, tt.prev)

			want := proto.Clone(tt.rec).(*brokerv1.AuditRecord)
			want.Seq, want.PrevHash, want.Hash = tt.seq, tt.prev, ""
			h, err := hashUnsealed(want, nil)
			if err != nil {
				t.Fatal(err)
			}
			want.Hash = h
			wantLine, err := appendLine(nil, want)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(wantLine), string(line)); diff != "" {
				t.Errorf("line (-marshal +seal):\n%s", diff)
			}
			if rec.GetHash() != h {
				t.Errorf("seal hash %s, marshal hash %s", rec.GetHash(), h)
			}
			back, err := parseLine(line[:len(line)-1])
			if err != nil || !VerifyRecord(back) {
				t.Errorf("sealed line does not parse and verify: %v", err)
			}
		})
	}
}

func TestAppendRefusesInvalidUTF8(t *testing.T) {
	l, _ := openLog(t, Options{})
	rec := clickRecord("vm1", "s", 0)
	rec.Principal = "\xff"
	if _, err := l.Append(t.Context(), rec); err == nil {
		t.Fatal("Append accepted a record with invalid UTF-8")
	}
	if seq, err := l.Append(t.Context(), clickRecord("vm1", "s", 0)); err != nil || seq != 1 {
		t.Errorf("next Append: seq %d, %v; want 1 (the refused record takes no seq)", seq, err)
	}
}
