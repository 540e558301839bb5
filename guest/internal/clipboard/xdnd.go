package clipboard

import (
	"context"
	"crypto/sha256"
	"time"

	"github.com/jezek/xgb/xproto"
)

// pressSnapshotTimeout bounds reading XdndSelection when a press begins: a hung drag source must not
// delay the press by more than this.
const pressSnapshotTimeout = 200 * time.Millisecond

// pressSnapshot is what XdndSelection held when a press began: the sha256 of each payload read, by key
// ("text", or a MIME target such as text/uri-list).
type pressSnapshot struct {
	sums map[string][32]byte
}

// xdndSnapshotTargets are the payloads recorded at a press: what drags between applications carry.
var xdndSnapshotTargets = []string{"text/uri-list", "x-special/gnome-copied-files"}

// PressBegan records what XdndSelection holds as the agent's press (mouse_down, drag) begins, so a read
// during the press can tell a stale selection from a new drag's (see XdndState). With no owner it records an
// empty snapshot at the cost of one round trip.
func (c *Clipboard) PressBegan(ctx context.Context) {
	snap := &pressSnapshot{sums: map[string][32]byte{}}
	defer func() {
		c.mu.Lock()
		c.press = snap
		c.mu.Unlock()
	}()
	atom, err := c.atom("XdndSelection")
	if err != nil {
		return
	}
	if r, err := xproto.GetSelectionOwner(c.conn, atom).Reply(); err != nil || r == nil || r.Owner == xproto.WindowNone {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, pressSnapshotTimeout)
	defer cancel()
	if data, typ, owned, err := c.fetch(ctx, atom, c.atoms.utf8, xproto.AtomString); err == nil && owned && typ != 0 {
		snap.sums["text"] = sha256.Sum256([]byte(c.decode(data, typ).GetText()))
	}
	for _, m := range xdndSnapshotTargets {
		a, err := c.atom(m)
		if err != nil {
			continue
		}
		if data, typ, owned, err := c.fetch(ctx, atom, a); err == nil && owned && typ != 0 {
			snap.sums[m] = sha256.Sum256(data)
		}
	}
}

// PressEnded forgets the press snapshot (mouse_up, the end of a drag, release_all).
func (c *Clipboard) PressEnded() {
	c.mu.Lock()
	c.press = nil
	c.mu.Unlock()
}

// XdndState says whether a pointer button is held now (a drag can be in progress) and whether payload,
// read from XdndSelection as key ("text" for the decoded text, else the MIME target), equals what it held
// when the agent's press in progress began: a stale selection, not a new drag's.
func (c *Clipboard) XdndState(key string, payload []byte) (dragging, stale bool) {
	const buttons = xproto.KeyButMaskButton1 | xproto.KeyButMaskButton2 | xproto.KeyButMaskButton3 |
		xproto.KeyButMaskButton4 | xproto.KeyButMaskButton5
	root := xproto.Setup(c.conn).DefaultScreen(c.conn).Root
	if r, err := xproto.QueryPointer(c.conn, root).Reply(); err == nil && r != nil {
		dragging = r.Mask&buttons != 0
	}
	c.mu.Lock()
	snap := c.press
	c.mu.Unlock()
	if snap != nil {
		if sum, ok := snap.sums[key]; ok && sum == sha256.Sum256(payload) {
			stale = true
		}
	}
	return dragging, stale
}
