package audit

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"go.uber.org/goleak"
	"google.golang.org/protobuf/types/known/timestamppb"
)

func TestMain(m *testing.M) {
	if os.Getenv(crashHelperEnv) != "" {
		crashHelper()
		return
	}
	goleak.VerifyTestMain(m)
}

var testKey = Key(bytes.Repeat([]byte{0x42}, KeySize))

// openLog opens a log in a fresh directory and closes it at the end of the test.
func openLog(t testing.TB, opts Options) (*Log, string) {
	t.Helper()
	dir := t.TempDir()
	l, err := Open(dir, testKey, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, dir
}

// clickRecord is a typical mutation intent.
func clickRecord(guest, session string, i int) *brokerv1.AuditRecord {
	req := &brokerv1.ActRequest{SessionId: session, Request: &agentv1.ActRequest{
		Owner:  session,
		Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{At: &agentv1.Point{X: int32(i % 1280), Y: 7}}},
	}}
	return &brokerv1.AuditRecord{
		Guest: guest, Phase: brokerv1.AuditPhase_AUDIT_PHASE_INTENT, Rpc: "/glovebox.broker.v1.ComputerService/Act",
		SessionId: session, Principal: "uid:1000", Args: Redact(testKey, req),
		Target: &agentv1.FrozenTarget{DisplayId: ":0", WindowId: 0x400007, WindowTitle: "Terminal"},
	}
}

// appendN appends n click records for guest and fails the test on error.
func appendN(t testing.TB, l *Log, guest string, n int) []*brokerv1.AuditRecord {
	t.Helper()
	var recs []*brokerv1.AuditRecord
	for i := range n {
		rec := clickRecord(guest, fmt.Sprintf("s%d", i%2), i)
		rec.Time = timestamppb.New(time.Unix(1700000000, int64(i)))
		if _, err := l.Append(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	return recs
}

// files returns the guest's log files in order.
func files(t testing.TB, dir, guest string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, guest, "audit-*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// allLines returns every line of the guest's files with its position.
func allLines(t testing.TB, dir, guest string) ([]Position, [][]byte) {
	t.Helper()
	var pos []Position
	var lines [][]byte
	for _, f := range files(t, dir, guest) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, ln := range bytes.SplitAfter(b, []byte("\n")) {
			if len(ln) == 0 {
				continue
			}
			pos = append(pos, Position{File: f, Line: i + 1})
			lines = append(lines, ln)
		}
	}
	return pos, lines
}
