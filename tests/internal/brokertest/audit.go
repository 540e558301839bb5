package brokertest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// AuditRecords reads every complete record of a guest's audit files under auditDir, oldest file first (a
// line cut short by a killed broker is left out).
func AuditRecords(t testing.TB, auditDir, guest string) []*brokerv1.AuditRecord {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(auditDir, guest, "audit-*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*brokerv1.AuditRecord
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for len(data) > 0 {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				break
			}
			rec := &brokerv1.AuditRecord{}
			if err := protojson.Unmarshal(data[:i], rec); err != nil {
				t.Fatalf("%s: %v: %q", f, err, data[:i])
			}
			out = append(out, rec)
			data = data[i+1:]
		}
	}
	return out
}
