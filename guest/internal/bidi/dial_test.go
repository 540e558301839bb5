package bidi

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// fakeSessions is a stand-in for Firefox's BiDi endpoint for the dial rules only: it answers session.new after
// delay and allows one session at a time (ended by session.end on its own connection; a closed connection does
// not end it), as Firefox does; other commands succeed.
type fakeSessions struct {
	delay time.Duration

	mu      sync.Mutex
	active  bool
	created int
}

func (f *fakeSessions) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer ws.CloseNow()
	ctx := context.Background()
	owner := false // this connection holds the session
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			return
		}
		var cmd struct {
			ID     uint64 `json:"id"`
			Method string `json:"method"`
		}
		if json.Unmarshal(data, &cmd) != nil {
			return
		}
		answer := map[string]any{"type": "success", "id": cmd.ID, "result": map[string]any{}}
		switch cmd.Method {
		case "session.new":
			f.mu.Lock()
			refused := f.active
			f.active = true
			if !refused {
				f.created++
				owner = true
			}
			f.mu.Unlock()
			if refused {
				answer = map[string]any{"type": "error", "id": cmd.ID, "error": "session not created", "message": "Maximum number of active sessions"}
			} else {
				time.Sleep(f.delay)
				answer["result"] = map[string]any{"sessionId": "s1", "capabilities": map[string]any{"browserName": "firefox", "browserVersion": "153.8.0"}}
			}
		case "session.end":
			f.mu.Lock()
			if owner {
				f.active, owner = false, false
			}
			f.mu.Unlock()
		}
		b, _ := json.Marshal(answer)
		if ws.Write(ctx, websocket.MessageText, b) != nil {
			return
		}
	}
}

// TestDialOutlivesEveryCaller: a session.new answered after every caller stopped waiting is kept for the next
// call, not held by a connection nobody has (Firefox then refused every later session.new: the QEMU stage's
// Firefox under TCG, where each 10 s guest call ended before the answer). Fails on the old code with
// "session not created".
func TestDialOutlivesEveryCaller(t *testing.T) {
	fake := &fakeSessions{delay: 300 * time.Millisecond}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	_, portText, _ := net.SplitHostPort(srv.Listener.Addr().String())
	port, _ := strconv.Atoi(portText)
	b := New(Config{Ports: []int{port}})
	defer b.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	_, err := b.browser(ctx, port, false)
	cancel()
	if err == nil {
		t.Fatal("the first call did not time out before session.new was answered")
	}
	// The next call comes after the dial ended, as the next 10 s guest call did under TCG.
	deadline := time.Now().Add(5 * time.Second)
	for {
		b.mu.Lock()
		pending := len(b.dialing)
		b.mu.Unlock()
		if pending == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the dial did not end within 5 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		f, err := b.browser(ctx, port, false)
		cancel()
		if err == nil {
			if f.version != "Firefox/153.8.0" {
				t.Errorf("version %q", f.version)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no browser 5 s after the first session.new: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if fake.created != 1 {
		t.Errorf("%d sessions created, want 1", fake.created)
	}
}
