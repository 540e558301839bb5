package bidi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// Connection limits.
const (
	// maxMessageBytes bounds one message from the browser: a full-page PNG capture in base64 of a long page is the
	// largest; the agent's own messages are bounded at 32 MiB.
	maxMessageBytes = 64 << 20
	// dialTimeout bounds opening the WebSocket, session.new and session.subscribe in the background (see
	// connectShared; Close ends it sooner). Firefox answers session.new in well under a second on a desktop, but
	// under TCG on a loaded 2-core host it took minutes from its start, and a dial given up part way can leave the
	// one session Firefox allows behind it, refusing every later session.new.
	dialTimeout = 10 * time.Minute
	// writeTimeout bounds sending one command: a browser that reads nothing for that long is gone.
	writeTimeout = 30 * time.Second
)

// errConnClosed is the error of a call on a connection that is gone (the browser exited or we closed it).
var errConnClosed = errors.New("webdriver bidi connection closed")

// conn is one WebSocket to a browser's WebDriver BiDi endpoint (ws://127.0.0.1:<port>/session) carrying one BiDi
// session: commands carry an id, replies go back to their caller, events go to the handler. Firefox allows one
// BiDi session per browser, so the backend keeps one conn per browser.
type conn struct {
	ws   *websocket.Conn
	log  *slog.Logger
	next atomic.Uint64
	// version is the browser's version as session.new answered it ("153.8.0").
	version string

	mu      sync.Mutex
	pending map[uint64]chan *message
	handler func(method string, params json.RawMessage)
	err     error
	done    chan struct{}
}

// command is a BiDi command as sent.
type command struct {
	ID     uint64 `json:"id"`
	Method string `json:"method"`
	Params any    `json:"params"`
}

// message is any message from the browser: a command's success or error, or an event.
type message struct {
	Type    string          `json:"type"`
	ID      *uint64         `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   string          `json:"error"`
	Message string          `json:"message"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// bidiError is an error answer: code is the BiDi error code ("no such frame", "invalid argument", ...).
type bidiError struct {
	method, code, message string
}

// Error names the method and the error code; the browser's message is left out (it can quote a page's URL or
// script): the error's untrusted metadata carries it.
func (e *bidiError) Error() string { return e.method + ": " + e.code }

// Unwrap maps BiDi error codes to error classes.
func (e *bidiError) Unwrap() error {
	switch e.code {
	case "no such frame", "no such history entry":
		return errdefs.ErrTargetGone
	case "no such node", "no such handle", "detached shadow root", "stale element reference":
		return errdefs.ErrStaleRef
	case "unsupported operation", "unknown command":
		return errdefs.ErrUnsupportedAction
	case "move target out of bounds":
		return errdefs.ErrInvalidArgument
	}
	return errdefs.ErrInternal
}

// dialBiDi opens the WebSocket of the BiDi endpoint on port and sends session.new; handler gets every event on the
// reader goroutine and must not block or call the browser.
func dialBiDi(ctx context.Context, port int, log *slog.Logger, handler func(string, json.RawMessage)) (*conn, error) {
	ws, _, err := websocket.Dial(ctx, fmt.Sprintf("ws://127.0.0.1:%d/session", port), &websocket.DialOptions{HTTPClient: quickClient})
	if err != nil {
		return nil, fmt.Errorf("dial webdriver bidi on port %d: %w: %w", port, errdefs.ErrUnavailable, err)
	}
	ws.SetReadLimit(maxMessageBytes)
	c := &conn{ws: ws, log: log, pending: map[uint64]chan *message{}, handler: handler, done: make(chan struct{})}
	go c.read()
	var res struct {
		SessionID    string `json:"sessionId"`
		Capabilities struct {
			BrowserName    string `json:"browserName"`
			BrowserVersion string `json:"browserVersion"`
		} `json:"capabilities"`
	}
	if err := c.call(ctx, "session.new", map[string]any{"capabilities": map[string]any{}}, &res); err != nil {
		c.close()
		return nil, fmt.Errorf("webdriver bidi session on port %d: %w", port, err)
	}
	c.version = res.Capabilities.BrowserVersion
	return c, nil
}

// read delivers every message until the WebSocket fails or closes.
func (c *conn) read() {
	for {
		_, data, err := c.ws.Read(context.Background())
		if err != nil {
			c.fail(err)
			return
		}
		m := new(message)
		if err := json.Unmarshal(data, m); err != nil {
			c.log.Warn("webdriver bidi: undecodable message", "bytes", len(data), "err", err)
			continue
		}
		if m.Type == "event" {
			if c.handler != nil {
				c.handler(m.Method, m.Params)
			}
			continue
		}
		if m.ID == nil {
			continue
		}
		c.mu.Lock()
		ch := c.pending[*m.ID]
		delete(c.pending, *m.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

func (c *conn) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	close(c.done)
}

func (c *conn) alive() bool {
	select {
	case <-c.done:
		return false
	default:
		return true
	}
}

// close ends the session (the browser and its tabs stay) and the WebSocket.
func (c *conn) close() {
	if c.alive() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c.call(ctx, "session.end", struct{}{}, nil)
		cancel()
	}
	c.ws.Close(websocket.StatusNormalClosure, "")
	c.fail(errConnClosed)
}

// call sends one command and decodes its result into res (nil: dropped). It returns when the answer arrives,
// ctx ends, or the connection fails.
func (c *conn) call(ctx context.Context, method string, params, res any) error {
	if ctx.Err() != nil {
		return ctxErr(ctx, method)
	}
	id := c.next.Add(1)
	data, err := json.Marshal(command{ID: id, Method: method, Params: params})
	if err != nil {
		return fmt.Errorf("%s: encode: %w: %w", method, errdefs.ErrInternal, err)
	}
	ch := make(chan *message, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return fmt.Errorf("%s: %w: %w", method, errdefs.ErrUnavailable, errConnClosed)
	}
	c.pending[id] = ch
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}
	// The write is not bounded by ctx: coder/websocket closes the connection when a write's context ends, and
	// a caller's deadline (a wait_for of 300 ms) would end the session for every tab, leaving Firefox holding it.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	err = c.ws.Write(wctx, websocket.MessageText, data)
	cancel()
	if err != nil {
		forget()
		return fmt.Errorf("%s: %w: %w", method, errdefs.ErrUnavailable, err)
	}
	select {
	case m := <-ch:
		if m.Type == "error" {
			return errgrpc.WithMetadata(&bidiError{method: method, code: m.Error, message: m.Message},
				map[string]string{errgrpc.Untrusted("detail"): errgrpc.UntrustedValue(m.Message)})
		}
		if res == nil || len(m.Result) == 0 {
			return nil
		}
		if err := json.Unmarshal(m.Result, res); err != nil {
			return fmt.Errorf("%s: decode: %w: %w", method, errdefs.ErrInternal, err)
		}
		return nil
	case <-c.done:
		forget()
		return fmt.Errorf("%s: %w: %w", method, errdefs.ErrUnavailable, errConnClosed)
	case <-ctx.Done():
		forget()
		return ctxErr(ctx, method)
	}
}

// ctxErr is the error of a call whose context ended: TIMEOUT for a deadline, INTERRUPTED for a cancel.
func ctxErr(ctx context.Context, what string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w: %w", what, errdefs.ErrTimeout, ctx.Err())
	}
	return fmt.Errorf("%s: %w: %w", what, errdefs.ErrInterrupted, ctx.Err())
}
