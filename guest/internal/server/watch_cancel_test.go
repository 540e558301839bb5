package server

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// slowScreen changes constantly; its second capture finishes only after the client went away (a capture is not
// interrupted by the stream's context), so the frame it returns cannot be sent.
type slowScreen struct {
	fakeScreen
	mu       sync.Mutex
	captures int
	second   chan struct{} // closed when the second capture starts
}

func (s *slowScreen) Capture(ctx context.Context, _ *agentv1.ScreenshotOptions) (*agentv1.Image, bool, uint64, error) {
	s.mu.Lock()
	s.captures++
	n := s.captures
	s.mu.Unlock()
	if n == 2 {
		close(s.second)
	}
	if n > 1 {
		<-ctx.Done()
		time.Sleep(50 * time.Millisecond) // the transport has torn the stream down
	}
	return &agentv1.Image{Data: []byte{1}}, false, uint64(n), nil
}

func (s *slowScreen) WaitChange(_ context.Context, seq uint64) (uint64, error) { return seq + 1, nil }

// TestWatchScreenClientGoneIsClean: a client that goes away while a frame is being captured ends the stream
// the way any other cancellation does (OK, logged at info), not as a failed RPC logged as a warning.
func TestWatchScreenClientGoneIsClean(t *testing.T) {
	var logs bytes.Buffer
	var logMu sync.Mutex
	log := slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &logMu}, nil))
	scr := &slowScreen{second: make(chan struct{})}
	s := New(Options{Logger: log}, Backends{Screen: AdaptScreen(scr)})
	obs := agentv1.NewObserveServiceClient(dialServices(t, s))

	ctx, cancel := context.WithCancel(context.Background())
	stream, err := obs.WatchScreen(ctx, &agentv1.WatchScreenRequest{MaxFps: 30})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil {
		t.Fatal(err)
	}
	<-scr.second
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for {
		logMu.Lock()
		out := logs.String()
		logMu.Unlock()
		if strings.Contains(out, "WatchScreen") {
			if !strings.Contains(out, "level=INFO") || !strings.Contains(out, "code=OK") {
				t.Errorf("client gone logged as a failure:\n%s", out)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no log line for the stream:\n%s", out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
