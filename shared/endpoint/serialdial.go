package endpoint

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// serialHandshakeScan bounds how many stale bytes the host discards before the guest's READY: the guest's
// unsent output of an old connection (a few HTTP/2 frames, at most a screenshot) is far below it.
const serialHandshakeScan = 64 << 20

// serialPaths enforces, per chardev socket, one connection at a time and SerialReconnectGap between the
// end of one and the start of the next, for every dialer in this process.
var serialPaths = struct {
	mu    sync.Mutex
	state map[string]*serialPath
}{state: map[string]*serialPath{}}

type serialPath struct {
	busy chan struct{} // holds a token while a connection is open or being set up
	// closed is when the last connection ended; zero before the first one, which waits a whole gap too
	// because a previous process may have closed its connection just now.
	closed time.Time
}

func serialPathFor(p string) *serialPath {
	serialPaths.mu.Lock()
	defer serialPaths.mu.Unlock()
	s, ok := serialPaths.state[p]
	if !ok {
		s = &serialPath{busy: make(chan struct{}, 1)}
		serialPaths.state[p] = s
	}
	return s
}

// dialSerialUnix connects to a QEMU virtio-serial chardev socket and runs the host side of the serial
// handshake (see serialproto.go): it waits until no other connection to the same socket is open in this
// process and SerialReconnectGap has passed since the last one closed, sends HELLO with a fresh nonce, and
// discards everything until the guest's READY with that nonce. The returned conn ends (read error) when the
// guest announces an agent restart.
func dialSerialUnix(ctx context.Context, e Endpoint) (net.Conn, error) {
	sp := serialPathFor(e.Path)
	select {
	case sp.busy <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("dial %s: %w", e, ctx.Err())
	}
	release := func() {
		serialPaths.mu.Lock()
		sp.closed = time.Now()
		serialPaths.mu.Unlock()
		<-sp.busy
	}
	serialPaths.mu.Lock()
	wait := SerialReconnectGap
	if !sp.closed.IsZero() {
		wait = time.Until(sp.closed.Add(SerialReconnectGap))
	}
	serialPaths.mu.Unlock()
	if wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			<-sp.busy
			return nil, fmt.Errorf("dial %s: %w", e, ctx.Err())
		}
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", e.Path)
	if err != nil {
		// Nothing reached QEMU: no gap needed before the next try.
		<-sp.busy
		return nil, fmt.Errorf("dial %s: %w", e, err)
	}
	rest, err := serialHostHandshake(ctx, c)
	if err != nil {
		c.Close()
		release()
		return nil, fmt.Errorf("dial %s: serial handshake: %w", e, err)
	}
	return &serialHostConn{prefixConn: prefixConn{Conn: c, rest: rest}, release: release}, nil
}

// serialHostHandshake sends HELLO on c and returns what followed the matching READY. It gives up when ctx
// ends.
func serialHostHandshake(ctx context.Context, c net.Conn) ([]byte, error) {
	nonce, err := newNonce()
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	defer stop()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	if _, err := c.Write(helloLine(nonce)); err != nil {
		return nil, err
	}
	_, rest, err := scanFor(c, serialReadyWord, func(n string) bool { return n == nonce }, serialHandshakeScan)
	if err != nil {
		if ctx.Err() != nil || isTimeout(err) {
			return nil, fmt.Errorf("no READY from the guest: %w", context.DeadlineExceeded)
		}
		if errors.Is(err, errSerialEOF) {
			return nil, errors.New("QEMU closed the chardev socket")
		}
		return nil, err
	}
	c.SetDeadline(time.Time{})
	return rest, nil
}

// errSerialReset is the read error of a host connection whose guest agent restarted.
var errSerialReset = errors.New("guest agent restarted (serial RESET)")

// serialHostConn is the host end after the handshake. It watches for the guest's RESET line and records
// when it closed, for the reconnect gap.
type serialHostConn struct {
	prefixConn
	watch   resetWatcher
	once    sync.Once
	release func()
}

// Read fails with errSerialReset once the guest announced a restart; the bytes of that read are dropped
// because they belong to no connection.
func (c *serialHostConn) Read(p []byte) (int, error) {
	n, err := c.prefixConn.Read(p)
	if n > 0 && c.watch.seen(p[:n]) {
		return 0, errSerialReset
	}
	return n, err
}

// Close closes the socket and starts the reconnect gap.
func (c *serialHostConn) Close() error {
	err := c.prefixConn.Close()
	c.once.Do(c.release)
	return err
}
