package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"google.golang.org/protobuf/encoding/protojson"
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

// appendLine appends rec as one compact protojson line ending in "\n". protojson may add random
// insignificant whitespace (to keep people from depending on its bytes); Compact removes it so the line
// bytes are stable for a given record and library version.
func appendLine(dst []byte, rec *brokerv1.AuditRecord) ([]byte, error) {
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
