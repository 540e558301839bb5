package clipboard

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/jezek/xgb/xproto"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// Write makes us the owner of the selection with text and returns once the server confirms it. From then on
// the event goroutine answers requestors until another client takes the selection or Close is called.
// The caller validates text (UTF-8, at most MaxText).
func (c *Clipboard) Write(ctx context.Context, sel agentv1.Selection, text string) error {
	atom, err := c.selectionAtom(sel)
	if err != nil {
		return err
	}
	if len(text) > MaxText || !utf8.ValidString(text) {
		return fmt.Errorf("text of %d bytes: must be UTF-8 of at most %d bytes: %w", len(text), MaxText,
			errdefs.ErrInvalidArgument)
	}
	return c.own(ctx, atom, &offer{hasText: true, text: []byte(text), latin1: toLatin1(text)})
}

// own makes us the owner of the selection with o and returns once the server confirms it.
func (c *Clipboard) own(ctx context.Context, atom xproto.Atom, o *offer) error {
	var err error
	// The newest server time we have seen (from an earlier timestamp round trip) saves a round trip; when
	// another client has acquired the selection since, the server ignores it and we retry with a fresh one.
	defer c.prefetchTimestamp()
	if ts := c.recentTime(); ts != 0 {
		o.time = ts
		if err := c.acquire(atom, o); !errors.Is(err, errTaken) {
			return err
		}
	}
	if o.time, err = c.timestamp(ctx); err != nil {
		return err
	}
	return c.acquire(atom, o)
}

var errTaken = fmt.Errorf("selection taken by another client while acquiring it: %w", errdefs.ErrUnavailable)

// acquire publishes o and makes us the selection's owner at o.time, verified with the server.
func (c *Clipboard) acquire(atom xproto.Atom, o *offer) error {
	c.ownMu.Lock()
	defer c.ownMu.Unlock()
	c.mu.Lock()
	prev := c.offers[atom]
	c.offers[atom] = o // published before we own it, so the first request is answered with the new text
	c.mu.Unlock()
	xproto.SetSelectionOwner(c.conn, c.win, atom, o.time)
	r, err := xproto.GetSelectionOwner(c.conn, atom).Reply()
	if err == nil && r != nil && r.Owner == c.win {
		return nil
	}
	c.mu.Lock()
	if c.offers[atom] == o {
		c.offers[atom] = prev
		if prev == nil {
			delete(c.offers, atom)
		}
	}
	c.mu.Unlock()
	if err != nil || r == nil {
		return fmt.Errorf("selection owner: %w", errors.Join(errdefs.ErrUnavailable, err))
	}
	return errTaken
}

// serve answers one SelectionRequest (ICCCM 2.2): convert into the requestor's property, then tell it with
// a SelectionNotify whose property is None when we refuse.
func (c *Clipboard) serve(ev xproto.SelectionRequestEvent) {
	prop := ev.Property
	if prop == xproto.AtomNone {
		prop = ev.Target // obsolete requestors (ICCCM 2.2)
	}
	c.mu.Lock()
	o := c.offers[ev.Selection]
	c.mu.Unlock()
	ok := false
	if o != nil && ev.Owner == c.win {
		if ev.Target == c.atoms.multiple {
			ok = ev.Property != xproto.AtomNone && c.serveMultiple(o, ev.Requestor, prop)
		} else {
			ok = c.convert(o, ev.Requestor, ev.Target, prop)
		}
	}
	reply := xproto.SelectionNotifyEvent{Time: ev.Time, Requestor: ev.Requestor, Selection: ev.Selection,
		Target: ev.Target, Property: xproto.AtomNone}
	if ok {
		reply.Property = prop
	}
	xproto.SendEvent(c.conn, false, ev.Requestor, 0, string(reply.Bytes()))
}

// convert writes target's value to the requestor's property and reports whether the target is offered.
func (c *Clipboard) convert(o *offer, w xproto.Window, target, prop xproto.Atom) bool {
	switch target {
	case c.atoms.targets:
		list := []xproto.Atom{c.atoms.targets, c.atoms.multiple, c.atoms.timestamp}
		if o.hasText {
			list = append(list, c.atoms.utf8, c.atoms.text)
		}
		if o.hasText && o.latin1 != nil {
			list = append(list, xproto.AtomString)
		}
		for a := range o.extra {
			list = append(list, a)
		}
		buf := make([]byte, 4*len(list))
		for i, a := range list {
			binary.LittleEndian.PutUint32(buf[4*i:], uint32(a))
		}
		xproto.ChangeProperty(c.conn, xproto.PropModeReplace, w, prop, xproto.AtomAtom, 32, uint32(len(list)), buf)
	case c.atoms.timestamp:
		buf := binary.LittleEndian.AppendUint32(nil, uint32(o.time))
		xproto.ChangeProperty(c.conn, xproto.PropModeReplace, w, prop, xproto.AtomInteger, 32, 1, buf)
	case c.atoms.utf8, c.atoms.text:
		if !o.hasText {
			return false
		}
		// TEXT lets the owner choose the encoding; UTF8_STRING loses nothing.
		c.put(o, w, prop, c.atoms.utf8, o.text)
	case xproto.AtomString:
		if !o.hasText || o.latin1 == nil {
			return false
		}
		c.put(o, w, prop, xproto.AtomString, o.latin1)
	default:
		data, ok := o.extra[target]
		if !ok {
			return false
		}
		c.put(o, w, prop, target, data)
	}
	return true
}

