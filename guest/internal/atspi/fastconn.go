package atspi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// fastConn is a second peer-to-peer connection to an app, used only for a snapshot's pipelined calls. godbus
// spends about 40 us of CPU per call (reflection to encode and decode, a map of header variants, two goroutines
// and a context each); on Chromium, whose cache misses most page nodes, a snapshot makes about 20,000 calls and
// the agent's CPU, not the app, set the pace. fastConn encodes the few argument types those calls have by hand,
// decodes answers of the common signatures directly into the values godbus would have produced (so
// dbus.Call.Store works on them; any other signature goes through godbus's decoder), runs callbacks on its
// reader goroutine, and times calls out with one sweeper instead of a timer each.
type fastConn struct {
	c   net.Conn
	w   *bufConn
	r   *bufio.Reader
	log func(msg string, args ...any)

	mu      sync.Mutex
	serial  uint32
	pending map[uint32]*fastCall
	err     error // set once the connection failed; every pending and later call fails with it
	done    chan struct{}
}

// fastCall is a call waiting for its answer.
type fastCall struct {
	ctx      context.Context
	deadline time.Time
	method   string
	done     func(*dbus.Call)
}

// errFastUnsupported says a call's arguments are not of a type fastConn encodes.
var errFastUnsupported = errors.New("argument type not supported by the fast path")

// dialFast opens a fastConn to a unix D-Bus address and authenticates (EXTERNAL, by uid).
func dialFast(ctx context.Context, addr string) (*fastConn, error) {
	bc, isUnix, err := dialUnix(ctx, addr)
	if err != nil {
		return nil, err
	}
	if !isUnix {
		return nil, fmt.Errorf("not a unix address: %q", addr)
	}
	f := &fastConn{c: bc.c, w: bc, r: bc.r, pending: map[uint32]*fastCall{}, done: make(chan struct{})}
	if err := f.auth(ctx); err != nil {
		bc.Close()
		return nil, err
	}
	go f.read()
	go f.sweep()
	return f, nil
}

// auth runs the EXTERNAL authentication of the D-Bus wire protocol.
func (f *fastConn) auth(ctx context.Context) error {
	if d, ok := ctx.Deadline(); ok {
		_ = f.c.SetReadDeadline(d)
		defer f.c.SetReadDeadline(time.Time{})
	}
	uid := strconv.Itoa(os.Getuid())
	if _, err := fmt.Fprintf(f.w, "\x00AUTH EXTERNAL %x\r\n", uid); err != nil {
		return err
	}
	line, err := f.r.ReadString('\n')
	if err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	if !strings.HasPrefix(line, "OK ") {
		return fmt.Errorf("auth refused: %q", strings.TrimSpace(line))
	}
	_, err = io.WriteString(f.w, "BEGIN\r\n")
	return err
}

// Close closes the connection; pending calls fail.
func (f *fastConn) Close() error {
	f.fail(net.ErrClosed)
	return nil
}

// alive reports whether the connection still works.
func (f *fastConn) alive() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err == nil
}

// fail closes the connection for good and fails every pending call with err.
func (f *fastConn) fail(err error) {
	f.mu.Lock()
	if f.err != nil {
		f.mu.Unlock()
		return
	}
	f.err = err
	pending := f.pending
	f.pending = map[uint32]*fastCall{}
	close(f.done)
	f.mu.Unlock()
	_ = f.w.Close()
	for _, c := range pending {
		c.done(&dbus.Call{Method: c.method, Err: err})
	}
}

// call sends a method call; done gets the answer, a timeout after callTimeout, or ctx's error. done runs on
// the reader's (or the sweeper's) goroutine: it must not block, and may call call again.
func (f *fastConn) call(ctx context.Context, callTimeout time.Duration, dest string, path dbus.ObjectPath, method string, args []any, done func(*dbus.Call)) error {
	i := strings.LastIndexByte(method, '.')
	if i < 0 {
		return errFastUnsupported
	}
	f.mu.Lock()
	if f.err != nil {
		err := f.err
		f.mu.Unlock()
		return err
	}
	f.serial++
	if f.serial == 0 {
		f.serial++
	}
	serial := f.serial
	f.mu.Unlock()
	msg, err := encodeCall(serial, dest, path, method[:i], method[i+1:], args)
	if err != nil {
		return err
	}
	f.mu.Lock()
	if f.err != nil {
		err := f.err
		f.mu.Unlock()
		return err
	}
	f.pending[serial] = &fastCall{ctx: ctx, deadline: time.Now().Add(callTimeout), method: method, done: done}
	f.mu.Unlock()
	if _, err := f.w.Write(msg); err != nil {
		f.fail(err)
	}
	return nil
}

