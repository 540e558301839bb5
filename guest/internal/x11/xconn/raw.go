package xconn

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// Raw is a minimal X connection of our own for bursts of requests that have no reply, such as XTEST's
// FakeInput: requests are appended to a buffer, and Sync writes the whole burst with one write followed by a
// QueryPointer and waits for that reply. Through xgb each request costs two goroutine hand-offs and a write
// system call; a typed word is some forty requests. Raw has no event loop: events the server sends it (only
// MappingNotify, which every client gets) are skipped while waiting for a reply. A Raw is used by one
// goroutine at a time.
type Raw struct {
	conn net.Conn
	rd   *bufio.Reader
	buf  []byte
	seq  uint16 // sequence number of the last request appended
	sent uint16 // sequence number of the last request written
}

// RawTimeout bounds one Sync: an X server that does not answer a round trip in this time is gone.
const RawTimeout = 10 * time.Second

// Opcodes of the core requests Raw sends.
const (
	opQueryPointer = 38
)

// OpenRaw connects to the display (empty: $DISPLAY) with the MIT-MAGIC-COOKIE-1 entry of the X authority
// file that matches it, when there is one, as Xlib does.
func OpenRaw(display string) (*Raw, error) {
	if display == "" {
		display = os.Getenv("DISPLAY")
	}
	network, addr, host, number, err := parseDisplay(display)
	if err != nil {
		return nil, err
	}
	conn, err := net.DialTimeout(network, addr, RawTimeout)
	if err != nil {
		return nil, fmt.Errorf("x display %q: %w", display, err)
	}
	r := &Raw{conn: conn, rd: bufio.NewReaderSize(conn, 4096)}
	name, data := authority(host, number)
	if err := r.setup(name, data); err != nil {
		conn.Close()
		return nil, fmt.Errorf("x display %q: %w", display, err)
	}
	return r, nil
}

// parseDisplay splits [host]:number[.screen] into where to dial; an empty host or "unix" is the local
// socket.
func parseDisplay(display string) (network, addr, host, number string, err error) {
	colon := strings.LastIndex(display, ":")
	if colon < 0 {
		return "", "", "", "", fmt.Errorf("display %q: no ':'", display)
	}
	host, number = display[:colon], display[colon+1:]
	if dot := strings.IndexByte(number, '.'); dot >= 0 {
		number = number[:dot]
	}
	n, err := strconv.Atoi(number)
	if err != nil || n < 0 {
		return "", "", "", "", fmt.Errorf("display %q: bad display number", display)
	}
	if host == "" || host == "unix" {
		return "unix", "/tmp/.X11-unix/X" + number, "", number, nil
	}
	return "tcp", net.JoinHostPort(host, strconv.Itoa(6000+n)), host, number, nil
}

// authority returns the X authority entry for display number on host (local when empty): name and data,
// or nothing when there is no file or no entry (the server may not ask for one).
func authority(host, number string) (string, []byte) {
	file := os.Getenv("XAUTHORITY")
	if file == "" {
		home := os.Getenv("HOME")
		if home == "" {
			return "", nil
		}
		file = home + "/.Xauthority"
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", nil
	}
	if host == "" || host == "localhost" {
		host, _ = os.Hostname()
	}
	const familyLocal, familyWild = 256, 65535
	field := func() ([]byte, bool) {
		if len(b) < 2 {
			return nil, false
		}
		n := int(binary.BigEndian.Uint16(b))
		if len(b) < 2+n {
			return nil, false
		}
		f := b[2 : 2+n]
		b = b[2+n:]
		return f, true
	}
	for len(b) >= 2 {
		family := binary.BigEndian.Uint16(b)
		b = b[2:]
		addr, ok1 := field()
		num, ok2 := field()
		name, ok3 := field()
		data, ok4 := field()
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return "", nil
		}
		if (family == familyWild || (family == familyLocal && string(addr) == host)) &&
			(len(num) == 0 || string(num) == number) && string(name) == "MIT-MAGIC-COOKIE-1" {
			return string(name), data
		}
	}
	return "", nil
}