// serveMultiple answers MULTIPLE: the requestor's property holds (target, property) pairs; each is
// converted, and refused pairs get their property replaced with None (ICCCM 2.6.2).
func (c *Clipboard) serveMultiple(o *offer, w xproto.Window, prop xproto.Atom) bool {
	p, err := xproto.GetProperty(c.conn, false, w, prop, xproto.GetPropertyTypeAny, 0, 1024).Reply()
	if err != nil || p == nil || p.Format != 32 || len(p.Value)%8 != 0 || len(p.Value) == 0 {
		return false
	}
	pairs := p.Value
	for i := 0; i+8 <= len(pairs); i += 8 {
		target := xproto.Atom(binary.LittleEndian.Uint32(pairs[i:]))
		dest := xproto.Atom(binary.LittleEndian.Uint32(pairs[i+4:]))
		if target == c.atoms.multiple || dest == xproto.AtomNone || !c.convert(o, w, target, dest) {
			binary.LittleEndian.PutUint32(pairs[i+4:], uint32(xproto.AtomNone))
		}
	}
	xproto.ChangeProperty(c.conn, xproto.PropModeReplace, w, prop, p.Type, 32, uint32(len(pairs)/4), pairs)
	return true
}

// put writes data of o to the requestor's property, or starts an INCR transfer when it does not fit one
// request; either way the content was asked for (a paste waits for that).
func (c *Clipboard) put(o *offer, w xproto.Window, prop, typ xproto.Atom, data []byte) {
	c.noteServed(o)
	if len(data) <= c.chunk {
		xproto.ChangeProperty(c.conn, xproto.PropModeReplace, w, prop, typ, 8, uint32(len(data)), data)
		return
	}
	key := transferKey{w, prop}
	delete(c.transfers, key) // a requestor reusing its property starts over
	if w != c.win && !c.watching(w) {
		// We learn of each deletion (the requestor's "next") and of the window's destruction.
		xproto.ChangeWindowAttributes(c.conn, w, xproto.CwEventMask,
			[]uint32{xproto.EventMaskPropertyChange | xproto.EventMaskStructureNotify})
	}
	c.transfers[key] = &transfer{typ: typ, data: data, last: time.Now(), offer: o}
	size := binary.LittleEndian.AppendUint32(nil, uint32(len(data)))
	xproto.ChangeProperty(c.conn, xproto.PropModeReplace, w, prop, c.atoms.incr, 32, 1, size)
	c.log.Debug("clipboard: INCR transfer started", "requestor", uint32(w), "bytes", len(data))
}

// transferKey names an INCR transfer: the requestor's window and property.
type transferKey struct {
	win  xproto.Window
	prop xproto.Atom
}

// transfer is an INCR send in progress; it is owned by the event goroutine.
type transfer struct {
	offer *offer
	typ   xproto.Atom
	data  []byte
	off   int
	last  time.Time
}

// step sends the next INCR chunk after the requestor deleted the property; the zero-length chunk ends it.
func (c *Clipboard) step(key transferKey) {
	t := c.transfers[key]
	if t == nil {
		return
	}
	n := min(c.chunk, len(t.data)-t.off)
	xproto.ChangeProperty(c.conn, xproto.PropModeReplace, key.win, key.prop, t.typ, 8, uint32(n), t.data[t.off:t.off+n])
	t.off += n
	t.last = time.Now()
	if n == 0 {
		c.finish(key)
	}
}

// finish forgets a transfer and stops watching its window when no other transfer uses it.
func (c *Clipboard) finish(key transferKey) {
	delete(c.transfers, key)
	if key.win != c.win && !c.watching(key.win) {
		xproto.ChangeWindowAttributes(c.conn, key.win, xproto.CwEventMask, []uint32{0})
	}
}

func (c *Clipboard) watching(w xproto.Window) bool {
	for k := range c.transfers {
		if k.win == w {
			return true
		}
	}
	return false
}

// dropWindow abandons every transfer to a requestor that is gone.
func (c *Clipboard) dropWindow(w xproto.Window, why string) {
	for k := range c.transfers {
		if k.win == w {
			delete(c.transfers, k)
			c.log.Debug("clipboard: INCR transfer dropped", "requestor", uint32(w), "why", why)
		}
	}
}

// expire abandons transfers whose requestor stopped reading.
func (c *Clipboard) expire(now time.Time) {
	for k, t := range c.transfers {
		if now.Sub(t.last) > transferTimeout {
			c.log.Debug("clipboard: INCR transfer timed out", "requestor", uint32(k.win), "sent", t.off, "bytes", len(t.data))
			c.finish(k)
		}
	}
}

// toLatin1 returns text in ISO 8859-1, or nil when a character is outside it (STRING is then refused).
func toLatin1(text string) []byte {
	out := make([]byte, 0, len(text))
	for _, r := range text {
		if r > 0xFF {
			return nil
		}
		out = append(out, byte(r))
	}
	return out
}

// fromLatin1 decodes ISO 8859-1 (the STRING target) to UTF-8.
func fromLatin1(b []byte) string {
	out := make([]rune, len(b))
	for i, ch := range b {
		out[i] = rune(ch)
	}
	return string(out)
}
