package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"glovebox.dev/host/internal/audit"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// TestErrors checks how broker errors are printed and that they exit 1.
func TestErrors(t *testing.T) {
	f := startFakeBroker(t)
	tests := []struct {
		name string
		err  error
		args []string
		want string
	}{
		{"field violations", &errdefs.BadRequest{Violations: []errdefs.Violation{
			{Field: "request.action.click.count", Description: "must be 1..3, got 7"},
			{Field: "request.action.click.button", Description: "unknown button 9"},
		}}, []string{"act", "-s", "s-1", "click", "-count", "7"},
			"INVALID_ARGUMENT: request.action.click.count: must be 1..3, got 7\nINVALID_ARGUMENT: request.action.click.button: unknown button 9\n"},
		{"reason and metadata", errgrpc.WithMetadata(fmt.Errorf("guest g1 is held by alice: %w", errdefs.ErrControlHeld), map[string]string{"holder": "alice", "guest": "g1"}),
			[]string{"act", "-s", "s-1", "key", "Return"},
			"CONTROL_HELD: guest g1 is held by alice: control held\n  guest: g1\n  holder: alice\n"},
		{"confirmation", fmt.Errorf("right click needs confirm: %w", errdefs.ErrConfirmationRequired), []string{"act", "-s", "s-1", "click", "-button", "right"},
			"CONFIRMATION_REQUIRED: right click needs confirm: confirmation required\n"},
		{"plain status without ErrorInfo", status.Error(codes.Unavailable, "connection refused"), []string{"guests"},
			"UNAVAILABLE: connection refused\n"},
		{"terminal escapes in a message", fmt.Errorf("window \x1b[31mred: %w", errdefs.ErrTargetGone), []string{"windows", "-s", "s-1"},
			"TARGET_GONE: window \\x1b[31mred: target gone\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.setErr(tt.err)
			defer f.setErr(nil)
			code, stdout, stderr := f.run(t, "", nil, tt.args...)
			if code != ExitFailure {
				t.Errorf("exit %d, want %d", code, ExitFailure)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if diff := cmp.Diff(tt.want, stderr); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBrokerUnreachable(t *testing.T) {
	f := startFakeBroker(t)
	code, _, stderr := f.run(t, "", map[string]string{"GLOVEBOX_BROKER": "unix:///nonexistent/glovebox.sock"}, "-timeout", "2s", "guests")
	if code != ExitFailure || !strings.HasPrefix(stderr, "UNAVAILABLE: ") {
		t.Errorf("exit %d stderr %q, want 1 and UNAVAILABLE", code, stderr)
	}
}

// TestTypedTextNeverPrinted checks that typing and clipboard writes print what was done, never the text.
func TestTypedTextNeverPrinted(t *testing.T) {
	f := startFakeBroker(t)
	const canary = "canary-7f3a9c"
	for _, args := range [][]string{
		{"act", "-s", "s-1", "type", canary},
		{"act", "-s", "s-1", "type", canary, "-json"},
		{"clipboard", "write", "-s", "s-1", canary},
		{"clipboard", "write", "-s", "s-1", canary, "-json"},
	} {
		code, stdout, stderr := f.run(t, "", nil, args...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if strings.Contains(stdout+stderr, canary) {
			t.Errorf("%v printed the text: %q %q", args, stdout, stderr)
		}
	}
	code, stdout, _ := f.run(t, "", nil, "act", "-s", "s-1", "type", canary)
	want := "done: window 0x20 \"Entry\", source active, generation 2 (audit seq 9)\npointer: 10,20\ntyped: 13 characters (0 through a remapped keycode)\n"
	if diff := cmp.Diff(want, stdout); code != ExitOK || diff != "" {
		t.Errorf("exit %d, stdout (-want +got):\n%s", code, diff)
	}
}

func TestHumanOutput(t *testing.T) {
	f := startFakeBroker(t)
	f.clip = "from the guest\n"
	shot := filepath.Join(t.TempDir(), "obs.png")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"clipboard", "read", "-s", "s-1"}, "from the guest\n"},
		{[]string{"cursor", "-s", "s-1"}, "3,4 window 0x20 display -\n"},
		{[]string{"sessions", "create", "g1"}, "s-1\n"},
		{[]string{"control", "release", "g1"}, "released g1; generation 3\n"},
		{[]string{"control", "get", "g1"}, "g1: not held; generation 3\n"},
		{[]string{"windows", "-s", "s-1"}, "ID    PID  GEOMETRY   CLASS  STATE    TITLE\n0x20  9    30x40+1+2  -      focused  evil\\x1b]0;title\n"},
		{[]string{"act", "-s", "s-1", "key", "Return", "-observe", "-o", shot},
			"done: window 0x20 \"Entry\", source active, generation 2 (audit seq 9)\npointer: 10,20\n" +
				"observation: saved to " + shot + ": 1280x800 png, 12 bytes, scale 1, region 1280x800+0+0, settled\n"},
		{[]string{"act", "-s", "s-1", "click", "5", "6"},
			"done: window 0x20 \"Entry\", source active, generation 2 (audit seq 9)\npointer: 10,20\nchanged: 30x40+1+2\n" +
				"broker: 1.5 ms (intent audit 0.2, queue 0.0, guest 1.0, outcome audit 0.3)\n"},
		{[]string{"-json", "sessions", "get", "s-1"}, `{"session":{"id":"s-1","guest":"g1","principal":"uid:1000","mode":"SESSION_MODE_ACT","state":"SESSION_STATE_OPEN"}}` + "\n"},
	}
	for _, tt := range tests {
		code, stdout, stderr := f.run(t, "", nil, tt.args...)
		if code != ExitOK {
			t.Errorf("%v: exit %d: %s", tt.args, code, stderr)
			continue
		}
		// protojson may add random spaces after ':' and ','; compare without them.
		got, want := stdout, tt.want
		if tt.args[0] == "-json" {
			got, want = strings.ReplaceAll(got, " ", ""), strings.ReplaceAll(want, " ", "")
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%v stdout (-want +got):\n%s", tt.args, diff)
		}
	}
	if b, err := os.ReadFile(shot); err != nil || string(b) != string(f.image) {
		t.Errorf("observation file: %q, %v", b, err)
	}
}

// writeLog writes n records for guest with a real audit.Log; each record's args hold the redacted text
// "typed-<i>".
func writeLog(t *testing.T, dir string, key audit.Key, guest string, n int) {
	t.Helper()
	l, err := audit.Open(dir, key, audit.Options{RotateBytes: 2048})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := 1; i <= n; i++ {
		args := &structpb.Struct{Fields: map[string]*structpb.Value{"request": structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{
			"type": structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"text": key.Text(fmt.Sprintf("typed-%d", i))}}),
		}})}}
		rec := &brokerv1.AuditRecord{Guest: guest, Phase: brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE, Rpc: "/glovebox.broker.v1.ComputerService/Act",
			SessionId: "s-1", Principal: "uid:1000", Code: "OK", Args: args}
		if _, err := l.Append(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAuditVerifyAndProve(t *testing.T) {
	f := startFakeBroker(t)
	dir := t.TempDir()
	keyFile := filepath.Join(t.TempDir(), "audit.key")
	key, err := audit.LoadOrCreateKey(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	writeLog(t, dir, key, "g1", 30)
	writeLog(t, dir, key, "g2", 3)

	code, stdout, stderr := f.run(t, "", nil, "audit", "verify", "-dir", dir)
	if code != ExitOK || !strings.Contains(stdout, "guest g1: ok: 30 records") || !strings.Contains(stdout, "guest g2: ok: 3 records") {
		t.Fatalf("verify: exit %d\n%s%s", code, stdout, stderr)
	}

	// prove: by record in the log, over the whole log, from a record file printed by the tool itself.
	code, stdout, _ = f.run(t, "", nil, "audit", "prove", "-key", keyFile, "-text", "typed-12", "-dir", dir, "-guest", "g1", "-seq", "12")
	if want := "guest g1 seq 12 /glovebox.broker.v1.ComputerService/Act session s-1: request.type.text\n"; code != ExitOK || stdout != want {
		t.Errorf("prove -seq 12: exit %d, stdout %q, want %q", code, stdout, want)
	}
	code, stdout, _ = f.run(t, "typed-5", nil, "audit", "prove", "-key", keyFile, "-stdin", "-dir", dir, "-guest", "g1")
	if code != ExitOK || !strings.Contains(stdout, "seq 5 ") || strings.Count(stdout, "\n") != 1 {
		t.Errorf("prove over the log: exit %d, stdout %q", code, stdout)
	}
	code, stdout, _ = f.run(t, "", nil, "audit", "prove", "-key", keyFile, "-text", "typed-12", "-dir", dir, "-guest", "g1", "-seq", "13")
	if code != ExitFailure || stdout != "no record holds this text\n" {
		t.Errorf("prove wrong seq: exit %d, stdout %q", code, stdout)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "g2", "audit-*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no g2 log file")
	}
	code, stdout, _ = f.run(t, "", nil, "audit", "prove", "-key", keyFile, "-text", "typed-3", files[0])
	if code != ExitOK || !strings.Contains(stdout, "guest g2 seq 3 ") {
		t.Errorf("prove record file: exit %d, stdout %q", code, stdout)
	}
	otherKey := filepath.Join(t.TempDir(), "other.key")
	if _, err := audit.LoadOrCreateKey(otherKey); err != nil {
		t.Fatal(err)
	}
	if code, stdout, _ = f.run(t, "", nil, "audit", "prove", "-key", otherKey, "-text", "typed-3", files[0]); code != ExitFailure {
		t.Errorf("prove with another key: exit %d, stdout %q", code, stdout)
	}
	if code, _, stderr = f.run(t, "", nil, "audit", "prove", "-key", filepath.Join(dir, "missing.key"), "-text", "x", files[0]); code != ExitFailure || !strings.Contains(stderr, "audit key") {
		t.Errorf("prove with a missing key: exit %d, stderr %q", code, stderr)
	}

	// Edit one record of g1 in place: verify fails at that record, names the file and line, exits 1.
	g1files, _ := filepath.Glob(filepath.Join(dir, "g1", "audit-*.jsonl"))
	if len(g1files) < 2 {
		t.Fatalf("want rotation into several files, got %v", g1files)
	}
	target := g1files[1]
	b, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines[1] = strings.Replace(lines[1], `"principal":"uid:1000"`, `"principal":"uid:0000"`, 1)
	if err := os.WriteFile(target, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = f.run(t, "", nil, "audit", "verify", "-dir", dir, "-guest", "g1")
	wantPrefix := fmt.Sprintf("guest g1: BROKEN at %s:2 (seq ", target)
	if code != ExitFailure || !strings.HasPrefix(stdout, wantPrefix) || !strings.Contains(stdout, "hash mismatch") {
		t.Errorf("verify after edit: exit %d, stdout:\n%s\nwant prefix %q", code, stdout, wantPrefix)
	}
	code, stdout, _ = f.run(t, "", nil, "audit", "verify", "-dir", dir, "-guest", "g2", "-json")
	if code != ExitOK || !strings.Contains(stdout, `"ok":true`) {
		t.Errorf("verify g2 -json: exit %d, stdout %q", code, stdout)
	}
}

func TestAuditTail(t *testing.T) {
	f := startFakeBroker(t)
	for i := 1; i <= 2500; i++ {
		s := "s-1"
		if i%2 == 0 {
			s = "s-2"
		}
		f.records = append(f.records, &brokerv1.AuditRecord{Seq: uint64(i), Guest: "g1", SessionId: s, Rpc: "/glovebox.broker.v1.ComputerService/Act", Code: "OK"})
	}
	seqs := func(out string) []string {
		var s []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if line != "" {
				s = append(s, strings.Fields(line)[0])
			}
		}
		return s
	}
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"audit", "tail", "-guest", "g1", "-n", "3"}, []string{"2498", "2499", "2500"}},
		{[]string{"audit", "tail", "-guest", "g1", "-n", "2", "-session", "s-1"}, []string{"2497", "2499"}},
		{[]string{"audit", "tail", "-guest", "g1", "-n", "1"}, []string{"2500"}},
	}
	for _, tt := range tests {
		code, stdout, stderr := f.run(t, "", nil, tt.args...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", tt.args, code, stderr)
		}
		if diff := cmp.Diff(tt.want, seqs(stdout)); diff != "" {
			t.Errorf("%v seqs (-want +got):\n%s", tt.args, diff)
		}
	}

	// -f follows from the record after the last one shown; the fake sends the backlog and ends the stream.
	f.records = f.records[:5]
	before := len(f.requests())
	code, stdout, stderr := f.run(t, "", nil, "audit", "tail", "-guest", "g1", "-n", "2", "-f", "-json")
	if code != ExitOK {
		t.Fatalf("tail -f: exit %d: %s", code, stderr)
	}
	if n := strings.Count(stdout, "\n"); n != 2 || !strings.Contains(stdout, `"session_id":"s-1"`) {
		t.Errorf("tail -f -json output %q", stdout)
	}
	var watch *brokerv1.WatchAuditRecordsRequest
	for _, r := range f.requests()[before:] {
		if w, ok := r.(*brokerv1.WatchAuditRecordsRequest); ok {
			watch = w
		}
	}
	if watch.GetFromSeq() != 6 {
		t.Errorf("watch from_seq %d, want 6", watch.GetFromSeq())
	}
}
