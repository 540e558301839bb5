package broker_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// auditRecords reads a guest's log files as they are on disk, in file order, skipping an unfinished last
// line (a write never acknowledged).
func auditRecords(t testing.TB, auditDir, guest string) []*brokerv1.AuditRecord {
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

// verifyJSON is one line of `glovebox audit verify -json`.
type verifyJSON struct {
	Guest    string   `json:"guest"`
	OK       bool     `json:"ok"`
	Records  int      `json:"records"`
	LastSeq  uint64   `json:"lastSeq"`
	Problems []string `json:"problems"`
}

// verifyAudit runs `glovebox audit verify -json` (audit.Verify over every guest's files) and fails the
// test unless every chain verifies; it returns the report of each guest.
func verifyAudit(t testing.TB, auditDir string) map[string]verifyJSON {
	t.Helper()
	code, stdout, stderr := glovebox(t, "", "audit", "verify", "-json", "-dir", auditDir)
	out := map[string]verifyJSON{}
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var v verifyJSON
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("audit verify output %q: %v (stderr %s)", line, err, stderr)
		}
		out[v.Guest] = v
		if !v.OK {
			t.Errorf("audit verify: guest %s: %v", v.Guest, v.Problems)
		}
	}
	if code != 0 {
		t.Errorf("audit verify: exit %d\n%s%s", code, stdout, stderr)
	}
	return out
}
