package audit

import (
	"maps"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
)

// The audit line encoder: compact protojson (UseProtoNames) of an AuditRecord written straight from the Go
// struct, byte for byte what protojson.Marshal followed by json.Compact gives (TestRecordJSONMatchesProtojson
// checks it on many records). protojson walks the record by reflection and was about a quarter of the
// broker's CPU under load. Whatever the encoder is not sure to encode exactly as protojson does (invalid
// UTF-8, a Value without a kind, NaN, a timestamp out of range, a nil entry) makes it give up, and the caller
// falls back to protojson, which then encodes it or fails as before.

// fastJSON is whether the records' shape is the one recordJSON was written for: a field added to
// AuditRecord or FrozenTarget turns the encoder off (every record then goes through protojson) rather than
// leaving the field out, and TestRecordJSONShape fails so the encoder gets the field too.
var fastJSON = shapeIs((&brokerv1.AuditRecord{}).ProtoReflect().Descriptor(),
	"seq:uint64 guest:string time:message phase:enum intent_seq:uint64 rpc:string session_id:string "+
		"principal:string target:message args:message code:string reason:string duration_us:int64 "+
		"prev_hash:string hash:string request_id:string request_hash:string replay_of:uint64 response:message "+
		"source:enum") &&
	shapeIs((&agentv1.FrozenTarget{}).ProtoReflect().Descriptor(),
		"display_id:string window_id:uint32 window_title:string source:enum generation:uint64 app_id:string "+
			"snapshot_id:string browser_id:string tab_id:string element_ref:string")

// shapeIs reports whether md's fields, in declaration order and numbered from 1 without gaps, are the
// space-separated name:kind list want, with no oneofs, lists, maps or explicit presence on scalars.
func shapeIs(md protoreflect.MessageDescriptor, want string) bool {
	var got []byte
	fds := md.Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		if fd.Number() != protoreflect.FieldNumber(i+1) || fd.IsList() || fd.IsMap() || fd.ContainingOneof() != nil ||
			(fd.HasPresence() && fd.Kind() != protoreflect.MessageKind) {
			return false
		}
		if i > 0 {
			got = append(got, ' ')
		}
		got = append(got, fd.TextName()...)
		got = append(got, ':')
		got = append(got, fd.Kind().String()...)
	}
	return string(got) == want && md.Oneofs().Len() == 0
}

// appendRecordJSON appends rec's fields as compact protojson without the enclosing braces, or reports
// false (dst's contents beyond its length then undefined) when the caller must use protojson.
func appendRecordJSON(dst []byte, rec *brokerv1.AuditRecord) ([]byte, bool) {
	if !fastJSON {
		return dst, false
	}
	w := jsonWriter{out: dst, ok: true, first: true}
	w.uint64String("seq", rec.Seq)
	w.str("guest", rec.Guest)
	if rec.Time != nil {
		w.name("time")
		w.timestamp(rec.Time.GetSeconds(), rec.Time.GetNanos())
	}
	w.enum("phase", int32(rec.Phase), brokerv1.AuditPhase_name)
	w.uint64String("intent_seq", rec.IntentSeq)
	w.str("rpc", rec.Rpc)
	w.str("session_id", rec.SessionId)
	w.str("principal", rec.Principal)
	if t := rec.Target; t != nil {
		w.name("target")
		w.object(func() {
			w.str("display_id", t.DisplayId)
			if t.WindowId != 0 {
				w.name("window_id")
				w.out = strconv.AppendUint(w.out, uint64(t.WindowId), 10)
			}
			w.str("window_title", t.WindowTitle)
			w.enum("source", int32(t.Source), agentv1.TargetSource_name)
			w.uint64String("generation", t.Generation)
			w.str("app_id", t.AppId)
			w.str("snapshot_id", t.SnapshotId)
			w.str("browser_id", t.BrowserId)
			w.str("tab_id", t.TabId)
			w.str("element_ref", t.ElementRef)
		})
	}
	if rec.Args != nil {
		w.name("args")
		w.structValue(rec.Args)
	}
	w.str("code", rec.Code)
	w.str("reason", rec.Reason)
	if rec.DurationUs != 0 {
		w.name("duration_us")
		w.out = append(w.out, '"')
		w.out = strconv.AppendInt(w.out, rec.DurationUs, 10)
		w.out = append(w.out, '"')
	}
	w.str("prev_hash", rec.PrevHash)
	w.str("hash", rec.Hash)
	w.str("request_id", rec.RequestId)
	w.str("request_hash", rec.RequestHash)
	w.uint64String("replay_of", rec.ReplayOf)
	if rec.Response != nil {
		w.name("response")
		w.structValue(rec.Response)
	}
	w.enum("source", int32(rec.Source), brokerv1.AuditSource_name)
	return w.out, w.ok
}

// jsonWriter writes JSON object members; first is set while the object being written has none yet (so the
// next gets no comma). ok turns false at the first value protojson might encode differently.
type jsonWriter struct {
	out   []byte
	ok    bool
	first bool
}

// name starts a member: its comma (unless first) and quoted name (a field name: plain ASCII).
func (w *jsonWriter) name(n string) {
	if !w.first {
		w.out = append(w.out, ',')
	}
	w.first = false
	w.out = append(w.out, '"')
	w.out = append(w.out, n...)
	w.out = append(w.out, '"', ':')
}

// object writes {members}.
func (w *jsonWriter) object(members func()) {
	w.out = append(w.out, '{')
	w.first = true
	members()
	w.first = false
	w.out = append(w.out, '}')
}

// str writes a proto3 string field (omitted when empty).
func (w *jsonWriter) str(n, s string) {
	if s == "" {
		return
	}
	w.name(n)
	w.string(s)
}

