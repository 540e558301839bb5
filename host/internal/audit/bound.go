package audit

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"math"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
)

// Record bounds: what a sender can make the broker write, keep in memory and send back to an auditor. A
// hostile request of the maximum message size (32 MiB) once made a 19 MB line that no ListAuditRecords page
// could carry; every record is now at most MaxRecordBytes, so any page of MaxPageBytes fits in a message.
const (
	// MaxRecordBytes bounds one record's line (its protojson, "\n" included).
	MaxRecordBytes = 64 << 10
	// MaxListElements bounds the elements of a repeated field kept in args (a drag's path is at most 1000
	// points); a longer list is recorded as its element count, size and keyed hash.
	MaxListElements = 1024
	// MaxKeptString bounds a string kept in clear even on the safe list (a window title); a longer one is
	// recorded as its length and keyed hash.
	MaxKeptString = 4 << 10
)

// big returns the redacted form of a value too big to keep: {"size": <bytes>, "hmac_sha256": "<hex>"} over
// its encoding b (the deterministic protobuf encoding of the value), plus "elements" for a list.
func (k Key) big(size int, sum []byte, elements int) *structpb.Value {
	f := map[string]*structpb.Value{
		"size":        structpb.NewNumberValue(float64(size)),
		"hmac_sha256": structpb.NewStringValue(hex.EncodeToString(sum)),
	}
	if elements >= 0 {
		f["elements"] = structpb.NewNumberValue(float64(elements))
	}
	return structpb.NewStructValue(&structpb.Struct{Fields: f})
}

// bigList is the redacted form of a list too long to keep: its count, the size of its elements' encodings
// and the HMAC over them, computed element by element without building anything per element.
func (k Key) bigList(fd protoreflect.FieldDescriptor, l protoreflect.List) *structpb.Value {
	m := hmac.New(sha256.New, k)
	var buf []byte
	size := 0
	opts := proto.MarshalOptions{Deterministic: true}
	for i := range l.Len() {
		buf = appendElement(opts, buf[:0], fd, l.Get(i))
		size += len(buf)
		m.Write(buf)
	}
	return k.big(size, m.Sum(nil), l.Len())
}

// appendElement appends one list element's encoding (a message's deterministic encoding, a scalar's wire
// value).
func appendElement(opts proto.MarshalOptions, b []byte, fd protoreflect.FieldDescriptor, v protoreflect.Value) []byte {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		out, err := opts.MarshalAppend(b, v.Message().Interface())
		if err != nil {
			return b
		}
		return out
	case protoreflect.StringKind:
		return protowire.AppendString(b, v.String())
	case protoreflect.BytesKind:
		return protowire.AppendBytes(b, v.Bytes())
	case protoreflect.BoolKind:
		return protowire.AppendVarint(b, protowire.EncodeBool(v.Bool()))
	case protoreflect.EnumKind:
		return protowire.AppendVarint(b, uint64(v.Enum()))
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return protowire.AppendFixed64(b, math.Float64bits(v.Float()))
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
		return protowire.AppendVarint(b, v.Uint())
	}
	return protowire.AppendVarint(b, uint64(v.Int()))
}

// bigMessage is the redacted form of a whole message too big to keep.
func (k Key) bigMessage(m proto.Message) *structpb.Value {
	b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	return k.big(len(b), macOf(k, b), -1)
}

func macOf(k Key, b []byte) []byte {
	var m hash.Hash = hmac.New(sha256.New, k)
	m.Write(b)
	return m.Sum(nil)
}

// bound makes rec fit MaxRecordBytes once encoded (enc is its encoding, re-made when rec changes): the
// guest-supplied window title beyond MaxKeptString, then the response and the args, each replaced as a
// whole by its size and keyed hash. The broker redacts long lists and strings already (Redact); this is
// the net under whatever is still too big, for every record the log writes.
func (l *Log) bound(rec *brokerv1.AuditRecord, enc encoded) (encoded, error) {
	// Room for seq, prev_hash, hash and the braces, which seal adds.
	const sealBytes = 256
	fits := func(e encoded) bool { return len(e.json)+len(e.jsonTail)+sealBytes <= MaxRecordBytes }
	if fits(enc) {
		return enc, nil
	}
	if t := rec.GetTarget(); t != nil && len(t.GetWindowTitle()) > MaxKeptString {
		t.WindowTitle = fmt.Sprintf("(%d bytes, hmac_sha256 %s)", len(t.WindowTitle), l.key.mac(t.WindowTitle))
	}
	if rec.Response != nil {
		rec.Response = &structpb.Struct{Fields: map[string]*structpb.Value{"too_big": l.key.bigMessage(rec.Response)}}
	}
	var err error
	if enc, err = preencode(rec); err != nil || fits(enc) {
		return enc, err
	}
	rec.Args = &structpb.Struct{Fields: map[string]*structpb.Value{"too_big": l.key.bigMessage(rec.Args)}}
	if enc, err = preencode(rec); err != nil || fits(enc) {
		return enc, err
	}
	// Only our own fields are left (guest, rpc, principal, ids), each bounded where it is accepted.
	return enc, fmt.Errorf("record of %d bytes after bounding", len(enc.json)+len(enc.jsonTail))
}
