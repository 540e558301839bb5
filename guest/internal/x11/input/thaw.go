package input

import (
	"context"
	"time"

	"github.com/jezek/xgb/xproto"
)

// thawTimeout bounds how long an action that released a button waits for the X server to process that
// release (see awaitThaw). A window manager replays a frozen click within milliseconds, even on a loaded
// machine well within this; a client that keeps the pointer frozen longer only delays the action this much.
const thawTimeout = 2 * time.Second

// thawPoll is the pause between two pointer queries while the pointer is frozen.
const thawPoll = 2 * time.Millisecond

// awaitThaw waits, bounded by thawTimeout, until the X server has processed the button releases the action
// sent (d.released): until none of those buttons is down in the pointer's state. A window manager with a
// synchronous passive grab on a client window (openbox grabs button 1 so for click-to-focus, and replays the
// press once it has handled it) freezes the pointer at the press: the release waits in the server's queue
// while the keyboard is not frozen, so keys sent after the click would reach the previously focused window
// or widget before the click does. Called with the device locked after the action's closing round trip.
func (d *Device) awaitThaw(ctx context.Context) {
	deadline := time.Now().Add(thawTimeout)
	for polls := 0; ; polls++ {
		r, err := xproto.QueryPointer(d.conn, d.root).Reply()
		if err != nil {
			d.log.Warn("query pointer after a button release", "err", err)
			return
		}
		if r.Mask&d.released == 0 {
			if polls > 0 {
				d.log.Debug("pointer was frozen after a button release", "polls", polls)
			}
			return
		}
		if time.Now().After(deadline) {
			d.log.Warn("pointer still frozen after a button release", "timeout", thawTimeout, "mask", r.Mask)
			return
		}
		if sleep(ctx, thawPoll, "wait for the pointer") != nil {
			return
		}
	}
}

// buttonMask returns the pointer state bit of X button b (0 for the wheel's 6 and 7 and beyond: none).
func buttonMask(b byte) uint16 {
	if b < 1 || b > 5 {
		return 0
	}
	return xproto.ButtonMask1 << (b - 1)
}
