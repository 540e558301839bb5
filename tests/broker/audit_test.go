package broker_test

import (
	"encoding/json"
	"strings"
	"testing"
)

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