// sweep fails the calls past their deadline or whose context ended.
func (f *fastConn) sweep() {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-f.done:
			return
		case now := <-t.C:
			var expired []*fastCall
			var errs []error
			f.mu.Lock()
			for s, c := range f.pending {
				var err error
				switch {
				case c.ctx.Err() != nil:
					err = c.ctx.Err()
				case now.After(c.deadline):
					err = context.DeadlineExceeded
				default:
					continue
				}
				delete(f.pending, s)
				expired = append(expired, c)
				errs = append(errs, err)
			}
			f.mu.Unlock()
			for i, c := range expired {
				c.done(&dbus.Call{Method: c.method, Err: errs[i]})
			}
		}
	}
}

// read reads answers until the connection fails, handing each to its call.
func (f *fastConn) read() {
	var buf []byte
	for {
		var hdr [16]byte
		if _, err := io.ReadFull(f.r, hdr[:]); err != nil {
			f.fail(err)
			return
		}
		var order binary.ByteOrder
		switch hdr[0] {
		case 'l':
			order = binary.LittleEndian
		case 'B':
			order = binary.BigEndian
		default:
			f.fail(fmt.Errorf("bad endianness byte %q", hdr[0]))
			return
		}
		bodyLen, fieldsLen := order.Uint32(hdr[4:]), order.Uint32(hdr[12:])
		total := 16 + int(fieldsLen)
		total = (total+7)&^7 + int(bodyLen)
		if bodyLen > 1<<27 || fieldsLen > 1<<26 {
			f.fail(fmt.Errorf("message too long (%d bytes)", total))
			return
		}
		if cap(buf) < total {
			buf = make([]byte, total)
		}
		buf = buf[:total]
		copy(buf, hdr[:])
		if _, err := io.ReadFull(f.r, buf[16:]); err != nil {
			f.fail(err)
			return
		}
		typ := hdr[1]
		if typ != 2 && typ != 3 { // method return, error; signals and calls are not for this client
			continue
		}
		replyTo, errName, body, err := parseReply(buf, order, int(fieldsLen))
		if errors.Is(err, errShort) && body == nil && replyTo == 0 {
			f.fail(err)
			return
		}
		f.mu.Lock()
		c := f.pending[replyTo]
		delete(f.pending, replyTo)
		f.mu.Unlock()
		if c == nil {
			continue // timed out already
		}
		call := &dbus.Call{Method: c.method, Body: body, Err: err}
		if typ == 3 && err == nil {
			call.Err = dbus.Error{Name: errName, Body: body}
		}
		c.done(call)
	}
}

// parseReply decodes a whole answer message: the serial it answers, the error name of an error, and the body
// (through godbus's decoder for a signature the fast decoder does not know). A header it cannot read gives
// replyTo 0 and errShort.
func parseReply(buf []byte, order binary.ByteOrder, fieldsLen int) (replyTo uint32, errName string, body []any, err error) {
	d := &decoder{b: buf, pos: 16, order: order}
	replyTo, sig, errName, err := d.fields(16 + fieldsLen)
	if err != nil {
		return 0, "", nil, errShort
	}
	d.pos = (16 + fieldsLen + 7) &^ 7
	body, err = d.body(sig)
	if errors.Is(err, errSlow) {
		body, err = slowBody(buf)
	}
	return replyTo, errName, body, err
}

// slowBody decodes a message's body with godbus, which panics on some malformed input: that is an error here.
func slowBody(buf []byte) (body []any, err error) {
	defer func() {
		if r := recover(); r != nil {
			body, err = nil, fmt.Errorf("malformed message: %v", r)
		}
	}()
	m, err := dbus.DecodeMessage(bytes.NewReader(buf))
	if err != nil {
		return nil, err
	}
	return m.Body, nil
}

// encodeCall encodes a method call message; arguments may be strings, int32, uint32 and bools.
func encodeCall(serial uint32, dest string, path dbus.ObjectPath, iface, member string, args []any) ([]byte, error) {
	var sig strings.Builder
	for _, a := range args {
		switch a.(type) {
		case string:
			sig.WriteByte('s')
		case int32:
			sig.WriteByte('i')
		case uint32:
			sig.WriteByte('u')
		case bool:
			sig.WriteByte('b')
		default:
			return nil, errFastUnsupported
		}
	}
	e := &encoder{b: make([]byte, 0, 160+len(dest)+len(path)+len(iface)+len(member))}
	e.b = append(e.b, 'l', 1, 0, 1)
	e.b = append(e.b, 0, 0, 0, 0) // body length
	e.u32(serial)
	e.b = append(e.b, 0, 0, 0, 0) // fields length
	start := len(e.b)
	e.field(1, 'o', string(path))
	e.field(2, 's', iface)
	e.field(3, 's', member)
	e.field(6, 's', dest)
	if sig.Len() > 0 {
		e.field(8, 'g', sig.String())
	}
	binary.LittleEndian.PutUint32(e.b[12:], uint32(len(e.b)-start))
	e.align(8)
	bodyStart := len(e.b)
	for _, a := range args {
		switch v := a.(type) {
		case string:
			e.str(v)
		case int32:
			e.align(4)
			e.u32(uint32(v))
		case uint32:
			e.align(4)
			e.u32(v)
		case bool:
			e.align(4)
			if v {
				e.u32(1)
			} else {
				e.u32(0)
			}
		}
	}
	binary.LittleEndian.PutUint32(e.b[4:], uint32(len(e.b)-bodyStart))
	return e.b, nil
}

