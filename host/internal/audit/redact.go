package audit

import (
	"crypto/hmac"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"
)

// textFields are the fields whose value is what a person or agent typed, pasted, filled or copied: they are
// always replaced by length+HMAC, whatever their length. New text-carrying fields (fill, paste, set_value)
// are added here, in this one place; TestRedactTextFields pins the list.
var textFields = map[protoreflect.FullName]bool{
	"glovebox.agent.v1.TypeText.text":              true,
	"glovebox.agent.v1.WriteClipboardRequest.text": true,
	"glovebox.agent.v1.ReadClipboardResponse.text": true,
	"glovebox.agent.v1.ElementSetValue.text":       true,
	"glovebox.agent.v1.Fill.text":                  true,
	"glovebox.agent.v1.PageType.text":              true,
	"glovebox.agent.v1.Paste.text":                 true,
	"glovebox.agent.v1.PasteTextRequest.text":      true,
	"glovebox.agent.v1.Paste.html":                 true,
	"glovebox.agent.v1.SetValue.value":             true,
	"glovebox.agent.v1.ActResponse.value":          true,
	// A file's sha256 proves its content: recorded as a keyed hash, never in clear.
	"glovebox.agent.v1.DropFile.sha256":         true,
	"glovebox.agent.v1.DroppedFile.sha256":      true,
	"glovebox.agent.v1.ReadFileResponse.sha256": true,
	// A text match names text on the screen the caller wants selected, which may be what was typed before.
	"glovebox.agent.v1.TextMatch.prefix": true,
	"glovebox.agent.v1.TextMatch.text":   true,
	"glovebox.agent.v1.TextMatch.suffix": true,
}

// safeFields are string fields known not to carry typed or copied text, kept in clear up to MaxKeptString
// even when longer than maxClearString (window titles and class names identify the target an auditor needs to see).
var safeFields = map[protoreflect.FullName]bool{
	"glovebox.agent.v1.FrozenTarget.window_title": true,
	"glovebox.agent.v1.Window.title":              true,
	"glovebox.agent.v1.Window.class_name":         true,
	"glovebox.agent.v1.Window.instance_name":      true,
	// File names and guest paths are what an auditor of a transfer needs to see.
	"glovebox.agent.v1.DropFile.name":               true,
	"glovebox.agent.v1.DroppedFile.name":            true,
	"glovebox.agent.v1.DroppedFile.path":            true,
	"glovebox.agent.v1.DroppedFile.saved_name":      true,
	"glovebox.agent.v1.DropFilesResponse.directory": true,
	"glovebox.agent.v1.ReadFileRequest.path":        true,
	"glovebox.agent.v1.ReadFileInfo.path":           true,
}

// maxClearString is the safety net: a string field not on either list that is longer than this is hashed
// anyway, since a long free-form string is more likely text than an identifier.
const maxClearString = 256

// Redact returns m as the Struct stored in AuditRecord.args: its protojson form with proto field names,
// except that every text-like value (textFields; any other string over maxClearString bytes not in
// safeFields, including inside Struct, Value and Any; any string that is not valid UTF-8) is replaced by
// k.Text(value), bytes fields are left out, and a list of more than MaxListElements is replaced by its count,
// size and keyed hash (bound.go) without being walked. An Any is unpacked and redacted like any other message.
// m is not modified. The Struct is built by walking m, not by a protojson round trip, since the broker
// redacts every request; TestRedactMatchesProtojson holds it to protojson's mapping.
func Redact(k Key, m proto.Message) *structpb.Struct {
	if m == nil || !m.ProtoReflect().IsValid() {
		return &structpb.Struct{Fields: map[string]*structpb.Value{}}
	}
	v := redactor{key: k}.message(m.ProtoReflect())
	if st := v.GetStructValue(); st != nil {
		return st
	}
	// A well-known type whose JSON form is not an object (a Timestamp, a Value).
	return &structpb.Struct{Fields: map[string]*structpb.Value{"value": v}}
}

type redactor struct{ key Key }

