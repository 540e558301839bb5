package server

import (
	"context"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// Screen is the screen backend: capture, change detection and the pointer position. Options reaching it
// have been validated, including against Displays.
type Screen interface {
	capable
	ScreenCapture
}

// ScreenCapture is Screen without the capability report, as package x11/screen implements it (backends do
// not import this package, whose tests use them; AdaptScreen adds the report).
type ScreenCapture interface {
	// Displays returns the monitors of the X screen.
	Displays() []*agentv1.Display
	// Capture captures and encodes one frame. unchanged is true when it was served from the last encoded
	// frame because nothing was damaged since. seq increases with every change seen.
	Capture(ctx context.Context, opts *agentv1.ScreenshotOptions) (img *agentv1.Image, unchanged bool, seq uint64, err error)
	// WaitChange blocks until the frame sequence is above seq (the screen changed) or ctx ends.
	WaitChange(ctx context.Context, seq uint64) (uint64, error)
	// WaitQuiet waits until no damage arrived for quiet, or until timeout passes; settled says which.
	WaitQuiet(ctx context.Context, quiet, timeout time.Duration) (settled bool, err error)
	// Cursor returns the pointer position, the top-level client window under it and its display.
	Cursor(ctx context.Context) (*agentv1.GetCursorPositionResponse, error)
	// Seq returns the frame sequence after catching up with the X server (every change before the call counted).
	Seq(ctx context.Context) (uint64, error)
	// WatchDamage watches for damage after frame sequence from, for at most window (returning early once damage
	// came and the screen then stayed quiet for quiet), and returns the bounding box of all damage after from,
	// nil when there was none.
	WatchDamage(ctx context.Context, from uint64, window, quiet time.Duration) (*agentv1.Rect, error)
}

// Windows is the window backend: top-level client windows as the window manager describes them.
type Windows interface {
	// List returns the client windows, bottom of the stack first.
	List(ctx context.Context, includeUnmapped bool) ([]*agentv1.Window, error)
	// Get returns one window; an id that is not a client window fails with errdefs.ErrTargetGone.
	Get(ctx context.Context, id uint32) (*agentv1.Window, error)
	// Focused returns the client window with the input focus, 0 for none.
	Focused(ctx context.Context) (uint32, error)
	// At returns the topmost client window at a root point, 0 for none.
	At(ctx context.Context, x, y int32) (uint32, error)
	// Activate raises and focuses a window and returns once it has the focus (or fails).
	Activate(ctx context.Context, id uint32) error
}

// DegradedScreen is a ScreenCapture that can say why it runs degraded (empty: it does not).
type DegradedScreen interface {
	ScreenCapture
	Degraded() string
}

// AdaptScreen turns a screen implementation into a Screen whose capability is available, or degraded with the
// implementation's reason.
func AdaptScreen(impl DegradedScreen) Screen { return adaptedScreen{impl} }

type adaptedScreen struct{ DegradedScreen }

func (a adaptedScreen) Capability() Capability {
	if r := a.Degraded(); r != "" {
		return Capability{State: agentv1.CapabilityState_CAPABILITY_STATE_DEGRADED, Reason: r}
	}
	return Available
}
