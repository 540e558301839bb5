package clipboard

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jezek/xgb/xproto"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// maxTargets bounds the TARGETS list read from an owner.
const maxTargets = 256

// Offer makes us the owner of CLIPBOARD with text (empty: no text targets) and the extra targets (atom
// name -> bytes) at once, as a file manager's copy does (text/uri-list, x-special/gnome-copied-files and the
// paths as text).
func (c *Clipboard) Offer(ctx context.Context, text string, targets map[string][]byte) error {
	o := &offer{hasText: text != "", text: []byte(text), latin1: toLatin1(text), extra: map[xproto.Atom][]byte{}}
	for name, data := range targets {
		a, err := c.atom(name)
		if err != nil {
			return err
		}
		if len(data) > MaxText {
			return fmt.Errorf("target %s of %d bytes, above %d: %w", name, len(data), MaxText, errdefs.ErrInvalidArgument)
		}
		o.extra[a] = data
	}
	return c.own(ctx, c.atoms.clipboard, o)
}

// WriteData makes us the owner of the selection with data as target mime (image/png, image/jpeg,
// text/uri-list, ...). A text/uri-list is offered as text as well, as file managers do. The caller validates
// the data.
func (c *Clipboard) WriteData(ctx context.Context, sel agentv1.Selection, mime string, data []byte) error {
	atom, err := c.selectionAtom(sel)
	if err != nil {
		return err
	}
	a, err := c.atom(mime)
	if err != nil {
		return err
	}
	o := &offer{extra: map[xproto.Atom][]byte{a: data}}
	if mime == "text/uri-list" {
		o.hasText, o.text, o.latin1 = true, data, toLatin1(string(data))
	}
	return c.own(ctx, atom, o)
}

// ReadData converts the selection to target mime and returns the bytes. owned is false when the selection
// has no owner; offered false when the owner refused the target or answered an image target with another
// type (both are normal answers, not errors).
// Contents above MaxText fail with errdefs.ErrResourceExhausted; INCR transfers are followed.
func (c *Clipboard) ReadData(ctx context.Context, sel agentv1.Selection, mime string) (data []byte, owned, offered bool, err error) {
	atom, err := c.selectionAtom(sel)
	if err != nil {
		return nil, false, false, err
	}
	a, err := c.atom(mime)
	if err != nil {
		return nil, false, false, err
	}
	if o, ok := c.ownOffer(atom); ok {
		d, ok := o.extra[a]
		if !ok && o.hasText && mime == "text/uri-list" {
			d, ok = o.text, true
		}
		return d, true, ok, nil
	}
	data, typ, owned, err := c.fetch(ctx, atom, a)
	if err != nil || !owned {
		return nil, owned, false, err
	}
	if typ == 0 || (strings.HasPrefix(mime, "image/") && typ != a) {
		// Some owners answer every target with their one format (xclip -t image/png does): bytes typed as
		// another image format are not this one.
		return nil, true, false, nil
	}
	return data, true, true, nil
}

// Targets returns the names of the targets the selection's owner offers (its TARGETS list, at most
// maxTargets); owned is false when the selection has no owner.
func (c *Clipboard) Targets(ctx context.Context, sel agentv1.Selection) (names []string, owned bool, err error) {
	atom, err := c.selectionAtom(sel)
	if err != nil {
		return nil, false, err
	}
	var ids []xproto.Atom
	if o, ok := c.ownOffer(atom); ok {
		ids = []xproto.Atom{c.atoms.targets, c.atoms.multiple, c.atoms.timestamp}
		if o.hasText {
			ids = append(ids, c.atoms.utf8, c.atoms.text)
			if o.latin1 != nil {
				ids = append(ids, xproto.AtomString)
			}
		}
		for a := range o.extra {
			ids = append(ids, a)
		}
	} else {
		data, typ, owned, err := c.fetch(ctx, atom, c.atoms.targets)
		if err != nil || !owned {
			return nil, owned, err
		}
		if typ == 0 {
			return nil, true, nil
		}
		for i := 0; i+4 <= len(data) && len(ids) < maxTargets; i += 4 {
			ids = append(ids, xproto.Atom(binary.LittleEndian.Uint32(data[i:])))
		}
	}
	names, err = c.atomNames(ids)
	if err != nil {
		return nil, true, err
	}
	slices.Sort(names)
	return slices.Compact(names), true, nil
}

// atom interns name once and caches it.
func (c *Clipboard) atom(name string) (xproto.Atom, error) {
	c.atomMu.Lock()
	a, ok := c.idByName[name]
	c.atomMu.Unlock()
	if ok {
		return a, nil
	}
	got, err := internAtoms(c.conn, []string{name})
	if err != nil {
		return 0, err
	}
	c.atomMu.Lock()
	c.idByName[name], c.atomByID[got[0]] = got[0], name
	c.atomMu.Unlock()
	return got[0], nil
}

// atomNames returns the names of ids, asking the server (pipelined) for those not cached; an atom the
// server does not know is left out.
func (c *Clipboard) atomNames(ids []xproto.Atom) ([]string, error) {
	names := make([]string, 0, len(ids))
	var ask []xproto.Atom
	c.atomMu.Lock()
	for _, a := range ids {
		if n, ok := c.atomByID[a]; ok {
			names = append(names, n)
		} else if a != xproto.AtomNone {
			ask = append(ask, a)
		}
	}
	c.atomMu.Unlock()
	cookies := make([]xproto.GetAtomNameCookie, len(ask))
	for i, a := range ask {
		cookies[i] = xproto.GetAtomName(c.conn, a)
	}
	for i, ck := range cookies {
		r, err := ck.Reply()
		if err != nil {
			var xe xproto.AtomError
			if errors.As(err, &xe) {
				continue
			}
			return nil, fmt.Errorf("atom name: %w", errors.Join(errdefs.ErrUnavailable, err))
		}
		c.atomMu.Lock()
		c.atomByID[ask[i]], c.idByName[r.Name] = r.Name, ask[i]
		c.atomMu.Unlock()
		names = append(names, r.Name)
	}
	return names, nil
}
