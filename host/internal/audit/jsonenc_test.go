package audit

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// protojsonLine is the reference: protojson with proto names, compacted.
func protojsonLine(t *testing.T, rec *brokerv1.AuditRecord) (string, error) {
	t.Helper()
	b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(rec)
	if err != nil {
		return "", err
	}
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		t.Fatal(err)
	}
	return c.String(), nil
}

// TestRecordJSONShape fails when AuditRecord or FrozenTarget changed shape: appendRecordJSON is then off (every
// record goes through protojson, correct but slow) until it learns the new fields.
func TestRecordJSONShape(t *testing.T) {
	if !fastJSON {
		t.Fatal("AuditRecord or FrozenTarget changed: teach appendRecordJSON the new fields and update the shapes in jsonenc.go")
	}
}

// TestRecordJSONMatchesProtojson encodes many random records, with every field and odd values (escapes,
// non-ASCII, unknown enum numbers, nested structs and lists, numbers of every size), with appendRecordJSON
// and with protojson, and wants the same bytes.
func TestRecordJSONMatchesProtojson(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	fast := 0
	for i := range n {
		rec := randomRecord(r)
		want, werr := protojsonLine(t, rec)
		got, ok := appendRecordJSON([]byte{'{'}, rec)
		if !ok {
			continue
		}
		fast++
		if werr != nil {
			t.Fatalf("record %d: appendRecordJSON encoded a record protojson refuses (%v): %s", i, werr, got)
		}
		if diff := cmp.Diff(want, string(got)+"}"); diff != "" {
			t.Fatalf("record %d (-protojson +appendRecordJSON):\n%s", i, diff)
		}
		line, err := appendLine([]byte("x"), rec)
		if err != nil || string(line) != "x"+want+"\n" {
			t.Fatalf("record %d: appendLine = %q, %v; want %q", i, line, err, want)
		}
	}
	if fast < n*9/10 {
		t.Errorf("appendRecordJSON encoded only %d of %d random records", fast, n)
	}
}

