package wirecodec

import (
	"fmt"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// MaxListElements bounds every repeated field of a request, counted on the wire before anything is decoded
// (as strings are held to validate.StringBound):
// decoding a 32 MiB message of 4,000,000 small elements costs the server seconds and hundreds of MiB, far more
// than the sender spent (no Glovebox request has a list near this: a drag path is at most 1000 points).
// Codec decodes such a request with each list cut to its first MaxListElements elements and marks it with a
// violation per list ("must have at most 10000 elements, got 1000000"), so it is INVALID_ARGUMENT at the cost
// of a scan of its tags.
const MaxListElements = 10000

// oversized returns a violation for each repeated field in b (a message of type md, at prefix) with more
// than MaxListElements elements and each string longer than validate.StringBound allows, nil when there is
// none. Malformed wire data is left to the decoder.
func oversized(b []byte, md protoreflect.MessageDescriptor, prefix string, depth int) []errdefs.Violation {
	if depth > maxDepth {
		return nil
	}
	var counts []int // per field index, allocated at the first list
	var out []errdefs.Violation
	fields := md.Fields()
	var lastNum protowire.Number
	var fd protoreflect.FieldDescriptor
	for len(b) > 0 {
		_, val, num, typ, rest, err := next(b)
		if err != nil {
			return out
		}
		b = rest
		if num != lastNum || fd == nil {
			// The elements of a list come one after another: look the field up once per run.
			fd, lastNum = fields.ByNumber(num), num
		}
		if fd == nil {
			continue
		}
		if bad, size, bound := longString(fd, typ, val); bad {
			out = append(out, errdefs.Violation{Field: join(prefix, fieldName(fd)), Description: fmt.Sprintf("must be at most %d bytes, got %d", bound, size)})
			continue
		}
		n := 1
		if fd.IsList() && typ == protowire.BytesType && fd.Message() == nil && fd.Kind() != protoreflect.StringKind && fd.Kind() != protoreflect.BytesKind {
			n = packedCount(val) // a packed list: one element per varint, or per 4 or 8 bytes
		}
		if fd.IsList() || fd.IsMap() {
			if counts == nil {
				counts = make([]int, fields.Len())
			}
			counts[fd.Index()] += n
			if counts[fd.Index()] > MaxListElements {
				continue // counted; its elements are not looked into
			}
		}
		if fd.Message() != nil && !fd.IsMap() && typ == protowire.BytesType && mayOversize(fd.Message()) {
			v, _ := protowire.ConsumeBytes(val)
			out = append(out, oversized(v, fd.Message(), join(prefix, fieldName(fd)), depth+1)...)
		}
	}
	for i, c := range counts {
		if c > MaxListElements {
			out = append(out, errdefs.Violation{Field: join(prefix, fieldName(fields.Get(i))),
				Description: fmt.Sprintf("must have at most %d elements, got %d", MaxListElements, c)})
		}
	}
	return out
}

// packedCount counts the elements of a packed scalar list's value bytes (with their length prefix) as
// varints: an upper bound for fixed-width elements too.
func packedCount(val []byte) int {
	v, _ := protowire.ConsumeBytes(val)
	n := 0
	for _, c := range v {
		if c < 0x80 {
			n++
		}
	}
	return n
}

// longString reports whether val, the wire value of field fd, is a string over its bound.
func longString(fd protoreflect.FieldDescriptor, typ protowire.Type, val []byte) (bad bool, size, bound int) {
	if fd.Kind() != protoreflect.StringKind || typ != protowire.BytesType {
		return false, 0, 0
	}
	v, _ := protowire.ConsumeBytes(val)
	bound = validate.StringBound(string(fd.FullName()))
	return len(v) > bound, len(v), bound
}

// cutLists returns a copy of b (a message of type md) with every repeated field cut to its first
// MaxListElements elements (a packed list longer than that dropped whole) and every string over its bound
// left out.
func cutLists(b []byte, md protoreflect.MessageDescriptor, depth int) []byte {
	out := make([]byte, 0, min(len(b), 1<<20))
	var counts []int
	fields := md.Fields()
	var lastNum protowire.Number
	var fd protoreflect.FieldDescriptor
	for len(b) > 0 {
		tag, val, num, typ, rest, err := next(b)
		if err != nil {
			return append(out, b...) // left to the decoder to refuse
		}
		b = rest
		if num != lastNum || fd == nil {
			fd, lastNum = fields.ByNumber(num), num
		}
		if fd != nil {
			if bad, _, _ := longString(fd, typ, val); bad {
				continue
			}
		}
		if fd != nil && (fd.IsList() || fd.IsMap()) {
			if counts == nil {
				counts = make([]int, fields.Len())
			}
			n := 1
			if typ == protowire.BytesType && fd.IsList() && fd.Message() == nil && fd.Kind() != protoreflect.StringKind && fd.Kind() != protoreflect.BytesKind {
				n = packedCount(val)
			}
			counts[fd.Index()] += n
			if counts[fd.Index()] > MaxListElements {
				continue
			}
		}
		if fd != nil && fd.Message() != nil && !fd.IsMap() && typ == protowire.BytesType && depth < maxDepth && mayOversize(fd.Message()) {
			v, _ := protowire.ConsumeBytes(val)
			out = protowire.AppendBytes(append(out, tag...), cutLists(v, fd.Message(), depth+1))
			continue
		}
		out = append(append(out, tag...), val...)
	}
	return out
}

// scannable caches mayOversize per message type.
var scannable sync.Map // protoreflect.FullName -> bool

// mayOversize reports whether a message of type md can hold a list or a string (itself or in a message
// field, at any depth): only those are looked into, so the 1,000,000 points of a drag are counted, not
// walked.
func mayOversize(md protoreflect.MessageDescriptor) bool {
	if v, ok := scannable.Load(md.FullName()); ok {
		return v.(bool)
	}
	v := mayOversizeIn(md, map[protoreflect.FullName]bool{})
	scannable.Store(md.FullName(), v)
	return v
}

func mayOversizeIn(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) bool {
	if seen[md.FullName()] {
		return true // recursive types (Struct, Value) may hold anything
	}
	seen[md.FullName()] = true
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.IsList() || fd.IsMap() || fd.Kind() == protoreflect.StringKind || (fd.Message() != nil && mayOversizeIn(fd.Message(), seen)) {
			return true
		}
	}
	return false
}
