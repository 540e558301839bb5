package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"glovebox.dev/shared/errdefs"
)

// errConnClosed is the error of a call on a connection that is gone (the browser exited or we closed it).
var errConnClosed = errors.New("devtools connection closed")

// errTabDown is the error of a call on a tab whose page crashed or that closed while the call waited.
var errTabDown = errors.New("the tab closed or its page crashed")

// downOf is the channel down answers, or nil (never ready) without one.
func downOf(down func() <-chan struct{}) <-chan struct{} {
	if down == nil {
		return nil
	}
	return down()
}

// conn is one websocket to a browser's DevTools endpoint, multiplexing flat sessions (one per attached tab):
// commands carry an id and a session id, replies go back to their caller, events go to their session's
// handler. It deliberately does no more than that: it enables nothing on a tab by itself and never closes one
// (closing the websocket detaches our sessions; the browser keeps every tab).
type conn struct {
	ws   *remote.Conn
	log  *slog.Logger
	next atomic.Int64

	mu       sync.Mutex
	pending  map[int64]chan *cdproto.Message
	handlers map[target.SessionID]func(method string, params jsonv2.Value)
	subs     map[subKey][]chan jsonv2.Value
	err      error
	done     chan struct{}
}

type subKey struct {
	session target.SessionID
	method  string
}

// dial connects to a browser websocket URL ("ws://127.0.0.1:9222/devtools/browser/<id>").
func dial(ctx context.Context, wsURL string, log *slog.Logger) (*conn, error) {
	ws, err := remote.DialContext(ctx, wsURL)
	if err != nil {
		return nil, fmt.Errorf("dial devtools: %w: %w", errdefs.ErrUnavailable, err)
	}
	c := &conn{
		ws: ws, log: log,
		pending:  map[int64]chan *cdproto.Message{},
		handlers: map[target.SessionID]func(string, jsonv2.Value){},
		subs:     map[subKey][]chan jsonv2.Value{},
		done:     make(chan struct{}),
	}
	go c.read()
	return c, nil
}

// read delivers every message until the websocket fails or closes.
func (c *conn) read() {
	for {
		msg := new(cdproto.Message)
		if err := c.ws.Read(context.Background(), msg); err != nil {
			c.fail(err)
			return
		}
		if msg.ID != 0 {
			c.mu.Lock()
			ch := c.pending[msg.ID]
			delete(c.pending, msg.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- msg
			}
			continue
		}
		method := string(msg.Method)
		if method == "Target.detachedFromTarget" {
			var ev target.EventDetachedFromTarget
			if jsonv2.Unmarshal(msg.Params, &ev, chromedp.DefaultUnmarshalOptions) == nil {
				c.dispatch(ev.SessionID, "Target.detachedFromTarget", msg.Params)
			}
		}
		c.dispatch(msg.SessionID, method, msg.Params)
	}
}

// dispatch hands an event to its session's handler and subscribers. Subscribers that do not keep up lose
// events (their channels are buffered); the handler runs on the reader goroutine and must not block.
func (c *conn) dispatch(session target.SessionID, method string, params jsonv2.Value) {
	c.mu.Lock()
	h := c.handlers[session]
	subs := c.subs[subKey{session, method}]
	c.mu.Unlock()
	if h != nil {
		h(method, params)
	}
	for _, ch := range subs {
		select {
		case ch <- params:
		default:
		}
	}
}

// fail ends the connection: every pending call and every later call fails with err.
func (c *conn) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = fmt.Errorf("%w: %w", errConnClosed, err)
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	handlers := c.handlers
	c.handlers = map[target.SessionID]func(string, jsonv2.Value){}
	close(c.done)
	go func() {
		for _, h := range handlers {
			h("Target.detachedFromTarget", nil)
		}
	}()
}

// alive reports whether the connection still works.
func (c *conn) alive() bool {
	select {
	case <-c.done:
		return false
	default:
		return true
	}
}

// close closes the websocket. Chrome detaches our sessions; no tab is closed.
func (c *conn) close() error {
	err := c.ws.Close()
	c.fail(errors.New("closed by us"))
	return err
}

// call sends a command on a session ("" for the browser) and decodes its result into res (when not nil).
func (c *conn) call(ctx context.Context, session target.SessionID, method string, params, res any) error {
	return c.callUntil(ctx, nil, session, method, params, res)
}

// callUntil is call that gives up with TARGET_GONE when down answers a closed channel (the session's tab
// crashed or closed: its reply may never come).
func (c *conn) callUntil(ctx context.Context, down func() <-chan struct{}, session target.SessionID, method string, params, res any) error {
	var buf []byte
	if params != nil {
		var err error
		if buf, err = jsonv2.Marshal(params, chromedp.DefaultMarshalOptions); err != nil {
			return fmt.Errorf("%s: %w: %w", method, errdefs.ErrInternal, err)
		}
	}
	id := c.next.Add(1)
	ch := make(chan *cdproto.Message, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return fmt.Errorf("%s: %w: %w", method, errdefs.ErrTargetGone, err)
	}
	c.pending[id] = ch
	c.mu.Unlock()
	msg := &cdproto.Message{ID: id, SessionID: session, Method: cdproto.MethodType(method), Params: buf}
	if err := c.ws.Write(ctx, msg); err != nil {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return fmt.Errorf("%s: %w: %w", method, errdefs.ErrTargetGone, err)
	}
	select {
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return fmt.Errorf("%s: %w: %w", method, errdefs.ErrInterrupted, ctx.Err())
	case <-downOf(down):
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return fmt.Errorf("%s: %w: %w", method, errdefs.ErrTargetGone, errTabDown)
	case reply, ok := <-ch:
		switch {
		case !ok:
			c.mu.Lock()
			err := c.err
			c.mu.Unlock()
			return fmt.Errorf("%s: %w: %w", method, errdefs.ErrTargetGone, err)
		case reply.Error != nil:
			return &cdpError{method: method, err: reply.Error}
		case res != nil:
			if err := jsonv2.Unmarshal(reply.Result, res, chromedp.DefaultUnmarshalOptions); err != nil {
				return fmt.Errorf("%s: decode: %w: %w", method, errdefs.ErrInternal, err)
			}
		}
		return nil
	}
}

