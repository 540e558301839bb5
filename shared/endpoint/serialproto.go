package endpoint

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// The serial handshake. A virtio-serial port is one byte stream that outlives the connections over it: the
// guest keeps the device open across host connections, bytes the guest wrote while no host was connected
// reach the NEXT host connection, and a host that reconnects with no gap is spliced onto the old stream
// without the guest noticing. So every host connection starts with a line nobody else can produce:
//
//	host -> guest   "\nGLOVEBOX-SERIAL v1 HELLO <32 hex nonce>\n"
//	guest -> host   "\nGLOVEBOX-SERIAL v1 READY <the same nonce>\n"
//
// The guest discards every byte before a valid HELLO and the host every byte before the READY carrying its
// own fresh nonce, so stale bytes from an old connection are never read as HTTP/2. HTTP/2 starts right
// after the two lines. A guest agent that opens the port while a host connection is already up (the agent
// restarted) writes
//
//	guest -> host   "\nGLOVEBOX-SERIAL v1 RESET\n"
//
// which the host reads as the end of its connection: it closes, waits SerialReconnectGap and handshakes
// again.
const (
	serialMagic     = "GLOVEBOX-SERIAL v1 "
	serialHelloWord = "HELLO "
	serialReadyWord = "READY "
	serialReset     = serialMagic + "RESET\n"
	serialNonceLen  = 32 // hex digits of a 16-byte nonce
)

// SerialReconnectGap is the least time between the end of one host connection to a virtio-serial port and
// the next: the guest must see the host gone (POLLHUP, a read of 0) to end its side, and QEMU reports a
// disconnect followed at once by a connect as no change at all.
const SerialReconnectGap = 150 * time.Millisecond

// newNonce returns a fresh random handshake nonce in hex.
func newNonce() (string, error) {
	var b [serialNonceLen / 2]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

func helloLine(nonce string) []byte {
	return []byte("\n" + serialMagic + serialHelloWord + nonce + "\n")
}
func readyLine(nonce string) []byte {
	return []byte("\n" + serialMagic + serialReadyWord + nonce + "\n")
}

// errSerialEOF is a read of 0 on the port while scanning: the host is not (or no longer) connected.
var errSerialEOF = errors.New("serial peer gone")

// scanFor reads from r, discarding bytes, until it finds serialMagic+word followed by a nonce and '\n'
// that accept takes. It returns the nonce and the bytes read after the line (which belong to the next
// protocol). A line that is malformed or refused is skipped. At most maxScan bytes are discarded before it
// gives up, so a peer cannot keep it reading forever without a deadline.
func scanFor(r io.Reader, word string, accept func(nonce string) bool, maxScan int) (nonce string, rest []byte, err error) {
	prefix := []byte(serialMagic + word)
	lineLen := len(prefix) + serialNonceLen + 1
	var buf []byte
	discarded := 0
	chunk := make([]byte, 4096)
	for {
		for {
			i := bytes.Index(buf, prefix)
			if i < 0 {
				// Keep a tail that may be the start of the prefix.
				keep := min(len(buf), len(prefix)-1)
				discarded += len(buf) - keep
				buf = append(buf[:0], buf[len(buf)-keep:]...)
				break
			}
			if len(buf)-i < lineLen {
				discarded += i
				buf = append(buf[:0], buf[i:]...)
				break
			}
			n := string(buf[i+len(prefix) : i+lineLen-1])
			if buf[i+lineLen-1] == '\n' && isHexNonce(n) && accept(n) {
				return n, bytes.Clone(buf[i+lineLen:]), nil
			}
			// Not a valid line: skip this occurrence of the prefix.
			discarded += i + 1
			buf = buf[i+1:]
		}
		if maxScan > 0 && discarded > maxScan {
			return "", nil, errors.New("no serial handshake in the stream")
		}
		n, err := r.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if n == 0 && err == nil {
			err = errSerialEOF
		}
		if err == io.EOF {
			err = errSerialEOF
		}
		if err != nil && n == 0 {
			return "", nil, err
		}
	}
}

func isHexNonce(s string) bool {
	if len(s) != serialNonceLen {
		return false
	}
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// resetWatcher finds the guest's RESET line in the stream the host reads after the handshake. That stream is
// HTTP/2 frames, whose payloads carry guest content (a page's text, the clipboard) that may hold any bytes, so
// the line counts only where a frame header would start: a header never starts with '\n' (its first byte is
// the top byte of a 24-bit length, 0 below the 16 MiB maximum). It follows the frames across reads. A RESET
// written while the old agent's last frame was cut short is not seen; keepalive and call deadlines end that
// connection instead.
type resetWatcher struct {
	skip int    // payload bytes of the current frame still to come
	head []byte // what has arrived of the frame header or RESET line at a frame boundary
	lost bool   // something that is neither a frame nor RESET: the frames cannot be followed
}

// frameHeaderLen is the length of an HTTP/2 frame header.
const frameHeaderLen = 9

// seen reports whether p, following the bytes seen before, completes a RESET line at a frame boundary.
func (w *resetWatcher) seen(p []byte) bool {
	const line = "\n" + serialReset
	for len(p) > 0 && !w.lost {
		if w.skip > 0 {
			n := min(w.skip, len(p))
			w.skip -= n
			p = p[n:]
			continue
		}
		want := frameHeaderLen
		if len(w.head) > 0 && w.head[0] == '\n' || len(w.head) == 0 && p[0] == '\n' {
			want = len(line)
		}
		n := min(want-len(w.head), len(p))
		w.head = append(w.head, p[:n]...)
		p = p[n:]
		if len(w.head) < want {
			break
		}
		if want == len(line) {
			if string(w.head) == line {
				return true
			}
			w.lost, w.head = true, nil
			break
		}
		w.skip = int(w.head[0])<<16 | int(w.head[1])<<8 | int(w.head[2])
		w.head = w.head[:0]
	}
	return false
}

// prefixConn is a net.Conn whose first reads return rest (bytes read past the handshake).
type prefixConn struct {
	net.Conn
	mu   sync.Mutex
	rest []byte
}

// Read returns the bytes left over from the handshake first.
func (c *prefixConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	if len(c.rest) > 0 {
		n := copy(p, c.rest)
		c.rest = c.rest[n:]
		c.mu.Unlock()
		return n, nil
	}
	c.mu.Unlock()
	return c.Conn.Read(p)
}