// encoder appends little-endian D-Bus values.
type encoder struct{ b []byte }

func (e *encoder) align(n int) {
	for len(e.b)%n != 0 {
		e.b = append(e.b, 0)
	}
}

func (e *encoder) u32(v uint32) { e.b = binary.LittleEndian.AppendUint32(e.b, v) }

func (e *encoder) str(s string) {
	e.align(4)
	e.u32(uint32(len(s)))
	e.b = append(e.b, s...)
	e.b = append(e.b, 0)
}

// field appends a header field: (code, variant of type t).
func (e *encoder) field(code byte, t byte, v string) {
	e.align(8)
	e.b = append(e.b, code, 1, t, 0)
	if t == 'g' {
		e.b = append(e.b, byte(len(v)))
		e.b = append(e.b, v...)
		e.b = append(e.b, 0)
		return
	}
	e.str(v)
}

// decoder reads D-Bus values of one message.
type decoder struct {
	b     []byte
	pos   int
	order binary.ByteOrder
}

var errShort = errors.New("message truncated")

func (d *decoder) align(n int) error {
	p := (d.pos + n - 1) &^ (n - 1)
	if p > len(d.b) {
		return errShort
	}
	d.pos = p
	return nil
}

func (d *decoder) u32() (uint32, error) {
	if err := d.align(4); err != nil || d.pos+4 > len(d.b) {
		return 0, errShort
	}
	v := d.order.Uint32(d.b[d.pos:])
	d.pos += 4
	return v, nil
}

func (d *decoder) str() (string, error) {
	n, err := d.u32()
	if err != nil || d.pos+int(n)+1 > len(d.b) {
		return "", errShort
	}
	s := string(d.b[d.pos : d.pos+int(n)])
	d.pos += int(n) + 1
	return s, nil
}

func (d *decoder) sig() (string, error) {
	if d.pos >= len(d.b) {
		return "", errShort
	}
	n := int(d.b[d.pos])
	if d.pos+1+n+1 > len(d.b) {
		return "", errShort
	}
	s := string(d.b[d.pos+1 : d.pos+1+n])
	d.pos += n + 2
	return s, nil
}

// fields reads the header fields up to end: the reply serial, the body signature and the error name.
func (d *decoder) fields(end int) (replyTo uint32, sig, errName string, err error) {
	if end > len(d.b) {
		return 0, "", "", errShort
	}
	for d.pos < end {
		if err := d.align(8); err != nil || d.pos+1 > end {
			return 0, "", "", errShort
		}
		code := d.b[d.pos]
		d.pos++
		t, err := d.sig()
		if err != nil || len(t) != 1 {
			return 0, "", "", fmt.Errorf("bad header field %d", code)
		}
		switch t[0] {
		case 'u':
			v, err := d.u32()
			if err != nil {
				return 0, "", "", err
			}
			if code == 5 {
				replyTo = v
			}
		case 's', 'o':
			v, err := d.str()
			if err != nil {
				return 0, "", "", err
			}
			if code == 4 {
				errName = v
			}
		case 'g':
			v, err := d.sig()
			if err != nil {
				return 0, "", "", err
			}
			if code == 8 {
				sig = v
			}
		default:
			return 0, "", "", fmt.Errorf("bad header field %d type %q", code, t)
		}
	}
	return replyTo, sig, errName, nil
}

// errSlow says a signature needs godbus's decoder.
var errSlow = errors.New("signature left to godbus")

// body decodes a body of signature sig.
func (d *decoder) body(sig string) ([]any, error) {
	var out []any
	for sig != "" {
		v, rest, err := d.value(sig)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		sig = rest
	}
	return out, nil
}