// TestRecordJSONGivesUp checks that what protojson refuses or might encode otherwise is left to protojson,
// and that appendLine then behaves as protojson does.
func TestRecordJSONGivesUp(t *testing.T) {
	withArg := func(v *structpb.Value) *brokerv1.AuditRecord {
		return &brokerv1.AuditRecord{Guest: "g", Args: &structpb.Struct{Fields: map[string]*structpb.Value{"a": v}}}
	}
	tests := []struct {
		name string
		rec  *brokerv1.AuditRecord
	}{
		{"invalid utf8 string", &brokerv1.AuditRecord{Principal: "a\xffb"}},
		{"invalid utf8 in args", withArg(structpb.NewStringValue("\xc3"))},
		{"invalid utf8 key", &brokerv1.AuditRecord{Args: &structpb.Struct{Fields: map[string]*structpb.Value{"\xff": structpb.NewNullValue()}}}},
		{"NaN", withArg(structpb.NewNumberValue(math.NaN()))},
		{"infinity", withArg(structpb.NewNumberValue(math.Inf(-1)))},
		{"value without kind", withArg(&structpb.Value{})},
		{"nil value", withArg(nil)},
		{"nil list", withArg(&structpb.Value{Kind: &structpb.Value_ListValue{}})},
		{"nil struct", withArg(&structpb.Value{Kind: &structpb.Value_StructValue{}})},
		{"year 10000", &brokerv1.AuditRecord{Time: &timestamppb.Timestamp{Seconds: maxTimestampSeconds + 1}}},
		{"negative nanos", &brokerv1.AuditRecord{Time: &timestamppb.Timestamp{Seconds: 5, Nanos: -1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, ok := appendRecordJSON(nil, tt.rec); ok {
				t.Fatalf("appendRecordJSON encoded it: %s", got)
			}
			want, werr := protojsonLine(t, tt.rec)
			line, err := appendLine(nil, tt.rec)
			if (err != nil) != (werr != nil) || (err == nil && string(line) != want+"\n") {
				t.Errorf("appendLine = %q, %v; protojson %q, %v", line, err, want, werr)
			}
		})
	}
}

// randomRecord sets each field of a record with probability 3/4 to a random, often awkward, value.
func randomRecord(r *rand.Rand) *brokerv1.AuditRecord {
	maybe := func() bool { return r.IntN(4) != 0 }
	rec := &brokerv1.AuditRecord{}
	if maybe() {
		rec.Seq = randomUint(r)
	}
	if maybe() {
		rec.Guest = randomString(r)
	}
	if maybe() {
		rec.Time = randomTime(r)
	}
	if maybe() {
		rec.Phase = brokerv1.AuditPhase(r.IntN(6) - 1)
	}
	if maybe() {
		rec.IntentSeq = randomUint(r)
	}
	if maybe() {
		rec.Rpc = randomString(r)
	}
	if maybe() {
		rec.SessionId = randomString(r)
	}
	if maybe() {
		rec.Principal = randomString(r)
	}
	if maybe() {
		t := &agentv1.FrozenTarget{}
		if maybe() {
			t.DisplayId = randomString(r)
		}
		if maybe() {
			t.WindowId = r.Uint32() >> r.IntN(32)
		}
		if maybe() {
			t.WindowTitle = randomString(r)
		}
		if maybe() {
			t.Source = agentv1.TargetSource(r.IntN(7) - 1)
		}
		if maybe() {
			t.Generation = randomUint(r)
		}
		for _, s := range []*string{&t.AppId, &t.SnapshotId, &t.BrowserId, &t.TabId, &t.ElementRef} {
			if r.IntN(3) == 0 {
				*s = randomString(r)
			}
		}
		rec.Target = t
	}
	if maybe() {
		rec.Args = randomStruct(r, 3)
	}
	if maybe() {
		rec.Code = randomString(r)
	}
	if maybe() {
		rec.Reason = randomString(r)
	}
	if maybe() {
		rec.DurationUs = int64(randomUint(r))
	}
	if maybe() {
		rec.PrevHash = randomString(r)
	}
	if maybe() {
		rec.Hash = randomString(r)
	}
	if maybe() {
		rec.RequestId = randomString(r)
	}
	if maybe() {
		rec.RequestHash = randomString(r)
	}
	if maybe() {
		rec.ReplayOf = randomUint(r)
	}
	if maybe() {
		rec.Response = randomStruct(r, 3)
	}
	return rec
}

func randomUint(r *rand.Rand) uint64 { return r.Uint64() >> r.IntN(64) }

func randomTime(r *rand.Rand) *timestamppb.Timestamp {
	secs := r.Int64N(maxTimestampSeconds-minTimestampSeconds+1) + minTimestampSeconds
	if r.IntN(2) == 0 {
		secs = 1_700_000_000 + r.Int64N(1e8)
	}
	nanos := r.Int32N(1e9)
	switch r.IntN(4) {
	case 0:
		nanos = 0
	case 1:
		nanos -= nanos % 1e6
	case 2:
		nanos -= nanos % 1e3
	}
	return &timestamppb.Timestamp{Seconds: secs, Nanos: nanos}
}

// pieces are the awkward parts random strings are made of.
var pieces = []string{
	"a", "Z", "0", " ", "click", "\"", "\\", "/", "\n", "\r", "\t", "\b", "\f", "\x00", "\x01", "\x1f", "\x7f",
	"<", ">", "&", "é", "漢字", "🙂", "\u2028", "\u2029", "\ufffd", "\ufeff", "'", "{", "}", ":", ",",
}

func randomString(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(12) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func randomStruct(r *rand.Rand, depth int) *structpb.Struct {
	s := &structpb.Struct{Fields: map[string]*structpb.Value{}}
	for range r.IntN(6) {
		s.Fields[randomString(r)] = randomValue(r, depth)
	}
	return s
}

func randomValue(r *rand.Rand, depth int) *structpb.Value {
	kinds := 4
	if depth > 0 {
		kinds = 6
	}
	switch r.IntN(kinds) {
	case 0:
		return structpb.NewNullValue()
	case 1:
		return structpb.NewBoolValue(r.IntN(2) == 0)
	case 2:
		return structpb.NewStringValue(randomString(r))
	case 3:
		return structpb.NewNumberValue(randomNumber(r))
	case 4:
		return structpb.NewStructValue(randomStruct(r, depth-1))
	default:
		l := &structpb.ListValue{}
		for range r.IntN(5) {
			l.Values = append(l.Values, randomValue(r, depth-1))
		}
		return structpb.NewListValue(l)
	}
}

func randomNumber(r *rand.Rand) float64 {
	switch r.IntN(8) {
	case 0:
		return float64(r.IntN(1000))
	case 1:
		return float64(r.Int64()) * float64(1-2*r.IntN(2))
	case 2:
		return r.Float64()
	case 3:
		return math.Copysign(0, -1)
	case 4:
		return r.NormFloat64() * 1e-7
	case 5:
		return r.NormFloat64() * 1e22
	case 6:
		return []float64{1e21, 1e-6, 999999999999999999999, 1e-7, 5e-324, math.MaxFloat64, 1e20, 123456789.125}[r.IntN(8)]
	default:
		return math.Float64frombits(r.Uint64())
	}
}

// BenchmarkRecordLine encodes a click's audit record as a line: glovebox-click is appendLine (appendRecordJSON),
// the peer protojson-click the protojson marshal and compaction it replaced.
func BenchmarkRecordLine(b *testing.B) {
	rec := clickRecord("vm1", "s", 7)
	rec.Time = timestamppb.Now()
	rec.Target = &agentv1.FrozenTarget{WindowId: 0x400007, Source: agentv1.TargetSource_TARGET_SOURCE_ACTIVE, Generation: 3}
	b.Run("glovebox-click", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf, _ = appendLine(buf[:0], rec)
		}
	})
	b.Run("protojson-click", func(b *testing.B) {
		for b.Loop() {
			line, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(rec)
			if err != nil {
				b.Fatal(err)
			}
			var c bytes.Buffer
			json.Compact(&c, line)
		}
	})
}

