package clipboard

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jezek/xgb/xproto"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// Read returns the text of a selection. A selection without an owner, or whose owner offers no text, is
// an empty answer (Owned says which), not an error. Owners that do not answer within ReplyTimeout fail with
// errdefs.ErrTimeout; contents above MaxText with errdefs.ErrResourceExhausted. Text from the owner that is
// not valid UTF-8 has the bad bytes replaced with U+FFFD.
func (c *Clipboard) Read(ctx context.Context, sel agentv1.Selection) (*agentv1.ReadClipboardResponse, error) {
	atom, err := c.selectionAtom(sel)
	if err != nil {
		return nil, err
	}
	if o, ok := c.ownOffer(atom); ok {
		// We own it: our offer is the content, without converting through the server to ourselves.
		if !o.hasText {
			return &agentv1.ReadClipboardResponse{Owned: true}, nil
		}
		return &agentv1.ReadClipboardResponse{Text: string(o.text), Format: "UTF8_STRING", Owned: true}, nil
	}
	data, typ, owned, err := c.fetch(ctx, atom, c.atoms.utf8, xproto.AtomString)
	switch {
	case err != nil:
		return nil, err
	case !owned:
		return &agentv1.ReadClipboardResponse{}, nil
	case typ == 0:
		return &agentv1.ReadClipboardResponse{Owned: true}, nil
	}
	return c.decode(data, typ), nil
}

// ownOffer returns our offer for the selection when the server agrees that we own it.
func (c *Clipboard) ownOffer(atom xproto.Atom) (*offer, bool) {
	c.mu.Lock()
	o := c.offers[atom]
	c.mu.Unlock()
	if o == nil {
		return nil, false
	}
	owner, err := xproto.GetSelectionOwner(c.conn, atom).Reply()
	if err != nil || owner == nil || owner.Owner != c.win {
		return nil, false
	}
	return o, true
}

// fetch converts the selection to each target in turn until the owner accepts one, and returns its bytes
// and their type. owned is false when the selection has no owner; typ is 0 when the owner refused every
// target. Conversions are serialized on our window.
func (c *Clipboard) fetch(ctx context.Context, atom xproto.Atom, targets ...xproto.Atom) (data []byte, typ xproto.Atom, owned bool, err error) {
	c.readMu.Lock()
	defer c.readMu.Unlock()
	q := newQueue()
	c.mu.Lock()
	c.reader, c.readFor = q, c.prop
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.reader = nil
		c.mu.Unlock()
	}()
	r := &reading{c: c, q: q, sel: atom, prop: c.prop}
	for _, target := range targets {
		r.request(target)
		data, typ, ok, err := r.finish(ctx)
		if err != nil {
			c.abandon()
			return nil, 0, false, err
		}
		if ok {
			return data, typ, true, nil
		}
		// Refused: by the owner, or by the server because there is none. Only then ask which, so the
		// common path is a single conversion.
		owner, err := xproto.GetSelectionOwner(c.conn, atom).Reply()
		if err != nil || owner == nil {
			return nil, 0, false, fmt.Errorf("selection owner: %w", errors.Join(errdefs.ErrUnavailable, err))
		}
		if owner.Owner == xproto.WindowNone {
			return nil, 0, false, nil
		}
	}
	return nil, 0, true, nil
}

// decode turns the owner's bytes into the answer by the type the owner gave them, which is not always
// the target asked for (xclip -t STRING answers every target with STRING data): STRING is Latin-1,
// anything else is taken as UTF-8, with invalid bytes replaced by U+FFFD.
func (c *Clipboard) decode(data []byte, typ xproto.Atom) *agentv1.ReadClipboardResponse {
	if typ == xproto.AtomString {
		return &agentv1.ReadClipboardResponse{Text: fromLatin1(data), Format: "STRING", Owned: true}
	}
	return &agentv1.ReadClipboardResponse{Text: strings.ToValidUTF8(string(data), "\uFFFD"), Format: "UTF8_STRING",
		Owned: true}
}

// abandon switches reads to a fresh property after a read that did not finish, so late events and INCR
// chunks for the old one cannot mix into the next read.
func (c *Clipboard) abandon() {
	xproto.DeleteProperty(c.conn, c.win, c.prop)
	c.nprop++
	name := "GLOVEBOX_SELECTION_" + strconv.Itoa(c.nprop)
	if got, err := internAtoms(c.conn, []string{name}); err == nil {
		c.prop = got[0]
	}
}

// reading is one read in flight: its event queue and the property it converts into.
type reading struct {
	c       *Clipboard
	q       *queue
	pending []item
	closed  bool
	sel     xproto.Atom
	prop    xproto.Atom
}