// message returns the redacted JSON form of m.
func (r redactor) message(m protoreflect.Message) *structpb.Value {
	if m.Descriptor().FullName().Parent() == "google.protobuf" {
		return r.wellKnown(m)
	}
	fields := make(map[string]*structpb.Value, m.Descriptor().Fields().Len())
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := string(fd.Name())
		if fd.IsExtension() {
			name = "[" + string(fd.FullName()) + "]"
		}
		switch {
		case fd.Kind() == protoreflect.BytesKind && !fd.IsMap():
		case fd.IsList() && v.List().Len() > MaxListElements:
			fields[name] = r.key.bigList(fd, v.List())
		case fd.IsList():
			l := v.List()
			vals := make([]*structpb.Value, 0, l.Len())
			for i := 0; i < l.Len(); i++ {
				if x := r.singular(fd, l.Get(i)); x != nil {
					vals = append(vals, x)
				}
			}
			fields[name] = structpb.NewListValue(&structpb.ListValue{Values: vals})
		case fd.IsMap():
			vd := fd.MapValue()
			if vd.Kind() == protoreflect.BytesKind {
				break
			}
			mm := map[string]*structpb.Value{}
			v.Map().Range(func(mk protoreflect.MapKey, mv protoreflect.Value) bool {
				if x := r.singular(vd, mv); x != nil {
					mm[strings.ToValidUTF8(mk.String(), "\uFFFD")] = x
				}
				return true
			})
			fields[name] = structpb.NewStructValue(&structpb.Struct{Fields: mm})
		default:
			if x := r.singular(fd, v); x != nil {
				fields[name] = x
			}
		}
		return true
	})
	return structpb.NewStructValue(&structpb.Struct{Fields: fields})
}

// singular returns the redacted JSON form of one value of fd (a field, list element or map value), nil to
// leave it out.
func (r redactor) singular(fd protoreflect.FieldDescriptor, v protoreflect.Value) *structpb.Value {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return structpb.NewBoolValue(v.Bool())
	case protoreflect.EnumKind:
		if fd.Enum().FullName() == "google.protobuf.NullValue" {
			return structpb.NewNullValue()
		}
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return structpb.NewStringValue(string(ev.Name()))
		}
		return structpb.NewNumberValue(float64(v.Enum()))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return structpb.NewNumberValue(float64(v.Int()))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return structpb.NewNumberValue(float64(v.Uint()))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return structpb.NewStringValue(strconv.FormatInt(v.Int(), 10))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return structpb.NewStringValue(strconv.FormatUint(v.Uint(), 10))
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		f := v.Float()
		switch {
		case math.IsNaN(f):
			return structpb.NewStringValue("NaN")
		case math.IsInf(f, 1):
			return structpb.NewStringValue("Infinity")
		case math.IsInf(f, -1):
			return structpb.NewStringValue("-Infinity")
		case fd.Kind() == protoreflect.FloatKind:
			// protojson prints a float with float32 precision; parsing that back gives this float64.
			f, _ = strconv.ParseFloat(strconv.FormatFloat(f, 'g', -1, 32), 64)
		}
		return structpb.NewNumberValue(f)
	case protoreflect.StringKind:
		s := v.String()
		if textFields[fd.FullName()] || (len(s) > maxClearString && !safeFields[fd.FullName()]) || len(s) > MaxKeptString || !utf8.ValidString(s) {
			return r.key.Text(s)
		}
		return structpb.NewStringValue(s)
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return r.message(v.Message())
	}
	return nil
}

// wellKnown handles google.protobuf messages, whose JSON form is special.
func (r redactor) wellKnown(m protoreflect.Message) *structpb.Value {
	switch m.Descriptor().FullName() {
	case "google.protobuf.BytesValue":
		return nil
	case "google.protobuf.StringValue":
		s := m.Get(m.Descriptor().Fields().ByName("value")).String()
		if len(s) > maxClearString || !utf8.ValidString(s) {
			return r.key.Text(s)
		}
		return structpb.NewStringValue(s)
	case "google.protobuf.Any":
		return r.any(m)
	}
	// Struct, Value, ListValue, Timestamp, Duration, FieldMask, Empty and the other wrappers: protojson's own
	// form, with long strings hashed.
	b, err := protojson.Marshal(m.Interface())
	v := &structpb.Value{}
	if err == nil {
		err = protojson.Unmarshal(b, v)
	}
	if err != nil {
		return structpb.NewStringValue("unencodable " + string(m.Descriptor().FullName()))
	}
	hashLongStrings(r.key, v)
	return v
}

// any unpacks an Any so that the message inside is redacted like any other; one whose type is unknown keeps
// only its @type (its content is bytes).
func (r redactor) any(m protoreflect.Message) *structpb.Value {
	a, ok := m.Interface().(*anypb.Any)
	if !ok {
		return nil
	}
	typ := structpb.NewStringValue(a.GetTypeUrl())
	inner, err := a.UnmarshalNew()
	if err != nil {
		return structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"@type": typ}})
	}
	v := r.message(inner.ProtoReflect())
	if inner.ProtoReflect().Descriptor().FullName().Parent() == "google.protobuf" {
		return structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"@type": typ, "value": v}})
	}
	st := v.GetStructValue()
	st.Fields["@type"] = typ
	return v
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
