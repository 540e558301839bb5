package wirecodec

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"glovebox.dev/shared/errdefs"
)

// MaxListed bounds the violations one request reports (as shared/validate bounds those of one list), so a
// request with thousands of bad strings gets an answer that fits in a status trailer; the last violation
// says how many were left out.
const MaxListed = 10

// maxDepth bounds the nesting the walker follows: protobuf's own default recursion limit, so anything the
// decoder accepts is walked, and a 32 MiB message of nested tags cannot exhaust the goroutine stack.
const maxDepth = 10000

// typeOneof is the name of a oneof that only says which type its message is (Target.kind): shared/validate
// leaves it out of paths (target.display.display_id), while any other oneof, such as ActRequest.action, is a
// field of the request in its own right and named (action.type.text).
const typeOneof = "kind"

var errTooDeep = errors.New("message nested too deeply")

// repair walks b, the wire bytes of a message of type md, and returns a copy in which every string field
// whose bytes are not valid UTF-8 holds them with each invalid sequence replaced by U+FFFD, and the
// violations naming those fields as shared/validate names fields. found is empty when every string is valid
// UTF-8 (fixed is then a re-encoding of b, not to be relied on). Fields not in md are copied unchanged.
func repair(b []byte, md protoreflect.MessageDescriptor) (fixed []byte, found []errdefs.Violation, err error) {
	var w walker
	fixed, err = w.message(make([]byte, 0, len(b)+16), b, md, "", 0)
	if err != nil {
		return nil, nil, err
	}
	return fixed, w.violations(), nil
}

// walker collects the violations of one message.
type walker struct {
	listed   []errdefs.Violation
	unlisted int
}

func (w *walker) add(field, description string) {
	if len(w.listed) < MaxListed {
		w.listed = append(w.listed, errdefs.Violation{Field: field, Description: description})
		return
	}
	w.unlisted++
}

func (w *walker) violations() []errdefs.Violation {
	if w.unlisted == 0 {
		return w.listed
	}
	// The note goes on the last listed field, so every field the answer names is one that is really bad.
	last := w.listed[len(w.listed)-1]
	note := errdefs.Violation{Field: last.Field, Description: fmt.Sprintf("%d more fields with invalid UTF-8 not listed", w.unlisted)}
	return append(w.listed, note)
}

// message appends to out the repaired encoding of b, a message of type md whose path is prefix.
func (w *walker) message(out, b []byte, md protoreflect.MessageDescriptor, prefix string, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, errTooDeep
	}
	fields := md.Fields()
	var index map[protowire.Number]int // elements seen so far of each repeated field
	for len(b) > 0 {
		tag, val, num, typ, rest, err := next(b)
		if err != nil {
			return nil, err
		}
		b = rest
		fd := fields.ByNumber(num)
		if fd == nil || typ != protowire.BytesType || !walked(fd) {
			out = append(append(out, tag...), val...)
			continue
		}
		v, _ := protowire.ConsumeBytes(val) // next checked the length
		path := join(prefix, fieldName(fd))
		if fd.IsList() {
			if index == nil {
				index = make(map[protowire.Number]int)
			}
			path += "[" + strconv.Itoa(index[num]) + "]"
			index[num]++
		}
		out = append(out, tag...)
		switch {
		case fd.IsMap():
			out, err = w.mapEntry(out, v, fd, path, depth+1)
		case fd.Message() != nil:
			out, err = w.nested(out, v, fd.Message(), path, depth+1)
		default:
			out = w.text(out, v, path, "")
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// nested appends the repaired length-prefixed encoding of b, a message of type md.
func (w *walker) nested(out, b []byte, md protoreflect.MessageDescriptor, path string, depth int) ([]byte, error) {
	sub, err := w.message(nil, b, md, path, depth)
	if err != nil {
		return nil, err
	}
	return protowire.AppendBytes(out, sub), nil
}

// mapEntry appends the repaired length-prefixed encoding of b, one entry of the map field fd at path. A value
// is named by its key (labels[gpu], by_id[7].name); a bad key names the map itself.
func (w *walker) mapEntry(out, b []byte, fd protoreflect.FieldDescriptor, path string, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, errTooDeep
	}
	key, err := mapKey(b, fd.MapKey())
	if err != nil {
		return nil, err
	}
	entryPath := path + "[" + key + "]"
	value := fd.MapValue()
	var sub []byte
	for len(b) > 0 {
		tag, val, num, typ, rest, err := next(b)
		if err != nil {
			return nil, err
		}
		b = rest
		var f protoreflect.FieldDescriptor
		switch num {
		case 1:
			f = fd.MapKey()
		case 2:
			f = value
		}
		if f == nil || typ != protowire.BytesType || !walked(f) {
			sub = append(append(sub, tag...), val...)
			continue
		}
		v, _ := protowire.ConsumeBytes(val)
		sub = append(sub, tag...)
		switch {
		case num == 1:
			sub = w.text(sub, v, path, "keys ")
		case f.Message() != nil:
			sub, err = w.nested(sub, v, f.Message(), entryPath, depth+1)
		default:
			sub = w.text(sub, v, entryPath, "")
		}
		if err != nil {
			return nil, err
		}
	}
	return protowire.AppendBytes(out, sub), nil
}

// text appends the length-prefixed string v, repaired and recorded at path when it is not valid UTF-8 and
// its field requires UTF-8. what prefixes the description ("keys ").
func (w *walker) text(out, v []byte, path, what string) []byte {
	if utf8.Valid(v) {
		return protowire.AppendBytes(out, v)
	}
	w.add(path, fmt.Sprintf("%smust be valid UTF-8, got an invalid byte at %d", what, invalidAt(v)))
	return protowire.AppendString(out, strings.ToValidUTF8(string(v), "\uFFFD"))
}

// next splits the first field off b: its tag and value bytes as they are on the wire, its number and type.
func next(b []byte) (tag, val []byte, num protowire.Number, typ protowire.Type, rest []byte, err error) {
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 {
		return nil, nil, 0, 0, nil, protowire.ParseError(n)
	}
	m := protowire.ConsumeFieldValue(num, typ, b[n:])
	if m < 0 {
		return nil, nil, 0, 0, nil, protowire.ParseError(m)
	}
	return b[:n], b[n : n+m], num, typ, b[n+m:], nil
}

// walked reports whether a length-delimited field may hold a string that must be UTF-8: a checked string,
// a message, or a map (whose entries are messages). Packed scalars and bytes are copied unchanged.
func walked(fd protoreflect.FieldDescriptor) bool {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return enforcesUTF8(fd)
	case protoreflect.MessageKind:
		return true
	}
	return false // groups are not length-delimited; proto3 has none
}