// uint64String writes a proto3 64-bit field, which protojson quotes (omitted when zero).
func (w *jsonWriter) uint64String(n string, v uint64) {
	if v == 0 {
		return
	}
	w.name(n)
	w.out = append(w.out, '"')
	w.out = strconv.AppendUint(w.out, v, 10)
	w.out = append(w.out, '"')
}

// enum writes a proto3 enum field by its value name, or its number when the value is unknown (omitted when
// zero).
func (w *jsonWriter) enum(n string, v int32, names map[int32]string) {
	if v == 0 {
		return
	}
	w.name(n)
	if s, ok := names[v]; ok {
		w.string(s)
		return
	}
	w.out = strconv.AppendInt(w.out, int64(v), 10)
}

// Timestamp bounds protojson accepts (0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z).
const (
	minTimestampSeconds = -62135596800
	maxTimestampSeconds = 253402300799
)

// timestamp writes RFC 3339 in UTC with 0, 3, 6 or 9 fractional digits, as protojson does.
func (w *jsonWriter) timestamp(secs int64, nanos int32) {
	if secs < minTimestampSeconds || secs > maxTimestampSeconds || nanos < 0 || nanos >= 1e9 {
		w.ok = false
		return
	}
	w.out = append(w.out, '"')
	w.out = time.Unix(secs, 0).UTC().AppendFormat(w.out, "2006-01-02T15:04:05")
	if nanos != 0 {
		var frac [10]byte
		b := strconv.AppendInt(frac[:0], int64(nanos)+1e9, 10) // "1" and nine digits
		digits := b[1:]
		switch {
		case nanos%1e6 == 0:
			digits = digits[:3]
		case nanos%1e3 == 0:
			digits = digits[:6]
		}
		w.out = append(w.out, '.')
		w.out = append(w.out, digits...)
	}
	w.out = append(w.out, 'Z', '"')
}

// structValue writes a google.protobuf.Struct: its fields sorted by key.
func (w *jsonWriter) structValue(s *structpb.Struct) {
	if s == nil {
		w.ok = false
		return
	}
	keys := slices.Sorted(maps.Keys(s.Fields))
	w.out = append(w.out, '{')
	for i, k := range keys {
		if i > 0 {
			w.out = append(w.out, ',')
		}
		w.string(k)
		w.out = append(w.out, ':')
		w.value(s.Fields[k])
		if !w.ok {
			return
		}
	}
	w.out = append(w.out, '}')
}

// value writes a google.protobuf.Value.
func (w *jsonWriter) value(v *structpb.Value) {
	if v == nil {
		w.ok = false
		return
	}
	switch k := v.Kind.(type) {
	case *structpb.Value_NullValue:
		w.out = append(w.out, "null"...)
	case *structpb.Value_NumberValue:
		w.number(k.NumberValue)
	case *structpb.Value_StringValue:
		w.string(k.StringValue)
	case *structpb.Value_BoolValue:
		w.out = strconv.AppendBool(w.out, k.BoolValue)
	case *structpb.Value_StructValue:
		w.structValue(k.StructValue)
	case *structpb.Value_ListValue:
		if k.ListValue == nil {
			w.ok = false
			return
		}
		w.out = append(w.out, '[')
		for i, e := range k.ListValue.Values {
			if i > 0 {
				w.out = append(w.out, ',')
			}
			w.value(e)
			if !w.ok {
				return
			}
		}
		w.out = append(w.out, ']')
	default:
		w.ok = false // no kind: protojson refuses it
	}
}

// number writes a double as protojson does (encoding/json's format); NaN and infinities, which protojson
// refuses in a Value, give up.
func (w *jsonWriter) number(n float64) {
	if math.IsNaN(n) || math.IsInf(n, 0) {
		w.ok = false
		return
	}
	f := byte('f')
	if abs := math.Abs(n); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		f = 'e'
	}
	w.out = strconv.AppendFloat(w.out, n, f, -1, 64)
	if f == 'e' {
		// Clean up e-09 to e-9.
		if n := len(w.out); n >= 4 && w.out[n-4] == 'e' && w.out[n-3] == '-' && w.out[n-2] == '0' {
			w.out[n-2] = w.out[n-1]
			w.out = w.out[:n-1]
		}
	}
}

// string writes s quoted and escaped as protojson does: '"', '\\' and control characters only (\b \f \n
// \r \t, else \u00XX); invalid UTF-8 gives up.
func (w *jsonWriter) string(s string) {
	w.out = append(w.out, '"')
	for len(s) > 0 {
		i := 0
		for i < len(s) {
			c := s[i]
			if c < utf8.RuneSelf {
				if c < ' ' || c == '"' || c == '\\' {
					break
				}
				i++
				continue
			}
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				w.ok = false
				return
			}
			i += n
		}
		w.out = append(w.out, s[:i]...)
		if i == len(s) {
			break
		}
		c := s[i]
		w.out = append(w.out, '\\')
		switch c {
		case '"', '\\':
			w.out = append(w.out, c)
		case '\b':
			w.out = append(w.out, 'b')
		case '\f':
			w.out = append(w.out, 'f')
		case '\n':
			w.out = append(w.out, 'n')
		case '\r':
			w.out = append(w.out, 'r')
		case '\t':
			w.out = append(w.out, 't')
		default:
			w.out = append(w.out, 'u')
			w.out = append(w.out, "0000"[1+(bits.Len32(uint32(c))-1)/4:]...)
			w.out = strconv.AppendUint(w.out, uint64(c), 16)
		}
		s = s[i+1:]
	}
	w.out = append(w.out, '"')
}
