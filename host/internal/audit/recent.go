package audit

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"time"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// requestIDMember is how a record with a request_id shows it in its line (field names are never escaped).
var requestIDMember = []byte(`"request_id":"`)

// Recent calls fn, in seq order, for each of the guest's durable records that carry a request_id and were
// written at or after since: what the broker reads at start to rebuild its request_id index. Files last
// modified before since are not read, and lines without a request_id are not parsed, so the cost follows the
// window's records, not the log's size.
func (l *Log) Recent(guest string, since time.Time, fn func(*brokerv1.AuditRecord) error) error {
	g, err := l.guest(guest, false)
	if err != nil {
		return err
	}
	g.waitPending()
	g.mu.Lock()
	durable, segs := g.durable, g.segs
	g.mu.Unlock()
	start := len(segs)
	for i := len(segs) - 1; i >= 0; i-- {
		st, err := os.Stat(segs[i].path)
		if err != nil || st.ModTime().Before(since) {
			break
		}
		start = i
	}
	if start == len(segs) {
		return nil
	}
	err = scanLines(segs[start:], segs[start].first, func(_ Position, line []byte, torn bool) error {
		if torn || !bytes.Contains(line, requestIDMember) {
			return nil
		}
		rec, err := parseLine(line)
		switch {
		case err != nil || rec.GetRequestId() == "" || rec.GetTime().AsTime().Before(since):
			return nil
		case rec.GetSeq() > durable:
			return errStop
		}
		return fn(rec)
	})
	if err != nil && !errors.Is(err, errStop) {
		return fmt.Errorf("audit log of guest %q: %w", guest, err)
	}
	return nil
}

// Fingerprint returns the hex HMAC-SHA256 under the log's key of the concatenated parts (the broker's
// AuditRecord.request_hash): keyed, so the log never holds a plain hash of a request an attacker could
// confirm a guess against.
func (l *Log) Fingerprint(parts ...[]byte) string {
	m := hmac.New(sha256.New, l.key)
	for _, p := range parts {
		m.Write(p)
	}
	var sum [sha256.Size]byte
	return hex.EncodeToString(m.Sum(sum[:0]))
}