// setup sends the connection setup (little-endian, protocol 11.0) and reads the server's answer, whose
// contents Raw does not need.
func (r *Raw) setup(authName string, authData []byte) error {
	pad := func(n int) int { return (n + 3) &^ 3 }
	req := make([]byte, 12+pad(len(authName))+pad(len(authData)))
	req[0] = 'l'
	binary.LittleEndian.PutUint16(req[2:], 11)
	binary.LittleEndian.PutUint16(req[6:], uint16(len(authName)))
	binary.LittleEndian.PutUint16(req[8:], uint16(len(authData)))
	copy(req[12:], authName)
	copy(req[12+pad(len(authName)):], authData)
	r.conn.SetDeadline(time.Now().Add(RawTimeout))
	defer r.conn.SetDeadline(time.Time{})
	if _, err := r.conn.Write(req); err != nil {
		return err
	}
	var head [8]byte
	if _, err := io.ReadFull(r.rd, head[:]); err != nil {
		return fmt.Errorf("connection setup: %w", err)
	}
	rest := make([]byte, 4*int(binary.LittleEndian.Uint16(head[6:])))
	if _, err := io.ReadFull(r.rd, rest); err != nil {
		return fmt.Errorf("connection setup: %w", err)
	}
	switch head[0] {
	case 1:
		return nil
	case 0:
		reason := rest[:min(int(head[1]), len(rest))]
		return fmt.Errorf("connection refused by the server: %s", reason)
	default:
		return errors.New("connection refused by the server: further authentication required")
	}
}

// Append adds one complete request (its length field set, a multiple of 4 bytes long) to the burst.
func (r *Raw) Append(req []byte) {
	r.buf = append(r.buf, req...)
	r.seq++
}

// FakeInput appends an XTEST FakeInput request (major is XTEST's opcode on this server): typ is the core
// event type (KeyPress, KeyRelease, ButtonPress, ButtonRelease, MotionNotify), detail the keycode or
// button, x and y the root position for motion.
func (r *Raw) FakeInput(major, typ, detail byte, root uint32, x, y int16) {
	var q [36]byte
	q[0], q[1] = major, 2 // FakeInput
	binary.LittleEndian.PutUint16(q[2:], 9)
	q[4], q[5] = typ, detail
	binary.LittleEndian.PutUint32(q[12:], root)
	binary.LittleEndian.PutUint16(q[24:], uint16(x))
	binary.LittleEndian.PutUint16(q[26:], uint16(y))
	r.Append(q[:])
}

// Sync writes the burst followed by a QueryPointer on root and waits for its reply, so the server has
// processed every request of the burst; it returns the pointer position and state (buttons and modifiers
// down). An X error caused by a request of
// the burst is returned (after the reply, so the connection stays usable).
func (r *Raw) Sync(root uint32) (x, y int16, mask uint16, err error) {
	var q [8]byte
	q[0] = opQueryPointer
	binary.LittleEndian.PutUint16(q[2:], 2)
	binary.LittleEndian.PutUint32(q[4:], root)
	r.Append(q[:])
	want := r.seq
	r.conn.SetDeadline(time.Now().Add(RawTimeout))
	defer r.conn.SetDeadline(time.Time{})
	_, err = r.conn.Write(r.buf)
	r.buf = r.buf[:0]
	if err != nil {
		return 0, 0, 0, err
	}
	r.sent = want
	var xerr error
	var p [32]byte
	for {
		if _, err := io.ReadFull(r.rd, p[:]); err != nil {
			return 0, 0, 0, err
		}
		seq := binary.LittleEndian.Uint16(p[2:])
		switch p[0] {
		case 0: // error
			if xerr == nil {
				xerr = fmt.Errorf("x error %d for request %d.%d (sequence %d)", p[1], p[10],
					binary.LittleEndian.Uint16(p[8:]), seq)
			}
		case 1: // reply
			if extra := 4 * int(binary.LittleEndian.Uint32(p[4:])); extra > 0 {
				if _, err := r.rd.Discard(extra); err != nil {
					return 0, 0, 0, err
				}
			}
			if seq == want {
				return int16(binary.LittleEndian.Uint16(p[16:])), int16(binary.LittleEndian.Uint16(p[18:])),
					binary.LittleEndian.Uint16(p[24:]), xerr
			}
		case 35: // GenericEvent: longer than 32 bytes
			if _, err := r.rd.Discard(4 * int(binary.LittleEndian.Uint32(p[4:]))); err != nil {
				return 0, 0, 0, err
			}
		}
	}
}

// Pending reports how many requests are waiting for Sync.
func (r *Raw) Pending() int { return int(r.seq - r.sent) }

// Close closes the connection; requests not synced are dropped.
func (r *Raw) Close() error { return r.conn.Close() }