// value decodes the first complete type of sig as godbus would (typed slices for arrays of basic types, []any
// for structs, dbus.Variant for variants) and returns the rest of sig.
func (d *decoder) value(sig string) (any, string, error) {
	switch sig[0] {
	case 'y':
		if d.pos >= len(d.b) {
			return nil, "", errShort
		}
		d.pos++
		return d.b[d.pos-1], sig[1:], nil
	case 'b':
		v, err := d.u32()
		return v != 0, sig[1:], err
	case 'i':
		v, err := d.u32()
		return int32(v), sig[1:], err
	case 'u':
		v, err := d.u32()
		return v, sig[1:], err
	case 'd':
		if err := d.align(8); err != nil || d.pos+8 > len(d.b) {
			return nil, "", errShort
		}
		v := math.Float64frombits(d.order.Uint64(d.b[d.pos:]))
		d.pos += 8
		return v, sig[1:], nil
	case 's':
		v, err := d.str()
		return v, sig[1:], err
	case 'o':
		v, err := d.str()
		return dbus.ObjectPath(v), sig[1:], err
	case 'v':
		s, err := d.sig()
		if err != nil {
			return nil, "", err
		}
		if s == "" {
			return nil, "", errSlow
		}
		v, rest, err := d.value(s)
		if err != nil {
			return nil, "", err
		}
		if rest != "" {
			return nil, "", errSlow
		}
		ps, err := parseSig(s)
		if err != nil {
			return nil, "", err
		}
		return dbus.MakeVariantWithSignature(v, ps), sig[1:], nil
	case '(':
		if err := d.align(8); err != nil {
			return nil, "", err
		}
		var fields []any
		rest := sig[1:]
		for rest != "" && rest[0] != ')' {
			v, r, err := d.value(rest)
			if err != nil {
				return nil, "", err
			}
			fields = append(fields, v)
			rest = r
		}
		if rest == "" {
			return nil, "", fmt.Errorf("bad signature %q", sig)
		}
		return fields, rest[1:], nil
	case 'a':
		if len(sig) < 2 {
			return nil, "", fmt.Errorf("bad signature %q", sig)
		}
		n, err := d.u32()
		if err != nil {
			return nil, "", err
		}
		elem := sig[1]
		var elemAlign int
		switch elem {
		case 'u', 'i', 's', 'o':
			elemAlign = 4
		case '(':
			elemAlign = 8
		default:
			return nil, "", errSlow
		}
		if err := d.align(elemAlign); err != nil {
			return nil, "", err
		}
		end := d.pos + int(n)
		if end > len(d.b) {
			return nil, "", errShort
		}
		switch elem {
		case 'u', 'i':
			vs := make([]uint32, 0, n/4)
			for d.pos < end {
				v, err := d.u32()
				if err != nil {
					return nil, "", err
				}
				vs = append(vs, v)
			}
			if elem == 'i' {
				is := make([]int32, len(vs))
				for i, v := range vs {
					is[i] = int32(v)
				}
				return is, sig[2:], nil
			}
			return vs, sig[2:], nil
		case 's', 'o':
			var ss []string
			var ps []dbus.ObjectPath
			for d.pos < end {
				v, err := d.str()
				if err != nil {
					return nil, "", err
				}
				if elem == 's' {
					ss = append(ss, v)
				} else {
					ps = append(ps, dbus.ObjectPath(v))
				}
			}
			if elem == 's' {
				if ss == nil {
					ss = []string{}
				}
				return ss, sig[2:], nil
			}
			if ps == nil {
				ps = []dbus.ObjectPath{}
			}
			return ps, sig[2:], nil
		default: // structs
			out := [][]any{}
			elemSig, err := oneType(sig[1:])
			if err != nil {
				return nil, "", err
			}
			for d.pos < end {
				v, r, err := d.value(elemSig)
				if err != nil {
					return nil, "", err
				}
				if r != "" {
					return nil, "", fmt.Errorf("bad signature %q", sig)
				}
				out = append(out, v.([]any))
			}
			return out, sig[1+len(elemSig):], nil
		}
	}
	return nil, "", errSlow
}

// oneType returns the first complete type of a signature that starts with '(' (a struct of basic types,
// variants, arrays and structs).
func oneType(sig string) (string, error) {
	depth := 0
	for i := 0; i < len(sig); i++ {
		switch sig[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return sig[:i+1], nil
			}
		}
	}
	return "", fmt.Errorf("bad signature %q", sig)
}

// sigs caches parsed variant signatures: answers use a handful.
var sigs sync.Map

func parseSig(s string) (dbus.Signature, error) {
	if v, ok := sigs.Load(s); ok {
		return v.(dbus.Signature), nil
	}
	ps, err := dbus.ParseSignature(s)
	if err == nil {
		sigs.Store(s, ps)
	}
	return ps, err
}
