package endpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
)

// maxHVSockReply bounds the hypervisor's one-line answer to CONNECT ("OK <host port>\n").
const maxHVSockReply = 64

// dialHVSock connects to a guest's vsock port through the hybrid vsock unix socket of Firecracker or Cloud
// Hypervisor: it writes "CONNECT PORT\n" and expects "OK <host port>\n" before the stream is the guest's.
// The reply is read a byte at a time so nothing of the guest's stream is consumed with it.
func dialHVSock(ctx context.Context, e Endpoint) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", e.Path)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", e, err)
	}
	if err := hvsockConnect(ctx, c, e.Port); err != nil {
		c.Close()
		return nil, fmt.Errorf("dial %s: %w", e, err)
	}
	return c, nil
}

func hvsockConnect(ctx context.Context, c net.Conn, port uint32) error {
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	defer stop()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	if _, err := fmt.Fprintf(c, "CONNECT %d\n", port); err != nil {
		return fmt.Errorf("hybrid vsock CONNECT: %w", err)
	}
	var line []byte
	b := make([]byte, 1)
	for {
		n, err := c.Read(b)
		if n == 1 {
			if b[0] == '\n' {
				break
			}
			line = append(line, b[0])
			if len(line) > maxHVSockReply {
				return fmt.Errorf("hybrid vsock CONNECT %d: reply longer than %d bytes", port, maxHVSockReply)
			}
			continue
		}
		if ctx.Err() != nil || isTimeout(err) {
			return fmt.Errorf("hybrid vsock CONNECT %d: no reply: %w", port, context.DeadlineExceeded)
		}
		if err != nil {
			// Firecracker closes the socket when nothing listens on the guest port.
			return fmt.Errorf("hybrid vsock CONNECT %d: closed before OK (is the agent listening on vsock port %d?): %w", port, port, err)
		}
	}
	reply := string(bytes.TrimSuffix(line, []byte("\r")))
	if reply != "OK" && !strings.HasPrefix(reply, "OK ") {
		return fmt.Errorf("hybrid vsock CONNECT %d: %w: reply %q", port, errHVSockRefused, reply)
	}
	c.SetDeadline(time.Time{})
	return nil
}

// errHVSockRefused is a CONNECT answered with anything but OK.
var errHVSockRefused = errors.New("refused")

// isTimeout says whether err is a deadline expiring (the context's, set on the conn).
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
