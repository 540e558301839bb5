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

// thawPollMin and thawPollMax bound the pause between two pointer queries while the pointer is frozen: it
// starts short (openbox replays a press within about a millisecond when idle) and doubles.
const (
	thawPollMin = 250 * time.Microsecond
	thawPollMax = 4 * time.Millisecond
)

// awaitThaw waits, bounded by thawTimeout, until the X server has processed the button releases the action
// sent (d.released): until none of those buttons is down in the pointer's state. A window manager with a
// synchronous passive grab on a client window (openbox grabs button 1 so for click-to-focus, and replays the
// press once it has handled it) freezes the pointer at the press: the release waits in the server's queue
// while the keyboard is not frozen, so keys sent after the click would reach the previously focused window
// or widget before the click does. Called with the device locked after the action's closing round trip,
// whose pointer state it checks first.
func (d *Device) awaitThaw(ctx context.Context) {
	if d.lastMask&d.released == 0 {
		return // the closing round trip saw the buttons up: nothing froze them
	}
	deadline := time.Now().Add(thawTimeout)
	pause := thawPollMin
	for polls := 1; ; polls++ {
		if time.Now().After(deadline) {
			d.log.Warn("pointer still frozen after a button release", "timeout", thawTimeout, "mask", d.lastMask)
			return
		}
		if sleep(ctx, pause, "wait for the pointer") != nil {
			return
		}
		pause = min(2*pause, thawPollMax)
		if err := d.syncX(); err != nil {
			d.log.Warn("query pointer after a button release", "err", err)
			return
		}
		if d.lastMask&d.released == 0 {
			d.log.Debug("pointer was frozen after a button release", "polls", polls)
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
