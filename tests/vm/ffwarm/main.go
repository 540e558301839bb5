// Command ffwarm makes the test guest's warm Firefox profile on the host (images/test-guest/build.sh runs it):
// it writes firefoxprofile's user.js into a new profile directory, starts Debian's Firefox ESR on it headless
// with its remote agent on a free loopback port, waits for a WebDriver BiDi session (Firefox answers session.new
// once its first window finished its startup tasks) and closes the browser with browser.close, so Firefox
// writes what a first run makes (the startup cache of compiled chrome scripts, the add-on and search databases,
// places) and exits cleanly. The guest copies the profile instead of making one: under TCG a first run took
// minutes of Firefox's main thread.
//
//	ffwarm -firefox /usr/bin/firefox-esr -profile DIR
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/coder/websocket"

	"glovebox.dev/shared/firefoxprofile"
)

func main() {
	bin := flag.String("firefox", "firefox-esr", "the Firefox program")
	dir := flag.String("profile", "", "the profile directory to make (replaced when it exists)")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "ffwarm: -profile is required")
		os.Exit(2)
	}
	if err := run(*bin, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "ffwarm:", err)
		os.Exit(1)
	}
}

func run(bin, dir string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := firefoxprofile.WriteProfile(dir); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	home, err := os.MkdirTemp("", "ffwarm-home")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	cmd := exec.Command(bin, append([]string{"-headless"}, firefoxprofile.Args(port, dir)...)...)
	cmd.Env = append(os.Environ(), "HOME="+home, "MOZ_CRASHREPORTER_DISABLE=1")
	var out limitedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{}) // closed when Firefox exited, waitErr set
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	defer func() {
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
			<-exited
		}
	}()
	ws, err := dial(ctx, port, exited, &waitErr)
	if err != nil {
		return fmt.Errorf("%w\nfirefox output:\n%s", err, out.String())
	}
	defer ws.CloseNow()
	for id, method := range []string{"session.new", "browser.close"} {
		if err := call(ctx, ws, id+1, method); err != nil {
			return fmt.Errorf("%s: %w\nfirefox output:\n%s", method, err, out.String())
		}
	}
	select {
	case <-exited:
	case <-ctx.Done():
		return fmt.Errorf("firefox did not exit after browser.close: %w", ctx.Err())
	}
	// A clean exit removes the profile's lock; one left behind would make the guest's Firefox refuse the copy.
	for _, lock := range []string{"lock", ".parentlock"} {
		os.Remove(filepath.Join(dir, lock))
	}
	return nil
}

// dial connects to the BiDi endpoint once Firefox listens (it takes a second or two on the host).
func dial(ctx context.Context, port int, exited <-chan struct{}, waitErr *error) (*websocket.Conn, error) {
	for {
		ws, _, err := websocket.Dial(ctx, fmt.Sprintf("ws://127.0.0.1:%d/session", port), nil)
		if err == nil {
			return ws, nil
		}
		select {
		case <-exited:
			return nil, fmt.Errorf("firefox exited before its remote agent listened: %v", *waitErr)
		case <-ctx.Done():
			return nil, fmt.Errorf("no webdriver bidi on port %d: %w", port, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// call sends one command with empty parameters (session.new with no capabilities) and waits for its answer.
func call(ctx context.Context, ws *websocket.Conn, id int, method string) error {
	params := map[string]any{}
	if method == "session.new" {
		params["capabilities"] = map[string]any{}
	}
	b, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err != nil {
		return err
	}
	if err := ws.Write(ctx, websocket.MessageText, b); err != nil {
		return err
	}
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			if method == "browser.close" && ctx.Err() == nil {
				return nil // Firefox may close the socket before it answers
			}
			return err
		}
		var m struct {
			ID    int    `json:"id"`
			Type  string `json:"type"`
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &m) != nil || m.ID != id {
			continue
		}
		if m.Type == "error" {
			return fmt.Errorf("error %s", m.Error)
		}
		return nil
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// limitedBuffer keeps the last 16 KiB Firefox printed, for the error.
type limitedBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b = append(l.b, p...)
	if len(l.b) > 16<<10 {
		l.b = l.b[len(l.b)-16<<10:]
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.b)
}
