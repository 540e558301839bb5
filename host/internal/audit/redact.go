package audit

import (
	"crypto/hmac"
	"sort"
	"strconv"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
)

// textFields are the fields whose value is what a person or agent typed, pasted, filled or copied: they are
// always replaced by length+HMAC, whatever their length. New text-carrying fields (fill, paste, set_value)
// are added here, in this one place; TestRedactTextFields pins the list.
var textFields = map[protoreflect.FullName]bool{
	"glovebox.agent.v1.TypeText.text":              true,
	"glovebox.agent.v1.WriteClipboardRequest.text": true,
	"glovebox.agent.v1.ReadClipboardResponse.text": true,
}

// safeFields are string fields known not to carry typed or copied text, kept in clear even when longer than
// maxClearString (window titles and class names identify the target an auditor needs to see).
var safeFields = map[protoreflect.FullName]bool{
	"glovebox.agent.v1.FrozenTarget.window_title": true,
	"glovebox.agent.v1.Window.title":              true,
	"glovebox.agent.v1.Window.class_name":         true,
	"glovebox.agent.v1.Window.instance_name":      true,
}

// maxClearString is the safety net: a string field not on either list that is longer than this is hashed
// anyway, since a long free-form string is more likely text than an identifier.
const maxClearString = 256

// Redact returns m as the Struct stored in AuditRecord.args: protojson with proto field names, where every
// text-like field (textFields, and any other string over maxClearString bytes not in safeFields, including
// inside Struct, Value and Any) is replaced by k.Text(value), and every bytes field is removed. m is not
// modified. A message protojson cannot encode (invalid UTF-8 in a field kept in clear) yields
// {"unencodable": "<message full name>"} rather than an error, so the request is still audited.
func Redact(k Key, m proto.Message) *structpb.Struct {
	if m == nil || !m.ProtoReflect().IsValid() {
		return &structpb.Struct{Fields: map[string]*structpb.Value{}}
	}
	c := proto.Clone(m)
	r := redactor{key: k}
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
		setPath(root, rp.path, rp.v)
	}
	for _, p := range r.opaque {
		if v := getPath(root, p); v != nil {
			hashLongStrings(k, v)
		}
	}
	return st
}

// pathElem is one step into the protojson form: a field or map key (string) or a list index.
type pathElem struct {
	key   string
	index int
	isIdx bool
}

type replacement struct {
	path []pathElem
	v    *structpb.Value
}

type redactor struct {
	key    Key
	repl   []replacement
	opaque [][]pathElem
}

func extend(p []pathElem, e pathElem) []pathElem {
	return append(p[:len(p):len(p)], e)
}

// message redacts msg in place: text-like strings become "" (their replacement recorded for the JSON form),
// bytes fields are cleared.
func (r *redactor) message(msg protoreflect.Message, path []pathElem) {
	var clear []protoreflect.FieldDescriptor
	msg.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := string(fd.Name())
		if fd.IsExtension() {
			name = "[" + string(fd.FullName()) + "]"
		}
		fp := extend(path, pathElem{key: name})
		switch {
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				ep := extend(fp, pathElem{index: i, isIdx: true})
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
				if nv, ok := r.value(vd, mv, extend(fp, pathElem{key: mk.String()})); ok {
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
					// Cleared rather than set to "" so the JSON field is absent until the replacement is set;
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

// value redacts one singular value (a field, list element or map value) at path. It returns a replacement
// value and true when the value must change in the message.
func (r *redactor) value(fd protoreflect.FieldDescriptor, v protoreflect.Value, path []pathElem) (protoreflect.Value, bool) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		s := v.String()
		if textFields[fd.FullName()] || (len(s) > maxClearString && !safeFields[fd.FullName()]) {
			r.repl = append(r.repl, replacement{path: path, v: r.key.Text(s)})
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
				r.repl = append(r.repl, replacement{path: path, v: r.key.Text(s)})
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

// hashLongStrings replaces every string value longer than maxClearString under v.
func hashLongStrings(k Key, v *structpb.Value) {
	switch x := v.Kind.(type) {
	case *structpb.Value_StringValue:
		if len(x.StringValue) > maxClearString {
			v.Kind = k.Text(x.StringValue).Kind
		}
	case *structpb.Value_StructValue:
		for _, f := range x.StructValue.GetFields() {
			hashLongStrings(k, f)
		}
	case *structpb.Value_ListValue:
		for _, e := range x.ListValue.GetValues() {
			hashLongStrings(k, e)
		}
	}
}

func child(v *structpb.Value, e pathElem) *structpb.Value {
	if e.isIdx {
		l := v.GetListValue().GetValues()
		if e.index < len(l) {
			return l[e.index]
		}
		return nil
	}
	return v.GetStructValue().GetFields()[e.key]
}

func getPath(v *structpb.Value, path []pathElem) *structpb.Value {
	for _, e := range path {
		if v = child(v, e); v == nil {
			return nil
		}
	}
	return v
}

// setPath sets the value at path, whose parent exists in the JSON form because every message on the way is
// set (protojson emits set messages even when empty).
func setPath(root *structpb.Value, path []pathElem, nv *structpb.Value) {
	if len(path) == 0 {
		return
	}
	parent := getPath(root, path[:len(path)-1])
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

// Prove returns the paths in rec.args (dotted field names, [i] for list elements, sorted) whose redacted
// value is the length and HMAC of text under k.
func Prove(k Key, text string, rec *brokerv1.AuditRecord) []string {
	want := k.mac(text)
	var found []string
	var walk func(v *structpb.Value, path string)
	walk = func(v *structpb.Value, path string) {
		switch x := v.GetKind().(type) {
		case *structpb.Value_StructValue:
			f := x.StructValue.GetFields()
			if len(f) == 2 && f["length"] != nil && f["hmac_sha256"] != nil {
				if f["length"].GetNumberValue() == float64(len(text)) &&
					hmac.Equal([]byte(f["hmac_sha256"].GetStringValue()), []byte(want)) {
					found = append(found, path)
				}
				return
			}
			for name, fv := range f {
				p := name
				if path != "" {
					p = path + "." + name
				}
				walk(fv, p)
			}
		case *structpb.Value_ListValue:
			for i, e := range x.ListValue.GetValues() {
				walk(e, path+"["+strconv.Itoa(i)+"]")
			}
		}
	}
	walk(structpb.NewStructValue(rec.GetArgs()), "")
	sort.Strings(found)
	return found
}
