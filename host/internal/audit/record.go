package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// Hash returns the hash a record must carry: lowercase hex SHA-256 of the ASCII prev_hash followed by the
// deterministic binary encoding of rec with hash "". rec is not modified.
func Hash(rec *brokerv1.AuditRecord) (string, error) {
	c := proto.Clone(rec).(*brokerv1.AuditRecord)
	c.Hash = ""
	return hashUnsealed(c, nil)
}

// hashUnsealed hashes rec, whose Hash must be "", reusing buf for the encoding.
func hashUnsealed(rec *brokerv1.AuditRecord, buf []byte) (string, error) {
	b, err := proto.MarshalOptions{Deterministic: true}.MarshalAppend(buf[:0], rec)
	if err != nil {
		return "", fmt.Errorf("audit record %d: %w", rec.GetSeq(), err)
	}
	h := sha256.New()
	h.Write([]byte(rec.GetPrevHash()))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// appendLine appends rec as one compact protojson line ending in "\n": through appendRecordJSON, or
// protojson itself for what that leaves to it. protojson may add random insignificant whitespace (to keep
// people from depending on its bytes); Compact removes it so the line bytes are stable for a given record and
// library version.
func appendLine(dst []byte, rec *brokerv1.AuditRecord) ([]byte, error) {
	mark := len(dst)
	if out, ok := appendRecordJSON(append(dst, '{'), rec); ok {
		return append(out, '}', '\n'), nil
	}
	dst = dst[:mark]
	b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(rec)
	if err != nil {
		return dst, fmt.Errorf("audit record %d: %w", rec.GetSeq(), err)
	}
	var c bytes.Buffer
	c.Grow(len(b))
	if err := json.Compact(&c, b); err != nil {
		return dst, fmt.Errorf("audit record %d: %w", rec.GetSeq(), err)
	}
	dst = append(dst, c.Bytes()...)
	return append(dst, '\n'), nil
}

// parseLine decodes one line (without its "\n"). Unknown fields are an error: a field this version does not
// know would be dropped and the record would no longer hash to its hash.
func parseLine(line []byte) (*brokerv1.AuditRecord, error) {
	rec := &brokerv1.AuditRecord{}
	if err := protojson.Unmarshal(line, rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// encoded is a record's encodings without seq, prev_hash and hash, made by the appending goroutine so the
// writer only splices in those three fields (see seal). Both encodings emit fields in field-number order
// (protojson in declaration order, which audit.proto keeps equal to number order; deterministic binary by
// number), and seq is field 1 while prev_hash and hash are 14 and 15, so each encoding comes in two parts, the
// fields before prev_hash (head) and those after hash (tail), and the splice is exactly what marshalling the
// whole record gives: TestSealMatchesMarshal checks it, Verify never relies on it.
type encoded struct {
	json, jsonTail []byte // compact protojson fields without the braces
	bin, binTail   []byte // deterministic binary
}

// preencodeBytes is the buffer preencode starts with.
const preencodeBytes = 1024

// preencode encodes rec with seq, prev_hash and hash cleared (it clears them).
func preencode(rec *brokerv1.AuditRecord) (encoded, error) {
	rec.Seq, rec.PrevHash, rec.Hash = 0, "", ""
	// The fields after hash, encoded on their own (most records have none).
	tail := &brokerv1.AuditRecord{RequestId: rec.RequestId, RequestHash: rec.RequestHash, ReplayOf: rec.ReplayOf, Response: rec.Response, Source: rec.Source}
	rec.RequestId, rec.RequestHash, rec.ReplayOf, rec.Response, rec.Source = "", "", 0, nil, 0
	head, err := encode(rec)
	rec.RequestId, rec.RequestHash, rec.ReplayOf, rec.Response, rec.Source = tail.RequestId, tail.RequestHash, tail.ReplayOf, tail.Response, tail.Source
	if err != nil || proto.Size(tail) == 0 {
		return head, err
	}
	t, err := encode(tail)
	return encoded{json: head.json, bin: head.bin, jsonTail: t.json, binTail: t.bin}, err
}

// encode is both encodings of rec, in one buffer large enough for a typical record (a click's are about 200
// and 500 bytes).
func encode(rec *brokerv1.AuditRecord) (encoded, error) {
	buf := make([]byte, 0, preencodeBytes)
	bin, ok := appendRecordBinary(buf, rec)
	if !ok {
		var err error
		if bin, err = (proto.MarshalOptions{Deterministic: true}).MarshalAppend(buf, rec); err != nil {
			return encoded{}, err
		}
	}
	line, err := appendLine(bin[len(bin):], rec)
	if err != nil {
		return encoded{}, err
	}
	// line is "{...}\n".
	return encoded{json: line[1 : len(line)-2], bin: bin[:len(bin):len(bin)]}, nil
}

// seal sets rec's seq, prev_hash and hash and appends its line to dst; hbuf is scratch space.
func seal(dst, hbuf []byte, rec *brokerv1.AuditRecord, enc encoded, seq uint64, prev string) ([]byte, []byte) {
	b := protowire.AppendTag(hbuf[:0], 1, protowire.VarintType)
	b = protowire.AppendVarint(b, seq)
	b = append(b, enc.bin...)
	if prev != "" {
		b = protowire.AppendTag(b, 14, protowire.BytesType)
		b = protowire.AppendString(b, prev)
	}
	b = append(b, enc.binTail...)
	h := sha256.New()
	h.Write([]byte(prev))
	h.Write(b)
	var sum [sha256.Size]byte
	hash := hex.EncodeToString(h.Sum(sum[:0]))
	rec.Seq, rec.PrevHash, rec.Hash = seq, prev, hash

	dst = append(dst, `{"seq":"`...)
	dst = strconv.AppendUint(dst, seq, 10)
	dst = append(dst, '"')
	if len(enc.json) > 0 {
		dst = append(dst, ',')
		dst = append(dst, enc.json...)
	}
	if prev != "" {
		dst = append(dst, `,"prev_hash":"`...)
		dst = append(dst, prev...)
		dst = append(dst, '"')
	}
	dst = append(dst, `,"hash":"`...)
	dst = append(dst, hash...)
	dst = append(dst, '"')
	if len(enc.jsonTail) > 0 {
		dst = append(dst, ',')
		dst = append(dst, enc.jsonTail...)
	}
	dst = append(dst, "}\n"...)
	return dst, b
}
