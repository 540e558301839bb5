package atspi

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strings"
	"sync"
)

// A snapshot pipelines tens of thousands of small calls. Through godbus's own unix transport each message costs a
// write syscall and its answer two or three reads; bufConn, the transport of the peer-to-peer connections, reads
// through a buffer and coalesces the writes: callers append to a pending buffer and one goroutine writes whatever
// has piled up while its previous write ran. On Chromium (about 22,000 calls per snapshot) that halves the
// agent's CPU per call.

// bufConnReadSize is the read buffer: many answers per read.
const bufConnReadSize = 64 << 10

// bufConn is a net.Conn's stream with buffered reads and coalesced writes; it is an io.ReadWriteCloser for
// dbus.NewConn.
type bufConn struct {
	c net.Conn
	r *bufio.Reader

	mu      sync.Mutex
	pending []byte
	err     error // the first write error: every later Write returns it
	kick    chan struct{}
	done    chan struct{}
	once    sync.Once
}

// dialUnix connects to a D-Bus unix address (path= or abstract=), or returns false when addr is another kind.
func dialUnix(ctx context.Context, addr string) (*bufConn, bool, error) {
	rest, ok := strings.CutPrefix(addr, "unix:")
	if !ok {
		return nil, false, nil
	}
	var name string
	for _, kv := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "path":
			name = unescapeAddr(v)
		case "abstract":
			name = "@" + unescapeAddr(v)
		}
	}
	if name == "" {
		return nil, false, nil
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", name)
	if err != nil {
		return nil, true, err
	}
	bc := &bufConn{c: c, r: bufio.NewReaderSize(c, bufConnReadSize), kick: make(chan struct{}, 1), done: make(chan struct{})}
	go bc.flush()
	return bc, true, nil
}

// unescapeAddr undoes D-Bus address escaping (%xx).
func unescapeAddr(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, ok := unhex(s[i+1], s[i+2]); ok {
				b.WriteByte(v)
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unhex(h, l byte) (byte, bool) {
	d := func(c byte) (byte, bool) {
		switch {
		case c >= '0' && c <= '9':
			return c - '0', true
		case c >= 'a' && c <= 'f':
			return c - 'a' + 10, true
		case c >= 'A' && c <= 'F':
			return c - 'A' + 10, true
		}
		return 0, false
	}
	a, ok1 := d(h)
	b, ok2 := d(l)
	return a<<4 | b, ok1 && ok2
}

// Read reads through the buffer.
func (b *bufConn) Read(p []byte) (int, error) { return b.r.Read(p) }

// Write queues p for the flushing goroutine; it fails once a write has failed or the connection is closed.
func (b *bufConn) Write(p []byte) (int, error) {
	b.mu.Lock()
	if b.err != nil {
		b.mu.Unlock()
		return 0, b.err
	}
	b.pending = append(b.pending, p...)
	b.mu.Unlock()
	select {
	case b.kick <- struct{}{}:
	default:
	}
	return len(p), nil
}

// flush writes what is pending, in one write per batch, until the connection closes.
func (b *bufConn) flush() {
	var spare []byte
	for {
		select {
		case <-b.kick:
		case <-b.done:
			return
		}
		b.mu.Lock()
		out := b.pending
		b.pending = spare[:0]
		b.mu.Unlock()
		if len(out) > 0 {
			if _, err := b.c.Write(out); err != nil {
				b.mu.Lock()
				b.err = err
				b.mu.Unlock()
				_ = b.Close()
				return
			}
		}
		spare = out
	}
}

// Close closes the connection; pending writes are dropped (their calls fail when the reader sees the close).
func (b *bufConn) Close() error {
	err := net.ErrClosed
	b.once.Do(func() {
		close(b.done)
		b.mu.Lock()
		if b.err == nil {
			b.err = net.ErrClosed
		}
		b.mu.Unlock()
		err = b.c.Close()
	})
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}