// TestRecordBinaryMatchesMarshal is TestRecordJSONMatchesProtojson for the hashed encoding: appendRecordBinary
// against deterministic proto.Marshal.
func TestRecordBinaryMatchesMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	fast := 0
	for i := range n {
		rec := randomRecord(r)
		want, werr := proto.MarshalOptions{Deterministic: true}.Marshal(rec)
		got, ok := appendRecordBinary([]byte("x"), rec)
		if !ok {
			continue
		}
		fast++
		if werr != nil {
			t.Fatalf("record %d: appendRecordBinary encoded a record proto refuses (%v)", i, werr)
		}
		if !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Fatalf("record %d: appendRecordBinary\n%x\nproto.Marshal\n%x", i, got[1:], want)
		}
	}
	if fast < n*9/10 {
		t.Errorf("appendRecordBinary encoded only %d of %d random records", fast, n)
	}
}

// TestRecordBinaryGivesUp checks that what proto refuses or might encode otherwise is left to proto.
func TestRecordBinaryGivesUp(t *testing.T) {
	withArg := func(v *structpb.Value) *brokerv1.AuditRecord {
		return &brokerv1.AuditRecord{Guest: "g", Args: &structpb.Struct{Fields: map[string]*structpb.Value{"a": v}}}
	}
	unknown := &brokerv1.AuditRecord{Guest: "g"}
	unknown.ProtoReflect().SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 99, protowire.VarintType), 1))
	for name, rec := range map[string]*brokerv1.AuditRecord{
		"invalid utf8 string":  {Principal: "a\xffb"},
		"invalid utf8 in args": withArg(structpb.NewStringValue("\xc3")),
		"invalid utf8 key":     {Args: &structpb.Struct{Fields: map[string]*structpb.Value{"\xff": structpb.NewNullValue()}}},
		"value without kind":   withArg(&structpb.Value{}),
		"nil value":            withArg(nil),
		"nil list":             withArg(&structpb.Value{Kind: &structpb.Value_ListValue{}}),
		"nil struct":           withArg(&structpb.Value{Kind: &structpb.Value_StructValue{}}),
		"unknown field":        unknown,
	} {
		if got, ok := appendRecordBinary(nil, rec); ok {
			t.Errorf("%s: appendRecordBinary encoded it: %x", name, got)
		}
	}
}

// TestRecordBinaryLongFields covers lengths that need more than one varint byte, at every nesting level.
func TestRecordBinaryLongFields(t *testing.T) {
	long := strings.Repeat("é", 100)
	rec := &brokerv1.AuditRecord{Guest: long, Target: &agentv1.FrozenTarget{WindowTitle: long + long}, Args: &structpb.Struct{
		Fields: map[string]*structpb.Value{long: structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{
			structpb.NewStringValue(strings.Repeat(long, 200)),
			structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"k": structpb.NewStringValue(long)}}),
		}})},
	}}
	want, err := proto.MarshalOptions{Deterministic: true}.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := appendRecordBinary(nil, rec)
	if !ok || !bytes.Equal(got, want) {
		t.Errorf("appendRecordBinary = %v, %x\nwant %x", ok, got, want)
	}
}

// BenchmarkRecordBinary encodes a click's audit record for hashing: glovebox-click is appendRecordBinary, the
// peer proto-click the deterministic proto.Marshal it replaced.
func BenchmarkRecordBinary(b *testing.B) {
	rec := clickRecord("vm1", "s", 7)
	rec.Time = timestamppb.Now()
	rec.Target = &agentv1.FrozenTarget{WindowId: 0x400007, Source: agentv1.TargetSource_TARGET_SOURCE_ACTIVE, Generation: 3}
	b.Run("glovebox-click", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf, _ = appendRecordBinary(buf[:0], rec)
		}
	})
	b.Run("proto-click", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			var err error
			if buf, err = (proto.MarshalOptions{Deterministic: true}).MarshalAppend(buf[:0], rec); err != nil {
				b.Fatal(err)
			}
		}
	})
}
