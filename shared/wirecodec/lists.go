package wirecodec

import (
	"fmt"

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
	var counts map[protowire.Number]int
	var out []errdefs.Violation
	fields := md.Fields()
	for len(b) > 0 {
		_, val, num, typ, rest, err := next(b)
		if err != nil {
			return out
		}
		b = rest
		fd := fields.ByNumber(num)
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
				counts = map[protowire.Number]int{}
			}
			counts[num] += n
			if counts[num] > MaxListElements {
				continue // counted; its elements are not looked into
			}
		}
		if fd.Message() != nil && !fd.IsMap() && typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(val)
			out = append(out, oversized(v, fd.Message(), join(prefix, fieldName(fd)), depth+1)...)
		}
	}
	for num, c := range counts {
		if c > MaxListElements {
			out = append(out, errdefs.Violation{Field: join(prefix, fieldName(fields.ByNumber(num))),
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
	var counts map[protowire.Number]int
	fields := md.Fields()
	for len(b) > 0 {
		tag, val, num, typ, rest, err := next(b)
		if err != nil {
			return append(out, b...) // left to the decoder to refuse
		}
		b = rest
		fd := fields.ByNumber(num)
		if fd != nil {
			if bad, _, _ := longString(fd, typ, val); bad {
				continue
			}
		}
		if fd != nil && (fd.IsList() || fd.IsMap()) {
			if counts == nil {
				counts = map[protowire.Number]int{}
			}
			n := 1
			if typ == protowire.BytesType && fd.IsList() && fd.Message() == nil && fd.Kind() != protoreflect.StringKind && fd.Kind() != protoreflect.BytesKind {
				n = packedCount(val)
			}
			counts[num] += n
			if counts[num] > MaxListElements {
				continue
			}
		}
		if fd != nil && fd.Message() != nil && !fd.IsMap() && typ == protowire.BytesType && depth < maxDepth {
			v, _ := protowire.ConsumeBytes(val)
			out = protowire.AppendBytes(append(out, tag...), cutLists(v, fd.Message(), depth+1))
			continue
		}
		out = append(append(out, tag...), val...)
	}
	return out
}