// request asks the owner to convert the selection to target into our property (which every read leaves
// deleted, and abandon deletes).
func (r *reading) request(target xproto.Atom) {
	xproto.ConvertSelection(r.c.conn, r.c.win, r.sel, target, r.prop, xproto.TimeCurrentTime)
}

// finish waits for the owner's answer to request and returns the bytes and their type; ok is false when
// the owner refused the target.
func (r *reading) finish(ctx context.Context) (data []byte, typ xproto.Atom, ok bool, err error) {
	c := r.c
	var notify xproto.SelectionNotifyEvent
	err = r.wait(ctx, "selection owner", func(it item) bool {
		ev, ok := it.ev.(xproto.SelectionNotifyEvent)
		if ok && ev.Selection == r.sel && (ev.Property == r.prop || ev.Property == xproto.AtomNone) {
			notify = ev
			return true
		}
		return false
	})
	if err != nil || notify.Property == xproto.AtomNone {
		return nil, 0, false, err
	}
	if data, typ, err = r.get(); err != nil {
		return nil, 0, false, err
	}
	if typ != c.atoms.incr {
		return data, typ, true, nil
	}
	data, typ, err = r.incr(ctx, data)
	return data, typ, err == nil, err
}

// incr collects an INCR transfer: the INCR property is already deleted (which starts it); every new value
// of the property is a chunk, read and deleted, until a zero-length one.
func (r *reading) incr(ctx context.Context, size []byte) ([]byte, xproto.Atom, error) {
	if len(size) >= 4 {
		if n := binary.LittleEndian.Uint32(size); n > MaxText {
			return nil, 0, fmt.Errorf("selection of at least %d bytes, above %d: %w", n, MaxText, errdefs.ErrResourceExhausted)
		}
	}
	r.c.log.Debug("clipboard: INCR read started")
	var out []byte
	var typ xproto.Atom
	for {
		err := r.wait(ctx, "INCR chunk", func(it item) bool {
			ev, ok := it.ev.(xproto.PropertyNotifyEvent)
			return ok && ev.Atom == r.prop && ev.State == xproto.PropertyNewValue
		})
		if err != nil {
			return nil, 0, err
		}
		chunk, t, err := r.get()
		if err != nil {
			return nil, 0, err
		}
		if typ == 0 {
			typ = t
		}
		if len(chunk) == 0 {
			return out, typ, nil
		}
		if len(out)+len(chunk) > MaxText {
			return nil, 0, fmt.Errorf("selection above %d bytes: %w", MaxText, errdefs.ErrResourceExhausted)
		}
		out = append(out, chunk...)
	}
}

// get reads the whole property and deletes it (GetProperty deletes on the request that reaches the end).
func (r *reading) get() ([]byte, xproto.Atom, error) {
	c := r.c
	var out []byte
	for {
		p, err := xproto.GetProperty(c.conn, true, c.win, r.prop, xproto.GetPropertyTypeAny,
			uint32(len(out)/4), readChunk/4).Reply()
		if err != nil || p == nil {
			return nil, 0, fmt.Errorf("read selection property: %w", errors.Join(errdefs.ErrUnavailable, err))
		}
		if len(out)+len(p.Value)+int(p.BytesAfter) > MaxText {
			xproto.DeleteProperty(c.conn, c.win, r.prop)
			return nil, 0, fmt.Errorf("selection of %d bytes, above %d: %w", len(out)+len(p.Value)+int(p.BytesAfter),
				MaxText, errdefs.ErrResourceExhausted)
		}
		if out == nil && p.BytesAfter == 0 {
			return p.Value, p.Type, nil
		}
		out = append(out, p.Value...)
		if p.BytesAfter == 0 || len(p.Value) == 0 {
			return out, p.Type, nil
		}
	}
}

// wait consumes this read's events until match accepts one, for at most ReplyTimeout.
func (r *reading) wait(ctx context.Context, what string, match func(item) bool) error {
	t := time.NewTimer(r.c.timeout)
	defer t.Stop()
	for {
		for len(r.pending) > 0 {
			it := r.pending[0]
			r.pending = r.pending[1:]
			if match(it) {
				return nil
			}
		}
		if r.closed {
			return fmt.Errorf("%s: connection closed: %w", what, errdefs.ErrUnavailable)
		}
		select {
		case <-r.q.ready:
			r.pending, r.closed = r.q.take()
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", what, ctx.Err())
		case <-t.C:
			return fmt.Errorf("%s did not answer within %v: %w", what, r.c.timeout, errdefs.ErrTimeout)
		}
	}
}
