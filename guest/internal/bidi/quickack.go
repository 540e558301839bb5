package bidi

import (
	"context"
	"net"
	"net/http"
	"syscall"
)

// Delayed ACKs. Firefox's remote agent writes a message as one WebSocket frame on a socket with Nagle's algorithm
// on; a message that ends in a partial segment (on loopback, one of ~16 KB to ~128 KB: a snapshot's answer, a
// screenshot) waits for our ACK of the segment before it, and Linux delays that ACK by up to 40 ms. Measured on
// the benchmark page: an 83 KB answer took 48 ms, a 160 KB one 4 ms. quickConn turns on TCP_QUICKACK before
// every read (Linux clears it again by itself), so the ACK goes at once and the message comes without the stall.

// quickClient is the HTTP client the WebSocket is dialed with: its connections are quickConns.
var quickClient = &http.Client{Transport: &http.Transport{DialContext: dialQuick, ForceAttemptHTTP2: false}}

func dialQuick(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c, nil
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return c, nil
	}
	return &quickConn{TCPConn: tc, raw: raw}, nil
}

// quickConn is a TCP connection that acknowledges what it reads at once (TCP_QUICKACK before each read).
type quickConn struct {
	*net.TCPConn
	raw syscall.RawConn
}

// Read turns quick ACKs on and reads.
func (c *quickConn) Read(p []byte) (int, error) {
	c.raw.Control(func(fd uintptr) {
		syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_QUICKACK, 1)
	})
	return c.TCPConn.Read(p)
}
