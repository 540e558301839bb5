package endpoint

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"
)

// serialPort is the guest end of a virtio-serial port: a device opened once and kept open across host
// connections (a second open fails with EBUSY). A read returns 0 at once while no host is connected.
type serialPort interface {
	io.ReadWriteCloser
	SetDeadline(t time.Time) error
	SetReadDeadline(t time.Time) error
	SetWriteDeadline(t time.Time) error
	// hostConnected says whether a host is connected now, without blocking.
	hostConnected() (bool, error)
	// waitHost returns once a host is connected; net.ErrClosed when done closes first.
	waitHost(done <-chan struct{}) error
	// writeNow writes what the port takes at once and never blocks.
	writeNow(p []byte)
}

// serialAddr is the address of both ends of a serial connection: the port's path.
type serialAddr string

// Network is "serial".
func (a serialAddr) Network() string { return SchemeSerial }
func (a serialAddr) String() string  { return string(a) }

// serialListener serves one host connection at a time over a virtio-serial port: Accept waits for a host,
// discards everything before a valid HELLO, answers READY and returns the connection; the next Accept waits
// until that connection is closed and every read and write on it has returned, so no byte of an old
// connection is ever written after the READY of a new one.
type serialListener struct {
	port serialPort
	addr serialAddr
	log  *slog.Logger

	free     chan struct{} // holds a token while no connection is open
	done     chan struct{}
	closeErr error
	once     sync.Once
}

// listenSerial opens the guest end of the virtio-serial port at path.
func listenSerial(e Endpoint, log *slog.Logger) (net.Listener, error) {
	p, err := openPort(e.Path)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", e, err)
	}
	return newSerialListener(p, e.Path, log), nil
}

func newSerialListener(p serialPort, path string, log *slog.Logger) *serialListener {
	l := &serialListener{port: p, addr: serialAddr(path), log: log, free: make(chan struct{}, 1), done: make(chan struct{})}
	l.free <- struct{}{}
	// A host already connected had a connection with a previous agent process on this port: tell it that
	// connection is over, so it reconnects and handshakes instead of waiting for answers that never come.
	if ok, err := p.hostConnected(); err == nil && ok {
		p.writeNow([]byte("\n" + serialReset))
	}
	return l
}

// Accept waits for the previous connection to end and for a host to connect and handshake.
func (l *serialListener) Accept() (net.Conn, error) {
	select {
	case <-l.free:
	case <-l.done:
		return nil, net.ErrClosed
	}
	for {
		c, err := l.handshake()
		if err == nil {
			return c, nil
		}
		select {
		case <-l.done:
			return nil, net.ErrClosed
		default:
		}
		if !errors.Is(err, errSerialEOF) {
			l.log.Warn("serial handshake", "port", string(l.addr), "error", err)
			time.Sleep(handshakeRetry)
		}
	}
}

// handshakeRetry is the pause after a failed handshake other than the host leaving (a failed write), so a
// broken port is not spun on.
const handshakeRetry = 50 * time.Millisecond

func (l *serialListener) handshake() (net.Conn, error) {
	if err := l.port.waitHost(l.done); err != nil {
		return nil, err
	}
	l.port.SetDeadline(time.Time{})
	nonce, rest, err := scanFor(l.port, serialHelloWord, func(string) bool { return true }, 0)
	if err != nil {
		return nil, err
	}
	if _, err := l.port.Write(readyLine(nonce)); err != nil {
		return nil, err
	}
	return &serialConn{l: l, rest: rest}, nil
}

// Close closes the port; Accept and every connection's reads and writes fail.
func (l *serialListener) Close() error {
	l.once.Do(func() {
		close(l.done)
		l.closeErr = l.port.Close()
	})
	return l.closeErr
}

// Addr is the port's path.
func (l *serialListener) Addr() net.Addr { return l.addr }

// serialConn is one host connection over the port. A read of 0 (the host left) ends it for good: every
// later read returns io.EOF and every write fails, even if a host has connected again meanwhile, so two
// host connections are never spliced into one stream.
type serialConn struct {
	l    *serialListener
	rmu  sync.Mutex // held by a read in flight
	wmu  sync.Mutex // held by a write in flight
	rest []byte     // read past the HELLO; guarded by rmu

	mu     sync.Mutex // guards ended, closed and the port's deadlines while open
	ended  bool
	closed bool
	once   sync.Once
}

func (c *serialConn) isEnded() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ended || c.closed
}

// Read reads from the port until the host leaves.
func (c *serialConn) Read(p []byte) (int, error) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if len(c.rest) > 0 {
		n := copy(p, c.rest)
		c.rest = c.rest[n:]
		return n, nil
	}
	if c.isEnded() {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	n, err := c.l.port.Read(p)
	if n > 0 {
		return n, nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		c.mu.Lock()
		c.ended = true
		c.mu.Unlock()
		return 0, io.EOF
	}
	if c.isEnded() {
		return 0, net.ErrClosed
	}
	return 0, err
}

// Write writes to the port; it fails once the connection ended or closed, also while blocked (the port
// holds writes while no host is connected).
func (c *serialConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.isEnded() {
		return 0, net.ErrClosed
	}
	n, err := c.l.port.Write(p)
	if err != nil && c.isEnded() {
		return n, net.ErrClosed
	}
	return n, err
}

// Close ends the connection: reads and writes in flight fail at once, and the listener accepts the next
// host connection after they have returned.
func (c *serialConn) Close() error {
	c.once.Do(func() {
		c.mu.Lock()
		c.closed = true
		c.l.port.SetDeadline(time.Unix(1, 0))
		c.mu.Unlock()
		go func() {
			// Once every read and write in flight has returned (later ones see closed and fail at once),
			// the port is free for the next connection.
			c.rmu.Lock()
			c.wmu.Lock()
			c.wmu.Unlock()
			c.rmu.Unlock()
			c.l.free <- struct{}{}
		}()
	})
	return nil
}

func (c *serialConn) setDeadline(set func(time.Time) error, t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return net.ErrClosed
	}
	return set(t)
}

// SetDeadline sets the port's deadlines while the connection is open.
func (c *serialConn) SetDeadline(t time.Time) error { return c.setDeadline(c.l.port.SetDeadline, t) }

// SetReadDeadline sets the port's read deadline while the connection is open.
func (c *serialConn) SetReadDeadline(t time.Time) error {
	return c.setDeadline(c.l.port.SetReadDeadline, t)
}

// SetWriteDeadline sets the port's write deadline while the connection is open.
func (c *serialConn) SetWriteDeadline(t time.Time) error {
	return c.setDeadline(c.l.port.SetWriteDeadline, t)
}

// LocalAddr is the port's path.
func (c *serialConn) LocalAddr() net.Addr { return c.l.addr }

// RemoteAddr is the port's path too: the host end has no address of its own.
func (c *serialConn) RemoteAddr() net.Addr { return c.l.addr }