// enforcesUTF8 reports whether the decoder refuses invalid UTF-8 in the string field fd: proto3 and editions
// strings do unless features say otherwise. EnforceUTF8 is protobuf-go's own answer; without it, the
// protobuf-go default (enforce) holds.
func enforcesUTF8(fd protoreflect.FieldDescriptor) bool {
	if e, ok := fd.(interface{ EnforceUTF8() bool }); ok {
		return e.EnforceUTF8()
	}
	return fd.Syntax() != protoreflect.Proto2
}

// fieldName is fd's segment of a path: its name, after its oneof's name unless that oneof only says the
// message's type (see typeOneof). A proto3 optional field's synthetic oneof is never named.
func fieldName(fd protoreflect.FieldDescriptor) string {
	od := fd.ContainingOneof()
	if od == nil || od.IsSynthetic() || od.Name() == typeOneof {
		return string(fd.Name())
	}
	return string(od.Name()) + "." + string(fd.Name())
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// mapKey returns the key of the map entry b as a path shows it: the last key field on the wire (as the
// decoder takes it), or the zero value when the entry has none.
func mapKey(b []byte, kd protoreflect.FieldDescriptor) (string, error) {
	var raw []byte
	var typ protowire.Type
	for len(b) > 0 {
		_, val, num, t, rest, err := next(b)
		if err != nil {
			return "", err
		}
		b = rest
		if num == 1 {
			raw, typ = val, t
		}
	}
	if raw == nil {
		return keyText(kd.Default().String()), nil
	}
	switch typ {
	case protowire.BytesType:
		v, _ := protowire.ConsumeBytes(raw)
		return keyText(strings.ToValidUTF8(string(v), "\uFFFD")), nil
	case protowire.VarintType:
		v, _ := protowire.ConsumeVarint(raw)
		switch kd.Kind() {
		case protoreflect.BoolKind:
			return strconv.FormatBool(v != 0), nil
		case protoreflect.Sint32Kind, protoreflect.Sint64Kind:
			return strconv.FormatInt(protowire.DecodeZigZag(v), 10), nil
		case protoreflect.Uint32Kind, protoreflect.Uint64Kind:
			return strconv.FormatUint(v, 10), nil
		case protoreflect.Int32Kind:
			return strconv.FormatInt(int64(int32(v)), 10), nil
		}
		return strconv.FormatInt(int64(v), 10), nil
	case protowire.Fixed32Type:
		v, _ := protowire.ConsumeFixed32(raw)
		if kd.Kind() == protoreflect.Sfixed32Kind {
			return strconv.FormatInt(int64(int32(v)), 10), nil
		}
		return strconv.FormatUint(uint64(v), 10), nil
	case protowire.Fixed64Type:
		v, _ := protowire.ConsumeFixed64(raw)
		if kd.Kind() == protoreflect.Sfixed64Kind {
			return strconv.FormatInt(int64(v), 10), nil
		}
		return strconv.FormatUint(v, 10), nil
	}
	return "?", nil // a key of the wrong wire type: the decoder refuses the message anyway
}

// keyText is a string map key in a path: as it is when it is a plain name ([A-Za-z0-9_.-], as label keys
// are), quoted otherwise, and cut to 32 bytes so a huge key does not make a huge error.
func keyText(k string) string {
	const limit = 32
	cut := ""
	if len(k) > limit {
		n := limit
		for n > 0 && !utf8.RuneStart(k[n]) {
			n--
		}
		k, cut = k[:n], "..."
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return strconv.Quote(k) + cut
		}
	}
	if k == "" {
		return `""`
	}
	return k + cut
}

// invalidAt is the offset of the first invalid UTF-8 sequence in b.
func invalidAt(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(b)
}