// command is one command of a batch.
type command struct {
	method string
	params any
	// res, when not nil, receives the result.
	res any
}

// batch sends commands on a session back to back, in order, without waiting for each reply, then waits for
// every reply; it answers the first error. Chrome runs a session's commands in the order they arrive, so the
// order holds; only the round trips overlap (input events that Chrome acknowledges on the next animation
// frame cost one frame for the batch, not one each).
func (c *conn) batch(ctx context.Context, s session, cmds []command) error {
	session := s.id
	chans := make([]chan *cdproto.Message, len(cmds))
	ids := make([]int64, len(cmds))
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return fmt.Errorf("%s: %w: %w", cmds[0].method, errdefs.ErrTargetGone, err)
	}
	for i := range cmds {
		ids[i] = c.next.Add(1)
		chans[i] = make(chan *cdproto.Message, 1)
		c.pending[ids[i]] = chans[i]
	}
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		for _, id := range ids {
			delete(c.pending, id)
		}
		c.mu.Unlock()
	}
	for i, cmd := range cmds {
		buf, err := jsonv2.Marshal(cmd.params, chromedp.DefaultMarshalOptions)
		if err == nil {
			err = c.ws.Write(ctx, &cdproto.Message{ID: ids[i], SessionID: session, Method: cdproto.MethodType(cmd.method), Params: buf})
		}
		if err != nil {
			forget()
			return fmt.Errorf("%s: %w: %w", cmd.method, errdefs.ErrTargetGone, err)
		}
	}
	var first error
	for i, ch := range chans {
		select {
		case <-ctx.Done():
			forget()
			return fmt.Errorf("%s: %w: %w", cmds[i].method, errdefs.ErrInterrupted, ctx.Err())
		case <-downOf(s.down):
			forget()
			return fmt.Errorf("%s: %w: %w", cmds[i].method, errdefs.ErrTargetGone, errTabDown)
		case reply, ok := <-ch:
			switch {
			case !ok && first == nil:
				first = fmt.Errorf("%s: %w: %w", cmds[i].method, errdefs.ErrTargetGone, errConnClosed)
			case ok && reply.Error != nil && first == nil:
				first = &cdpError{method: cmds[i].method, err: reply.Error}
			case ok && reply.Error == nil && cmds[i].res != nil:
				if err := jsonv2.Unmarshal(reply.Result, cmds[i].res, chromedp.DefaultUnmarshalOptions); err != nil && first == nil {
					first = fmt.Errorf("%s: decode: %w: %w", cmds[i].method, errdefs.ErrInternal, err)
				}
			}
		}
	}
	return first
}

// cdpError is an error the browser answered a command with.
type cdpError struct {
	method string
	err    *cdproto.Error
}

func (e *cdpError) Error() string { return fmt.Sprintf("%s: %s", e.method, e.err.Message) }

// Unwrap classes a browser error: a session or target the browser no longer knows (the tab closed or
// crashed while the command was on its way) is gone; anything else is internal (the browser refused what we
// asked).
func (e *cdpError) Unwrap() error {
	if strings.Contains(e.err.Message, "Session with given id not found") || strings.Contains(e.err.Message, "No target with given id") {
		return errdefs.ErrTargetGone
	}
	return errdefs.ErrInternal
}

// subscribe buffers a session's events of one method until cancel is called.
func (c *conn) subscribe(session target.SessionID, method string) (<-chan jsonv2.Value, func()) {
	ch := make(chan jsonv2.Value, 64)
	k := subKey{session, method}
	c.mu.Lock()
	c.subs[k] = append(c.subs[k], ch)
	c.mu.Unlock()
	return ch, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		list := c.subs[k]
		for i, x := range list {
			if x == ch {
				c.subs[k] = append(list[:i:i], list[i+1:]...)
				break
			}
		}
		if len(c.subs[k]) == 0 {
			delete(c.subs, k)
		}
	}
}

// handle sets the event handler of a session (nil removes it).
func (c *conn) handle(session target.SessionID, h func(method string, params jsonv2.Value)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h == nil {
		delete(c.handlers, session)
		return
	}
	c.handlers[session] = h
}

// session is one flat DevTools session: the browser itself (id "") or one attached tab. It implements
// cdp.Session, so cdproto's typed commands run on it with cdp.Call.
type session struct {
	c  *conn
	id target.SessionID
	// down, when set, answers a channel closed while the session's tab is closed or crashed.
	down func() <-chan struct{}
}

var _ cdp.Session = session{}

// Call sends a command on the session.
func (s session) Call(ctx context.Context, method string, params, res any) error {
	return s.c.callUntil(ctx, s.down, s.id, method, params, res)
}

// Subscribe buffers the session's events of one method.
func (s session) Subscribe(method string) (<-chan jsonv2.Value, func()) {
	return s.c.subscribe(s.id, method)
}
