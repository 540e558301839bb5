package endpoint

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// pipePort stands in for the guest end of a virtio-serial port with the behaviour measured on QEMU: while
// no host is connected a read returns 0 at once and a write waits for the next host connection; a host
// connection is a net.Pipe whose host end the test (or chardevServer) holds. What it cannot show (the
// kernel's POLLHUP, QEMU's buffering) the QEMU test in tests/vm covers.
type pipePort struct {
	mu     sync.Mutex
	cur    net.Conn // guest end of the current host connection; nil while no host is connected
	rdl    time.Time
	wdl    time.Time
	closed bool
}

// connect attaches a new host connection and returns its host end.
func (p *pipePort) connect() net.Conn {
	g, h := net.Pipe()
	p.mu.Lock()
	p.cur = g
	g.SetReadDeadline(p.rdl)
	g.SetWriteDeadline(p.wdl)
	p.mu.Unlock()
	return h
}

// disconnect detaches the current host connection; the guest end reads EOF from then on.
func (p *pipePort) disconnect(h net.Conn) {
	p.mu.Lock()
	if p.cur != nil {
		p.cur = nil
	}
	p.mu.Unlock()
	h.Close()
}

func (p *pipePort) current() (net.Conn, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cur, p.closed
}

func (p *pipePort) Read(b []byte) (int, error) {
	c, closed := p.current()
	if closed {
		return 0, net.ErrClosed
	}
	if c == nil {
		return 0, nil
	}
	n, err := c.Read(b)
	if errors.Is(err, io.EOF) {
		return n, nil
	}
	if errors.Is(err, io.ErrClosedPipe) {
		err = net.ErrClosed
	}
	return n, err
}

func (p *pipePort) Write(b []byte) (int, error) {
	for {
		c, closed := p.current()
		if closed {
			return 0, net.ErrClosed
		}
		if c != nil {
			n, err := c.Write(b)
			if err == nil || errors.Is(err, errPipeDeadline(err)) {
				return n, err
			}
			// The host left mid-write: like the port, keep the bytes for the next host.
			b = b[n:]
			continue
		}
		p.mu.Lock()
		dl := p.wdl
		p.mu.Unlock()
		if !dl.IsZero() && time.Now().After(dl) {
			return 0, errDeadline
		}
		time.Sleep(time.Millisecond)
	}
}

var errDeadline = errors.New("i/o timeout")

func errPipeDeadline(err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return err
	}
	return errDeadline
}

// Close closes the guest's end only: like QEMU, the host's connection stays up (it learns of the restart
// from the next agent's RESET).
func (p *pipePort) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.cur != nil {
		p.cur.SetDeadline(time.Unix(1, 0))
	}
	return nil
}

// reopen is the next agent process opening the port.
func (p *pipePort) reopen() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = false
	if p.cur != nil {
		p.cur.SetDeadline(time.Time{})
	}
}

func (p *pipePort) SetDeadline(t time.Time) error {
	p.SetReadDeadline(t)
	return p.SetWriteDeadline(t)
}

func (p *pipePort) SetReadDeadline(t time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rdl = t
	if p.cur != nil {
		p.cur.SetReadDeadline(t)
	}
	return nil
}

func (p *pipePort) SetWriteDeadline(t time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.wdl = t
	if p.cur != nil {
		p.cur.SetWriteDeadline(t)
	}
	return nil
}

func (p *pipePort) hostConnected() (bool, error) {
	c, _ := p.current()
	return c != nil, nil
}

func (p *pipePort) waitHost(done <-chan struct{}) error {
	for {
		if ok, _ := p.hostConnected(); ok {
			return nil
		}
		select {
		case <-done:
			return net.ErrClosed
		case <-time.After(time.Millisecond):
		}
	}
}

func (p *pipePort) writeNow(b []byte) {
	if c, _ := p.current(); c != nil {
		go c.Write(b)
	}
}
