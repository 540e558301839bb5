package clipboard

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jezek/xgb/xproto"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// savedTargets are the MIME targets a paste saves and restores besides text.
var savedTargets = []string{"image/png", "image/jpeg", "text/uri-list", "x-special/gnome-copied-files"}

// bookkeeping targets are not content: nothing is lost when they are not saved.
var bookkeeping = []string{"TARGETS", "MULTIPLE", "TIMESTAMP", "UTF8_STRING", "STRING", "TEXT", "SAVE_TARGETS",
	"text/plain", "text/plain;charset=utf-8", "COMPOUND_TEXT", "DELETE", "INSERT_PROPERTY", "INSERT_SELECTION"}

// pollServed is how often a paste looks whether the application asked for the text.
const pollServed = 5 * time.Millisecond

// Paste pastes text the way a person does: it saves CLIPBOARD, owns it with text, calls press (focus and
// ctrl+v), waits up to wait for the application to ask for the text (and for an INCR transfer of it to
// end), then restores the saved contents unless another client took CLIPBOARD meanwhile. Pastes are
// serialized by the caller's input queue.
func (c *Clipboard) Paste(ctx context.Context, text string, press func(context.Context) error, wait time.Duration) (*agentv1.PasteTextResponse, error) {
	atom := c.atoms.clipboard
	saved, lost, err := c.save(ctx, atom)
	if err != nil {
		return nil, fmt.Errorf("save clipboard: %w", err)
	}
	o := &offer{hasText: true, text: []byte(text), latin1: toLatin1(text)}
	c.mu.Lock()
	c.served[o] = 0
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.served, o)
		c.mu.Unlock()
	}()
	if err := c.own(ctx, atom, o); err != nil {
		return nil, err
	}
	resp := &agentv1.PasteTextResponse{Length: int64(len(text)), LostTargets: lost}
	perr := press(ctx)
	if perr == nil {
		resp.Requested = c.waitServed(ctx, o, wait)
	}
	restore, rerr := c.restore(context.WithoutCancel(ctx), atom, o, saved)
	resp.Restore = restore
	if restore == agentv1.ClipboardRestore_CLIPBOARD_RESTORE_RESTORED && len(lost) > 0 {
		resp.Restore = agentv1.ClipboardRestore_CLIPBOARD_RESTORE_PARTIAL
	}
	if perr != nil {
		return nil, perr
	}
	if rerr != nil {
		return nil, fmt.Errorf("restore clipboard: %w", rerr)
	}
	return resp, nil
}

// save returns the selection's contents as an offer to restore (nil: the selection had no owner) and the
// content targets the owner offered that are not saved.
func (c *Clipboard) save(ctx context.Context, atom xproto.Atom) (*offer, []string, error) {
	if o, ok := c.ownOffer(atom); ok {
		return o, nil, nil
	}
	names, owned, err := c.Targets(ctx, agentv1.Selection_SELECTION_CLIPBOARD)
	if err != nil || !owned {
		return nil, nil, err
	}
	saved := &offer{extra: map[xproto.Atom][]byte{}}
	if slices.Contains(names, "UTF8_STRING") || slices.Contains(names, "STRING") || slices.Contains(names, "TEXT") {
		data, typ, _, err := c.fetch(ctx, atom, c.atoms.utf8, xproto.AtomString)
		if err != nil {
			return nil, nil, err
		}
		if typ != 0 {
			r := c.decode(data, typ)
			saved.hasText, saved.text, saved.latin1 = true, []byte(r.GetText()), toLatin1(r.GetText())
		}
	}
	var lost []string
	for _, n := range names {
		switch {
		case slices.Contains(savedTargets, n):
			data, owned, offered, err := c.ReadData(ctx, agentv1.Selection_SELECTION_CLIPBOARD, n)
			if err != nil {
				return nil, nil, err
			}
			if owned && offered {
				a, err := c.atom(n)
				if err != nil {
					return nil, nil, err
				}
				saved.extra[a] = data
			}
		case !slices.Contains(bookkeeping, n):
			lost = append(lost, n)
		}
	}
	return saved, lost, nil
}

// waitServed waits until o's content was asked for and no INCR transfer of it is in progress, at most wait.
func (c *Clipboard) waitServed(ctx context.Context, o *offer, wait time.Duration) bool {
	deadline := time.Now().Add(wait)
	for {
		c.mu.Lock()
		n := c.served[o]
		c.mu.Unlock()
		if n > 0 && c.transfersOf(o) == 0 {
			return true
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(pollServed)
	}
}

// transfersOf counts the INCR sends of o in progress.
func (c *Clipboard) transfersOf(o *offer) (n int) {
	c.inLoop(func() {
		for _, t := range c.transfers {
			if t.offer == o {
				n++
			}
		}
	})
	return n
}

// noteServed counts a content request answered from o, when a paste watches o.
func (c *Clipboard) noteServed(o *offer) {
	c.mu.Lock()
	if n, ok := c.served[o]; ok {
		c.served[o] = n + 1
	}
	c.mu.Unlock()
}

// restore puts saved back when the paste's offer o still owns the selection: owned again with a fresh
// timestamp, or given up when nothing was saved (the clipboard was empty). KEPT when another client took
// the selection since.
func (c *Clipboard) restore(ctx context.Context, atom xproto.Atom, o, saved *offer) (agentv1.ClipboardRestore, error) {
	if cur, ok := c.ownOffer(atom); !ok || cur != o {
		return agentv1.ClipboardRestore_CLIPBOARD_RESTORE_KEPT, nil
	}
	if saved == nil {
		c.ownMu.Lock()
		defer c.ownMu.Unlock()
		c.mu.Lock()
		if c.offers[atom] == o {
			delete(c.offers, atom)
		}
		c.mu.Unlock()
		// With the paste's own timestamp: no effect if another client took the selection since.
		xproto.SetSelectionOwner(c.conn, xproto.WindowNone, atom, o.time)
		if _, err := xproto.GetSelectionOwner(c.conn, atom).Reply(); err != nil {
			return 0, err
		}
		return agentv1.ClipboardRestore_CLIPBOARD_RESTORE_RESTORED, nil
	}
	// A copy: offers are immutable once published, and own sets the time.
	again := &offer{hasText: saved.hasText, text: saved.text, latin1: saved.latin1, extra: saved.extra}
	if err := c.own(ctx, atom, again); err != nil {
		return 0, err
	}
	return agentv1.ClipboardRestore_CLIPBOARD_RESTORE_RESTORED, nil
}
