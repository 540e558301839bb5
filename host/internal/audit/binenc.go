package audit

import (
	"maps"
	"math"
	"slices"
	"unicode/utf8"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/structpb"
)

// The hashed encoding: deterministic binary protobuf of an AuditRecord written straight from the Go struct,
// byte for byte what proto.MarshalOptions{Deterministic: true} gives (TestRecordBinaryMatchesMarshal checks
// it on many records). proto's deterministic marshal sorts the args map by reflection and allocated about a
// sixth of the broker's garbage under load. Like appendRecordJSON it gives up (the caller then uses proto)
// on whatever it is not sure to encode exactly so: invalid UTF-8, unknown fields, a Value without a kind, a
// nil entry; and it is off when the record's shape changed (fastJSON).

// appendRecordBinary appends rec's deterministic binary encoding, or reports false.
func appendRecordBinary(dst []byte, rec *brokerv1.AuditRecord) ([]byte, bool) {
	if !fastJSON || len(rec.ProtoReflect().GetUnknown()) > 0 {
		return dst, false
	}
	w := binWriter{b: dst, ok: true}
	w.uint(1, rec.Seq)
	w.str(2, rec.Guest)
	if t := rec.Time; t != nil {
		if len(t.ProtoReflect().GetUnknown()) > 0 {
			return dst, false
		}
		start := w.begin(3)
		w.uint(1, uint64(t.Seconds))
		w.uint(2, uint64(int64(t.Nanos)))
		w.end(start)
	}
	w.uint(4, uint64(int64(rec.Phase)))
	w.uint(5, rec.IntentSeq)
	w.str(6, rec.Rpc)
	w.str(7, rec.SessionId)
	w.str(8, rec.Principal)
	if t := rec.Target; t != nil {
		if len(t.ProtoReflect().GetUnknown()) > 0 {
			return dst, false
		}
		start := w.begin(9)
		w.str(1, t.DisplayId)
		w.uint(2, uint64(t.WindowId))
		w.str(3, t.WindowTitle)
		w.uint(4, uint64(int64(t.Source)))
		w.uint(5, t.Generation)
		w.str(6, t.AppId)
		w.str(7, t.SnapshotId)
		w.str(8, t.BrowserId)
		w.str(9, t.TabId)
		w.str(10, t.ElementRef)
		w.end(start)
	}
	if rec.Args != nil {
		start := w.begin(10)
		w.structFields(rec.Args)
		w.end(start)
	}
	w.str(11, rec.Code)
	w.str(12, rec.Reason)
	w.uint(13, uint64(rec.DurationUs))
	w.str(14, rec.PrevHash)
	w.str(15, rec.Hash)
	w.str(16, rec.RequestId)
	w.str(17, rec.RequestHash)
	w.uint(18, rec.ReplayOf)
	if rec.Response != nil {
		start := w.begin(19)
		w.structFields(rec.Response)
		w.end(start)
	}
	w.uint(20, uint64(int64(rec.Source)))
	return w.b, w.ok
}

// binWriter appends protobuf fields; ok turns false at the first value proto might encode differently.
type binWriter struct {
	b  []byte
	ok bool
}

// uint writes a proto3 varint field (omitted when zero). Signed values come sign-extended to 64 bits, as
// proto encodes int32, int64 and enums.
func (w *binWriter) uint(num protowire.Number, v uint64) {
	if v == 0 {
		return
	}
	w.b = protowire.AppendTag(w.b, num, protowire.VarintType)
	w.b = protowire.AppendVarint(w.b, v)
}

// str writes a proto3 string field (omitted when empty).
func (w *binWriter) str(num protowire.Number, s string) {
	if s == "" {
		return
	}
	w.always(num, s)
}

// always writes a string field even when empty (map keys, oneof members).
func (w *binWriter) always(num protowire.Number, s string) {
	if !utf8.ValidString(s) {
		w.ok = false
		return
	}
	w.b = protowire.AppendTag(w.b, num, protowire.BytesType)
	w.b = protowire.AppendString(w.b, s)
}

// begin starts a length-delimited field, reserving one byte for its length; end writes the length.
func (w *binWriter) begin(num protowire.Number) int {
	w.b = protowire.AppendTag(w.b, num, protowire.BytesType)
	w.b = append(w.b, 0)
	return len(w.b)
}

// end sets the length of the field begin started at start, moving its content when the length needs more
// than the byte reserved.
func (w *binWriter) end(start int) {
	n := len(w.b) - start
	k := protowire.SizeVarint(uint64(n))
	for range k - 1 {
		w.b = append(w.b, 0)
	}
	if k > 1 {
		copy(w.b[start+k-1:], w.b[start:start+n])
	}
	protowire.AppendVarint(w.b[start-1:start-1], uint64(n))
}

// structFields writes a google.protobuf.Struct's fields: map entries {1: key, 2: value} sorted by key, as
// deterministic marshalling orders them.
func (w *binWriter) structFields(s *structpb.Struct) {
	if len(s.ProtoReflect().GetUnknown()) > 0 {
		w.ok = false
		return
	}
	keys := slices.Sorted(maps.Keys(s.Fields))
	for _, k := range keys {
		entry := w.begin(1)
		w.always(1, k)
		v := w.begin(2)
		w.value(s.Fields[k])
		w.end(v)
		w.end(entry)
		if !w.ok {
			return
		}
	}
}

// value writes a google.protobuf.Value's fields: its one kind, written even when zero.
func (w *binWriter) value(v *structpb.Value) {
	if v == nil || len(v.ProtoReflect().GetUnknown()) > 0 {
		w.ok = false
		return
	}
	switch k := v.Kind.(type) {
	case *structpb.Value_NullValue:
		w.b = protowire.AppendTag(w.b, 1, protowire.VarintType)
		w.b = protowire.AppendVarint(w.b, uint64(int64(k.NullValue)))
	case *structpb.Value_NumberValue:
		w.b = protowire.AppendTag(w.b, 2, protowire.Fixed64Type)
		w.b = protowire.AppendFixed64(w.b, math.Float64bits(k.NumberValue))
	case *structpb.Value_StringValue:
		w.always(3, k.StringValue)
	case *structpb.Value_BoolValue:
		w.b = protowire.AppendTag(w.b, 4, protowire.VarintType)
		w.b = protowire.AppendVarint(w.b, protowire.EncodeBool(k.BoolValue))
	case *structpb.Value_StructValue:
		if k.StructValue == nil {
			w.ok = false
			return
		}
		start := w.begin(5)
		w.structFields(k.StructValue)
		w.end(start)
	case *structpb.Value_ListValue:
		l := k.ListValue
		if l == nil || len(l.ProtoReflect().GetUnknown()) > 0 {
			w.ok = false
			return
		}
		start := w.begin(6)
		for _, e := range l.Values {
			es := w.begin(1)
			w.value(e)
			w.end(es)
			if !w.ok {
				return
			}
		}
		w.end(start)
	default:
		w.ok = false
	}
}
