package server

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// TestLogRefusedOwner: an owner that validation refuses (a megabyte of text, a line break, text that is no id)
// is not copied into the RPC log line; the line stays short and the request is refused naming owner.
func TestLogRefusedOwner(t *testing.T) {
	var logs bytes.Buffer
	var logMu sync.Mutex
	log := slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &logMu}, nil))
	in := &fakeInput{}
	clip := &fakeClipboard{}
	s := New(Options{Logger: log}, Backends{Input: AdaptInput(in), Clipboard: AdaptClipboard(clip)})
	conn := dialServices(t, s)
	ctx := context.Background()
	act, cb := agentv1.NewActServiceClient(conn), agentv1.NewClipboardServiceClient(conn)

	for _, owner := range []string{strings.Repeat("hunter2", 1<<17), "pass word: hunter2\nlevel=ERROR msg=forged"} {
		_, err := act.Act(ctx, &agentv1.ActRequest{Owner: owner, Action: &agentv1.ActRequest_Wait{Wait: &agentv1.Wait{}}})
		if got := violatedFields(t, err); len(got) != 1 || got[0] != "owner" {
			t.Errorf("act: violations %v, want [owner]", got)
		}
		_, err = cb.WriteClipboard(ctx, &agentv1.WriteClipboardRequest{Owner: owner, Text: "x"})
		if got := violatedFields(t, err); len(got) != 1 || got[0] != "owner" {
			t.Errorf("write clipboard: violations %v, want [owner]", got)
		}
	}
	logMu.Lock()
	out := logs.String()
	logMu.Unlock()
	if strings.Contains(out, "hunter2") {
		t.Errorf("refused owner in the log (%d bytes):\n%.400s", len(out), out)
	}
	if n := strings.Count(out, "\n"); n != 4 {
		t.Errorf("%d log lines, want 4", n)
	}
}
