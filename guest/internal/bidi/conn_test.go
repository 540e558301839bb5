package bidi

import (
	"context"
	"testing"
	"time"
)

// TestCallDeadlineKeepsSession: a call whose context has ended (a wait_for's short deadline running out as it
// sends) fails alone; the session goes on serving the next call. coder/websocket closes a connection whose write's
// context ends, which ended our one Firefox session and left Firefox refusing a new one.
func TestCallDeadlineKeepsSession(t *testing.T) {
	lf := startFirefox(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f, err := lf.b.browser(ctx, lf.port, false)
	if err != nil {
		t.Fatal(err)
	}
	ended, end := context.WithCancel(ctx)
	end()
	// The library picks at random between an ended context and a free write lock: 20 calls reach the write.
	for range 20 {
		if err := f.conn.call(ended, "browsingContext.getTree", map[string]any{}, nil); err == nil {
			t.Fatal("a call with an ended context succeeded")
		}
	}
	if !f.conn.alive() {
		t.Fatal("the connection closed after a call with an ended context")
	}
	if _, err := f.contexts(ctx); err != nil {
		t.Fatalf("the next call: %v", err)
	}
}
