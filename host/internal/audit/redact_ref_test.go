package audit

// The reference redaction: the first implementation, by a protojson round trip with replacements at
// recorded paths. Redact must give the same Struct (TestRedactMatchesProtojson).

import (
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
)

// Redact returns m as the Struct stored in AuditRecord.args: protojson with proto field names, where every
// text-like field (textFields, and any other string over maxClearString bytes not in safeFields, including
// inside Struct, Value and Any) is replaced by k.Text(value), and every bytes field is removed. m is not
// modified. A message protojson cannot encode (invalid UTF-8 in a field kept in clear) yields
// {"unencodable": "<message full name>"} rather than an error, so the request is still audited.
func redactViaJSON(k Key, m proto.Message) *structpb.Struct {
	if m == nil || !m.ProtoReflect().IsValid() {
		return &structpb.Struct{Fields: map[string]*structpb.Value{}}
	}
	c := proto.Clone(m)
	r := refRedactor{key: k}
	r.message(c.ProtoReflect(), nil)
	b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(c)
	st := &structpb.Struct{}
	if err == nil {
		err = protojson.Unmarshal(b, st)
	}
	if err != nil {
		return &structpb.Struct{Fields: map[string]*structpb.Value{
			"unencodable": structpb.NewStringValue(string(m.ProtoReflect().Descriptor().FullName())),
		}}
	}
	root := structpb.NewStructValue(st)
	for _, rp := range r.repl {
		refSetPath(root, rp.path, rp.v)
	}
	for _, p := range r.opaque {
		if v := refGetPath(root, p); v != nil {
			hashLongStrings(k, v)
		}
	}
	return st
}

// refPathElem is one step into the protojson form: a field or map key (string) or a list index.
type refPathElem struct {
	key   string
	index int
	isIdx bool
}

type refReplacement struct {
	path []refPathElem
	v    *structpb.Value
}

type refRedactor struct {
	key    Key
	repl   []refReplacement
	opaque [][]refPathElem
}

func refExtend(p []refPathElem, e refPathElem) []refPathElem {
	return append(p[:len(p):len(p)], e)
}

// message redacts msg in place: text-like strings become "" (their refReplacement recorded for the JSON form),
// bytes fields are cleared.
func (r *refRedactor) message(msg protoreflect.Message, path []refPathElem) {
	var clear []protoreflect.FieldDescriptor
	msg.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := string(fd.Name())
		if fd.IsExtension() {
			name = "[" + string(fd.FullName()) + "]"
		}
		fp := refExtend(path, refPathElem{key: name})
		switch {
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				ep := refExtend(fp, refPathElem{index: i, isIdx: true})
				if nv, ok := r.value(fd, l.Get(i), ep); ok {
					l.Set(i, nv)
				}
			}
			if fd.Kind() == protoreflect.BytesKind {
				clear = append(clear, fd)
			}
		case fd.IsMap():
			m := v.Map()
			vd := fd.MapValue()
			if vd.Kind() == protoreflect.BytesKind {
				clear = append(clear, fd)
				break
			}
			m.Range(func(mk protoreflect.MapKey, mv protoreflect.Value) bool {
				if nv, ok := r.value(vd, mv, refExtend(fp, refPathElem{key: mk.String()})); ok {
					m.Set(mk, nv)
				}
				return true
			})
		default:
			if fd.Kind() == protoreflect.BytesKind {
				clear = append(clear, fd)
				break
			}
			if nv, ok := r.value(fd, v, fp); ok {
				if fd.Kind() == protoreflect.StringKind {
					// Cleared rather than set to "" so the JSON field is absent until the refReplacement is set;
					// a cleared wrapper message is handled by value.
					clear = append(clear, fd)
				} else {
					msg.Set(fd, nv)
				}
			}
		}
		return true
	})
	for _, fd := range clear {
		msg.Clear(fd)
	}
}

// value redacts one singular value (a field, list element or map value) at path. It returns a refReplacement
// value and true when the value must change in the message.
func (r *refRedactor) value(fd protoreflect.FieldDescriptor, v protoreflect.Value, path []refPathElem) (protoreflect.Value, bool) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		s := v.String()
		if textFields[fd.FullName()] || (len(s) > maxClearString && !safeFields[fd.FullName()]) {
			r.repl = append(r.repl, refReplacement{path: path, v: r.key.Text(s)})
			return protoreflect.ValueOfString(""), true
		}
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes(nil), true
	case protoreflect.MessageKind, protoreflect.GroupKind:
		m := v.Message()
		switch m.Descriptor().FullName() {
		case "google.protobuf.BytesValue":
			m.Set(m.Descriptor().Fields().ByName("value"), protoreflect.ValueOfBytes(nil))
		case "google.protobuf.StringValue":
			vf := m.Descriptor().Fields().ByName("value")
			if s := m.Get(vf).String(); len(s) > maxClearString {
				r.repl = append(r.repl, refReplacement{path: path, v: r.key.Text(s)})
				m.Set(vf, protoreflect.ValueOfString(""))
			}
		case "google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue", "google.protobuf.Any":
			// Their JSON form is not their field structure: long strings are hashed in the JSON afterwards.
			r.opaque = append(r.opaque, path)
		default:
			r.message(m, path)
		}
	}
	return protoreflect.Value{}, false
}

func refChild(v *structpb.Value, e refPathElem) *structpb.Value {
	if e.isIdx {
		l := v.GetListValue().GetValues()
		if e.index < len(l) {
			return l[e.index]
		}
		return nil
	}
	return v.GetStructValue().GetFields()[e.key]
}

func refGetPath(v *structpb.Value, path []refPathElem) *structpb.Value {
	for _, e := range path {
		if v = refChild(v, e); v == nil {
			return nil
		}
	}
	return v
}

// setPath sets the value at path, whose parent exists in the JSON form because every message on the way is
// set (protojson emits set messages even when empty).
func refSetPath(root *structpb.Value, path []refPathElem, nv *structpb.Value) {
	if len(path) == 0 {
		return
	}
	parent := refGetPath(root, path[:len(path)-1])
	last := path[len(path)-1]
	switch {
	case parent == nil:
	case last.isIdx:
		if l := parent.GetListValue().GetValues(); last.index < len(l) {
			l[last.index] = nv
		}
	case parent.GetStructValue() != nil:
		st := parent.GetStructValue()
		if st.Fields == nil {
			st.Fields = map[string]*structpb.Value{}
		}
		st.Fields[last.key] = nv
	}
}
