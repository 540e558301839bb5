package server

import (
	"context"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/keysym"
)

// Input is the input backend (XTEST, package x11/input). Every method returns once the X server has
// processed the events it sent. Actions run one at a time; an action that fails or whose ctx ends part way
// releases what it pressed and fails with errdefs.ErrInterrupted (cancelled) or another class. Points reaching
// it are inside the root window; a nil point means "where the pointer is".
type Input interface {
	capable
	InputDevice
}

// InputDevice is Input without the capability report, as package x11/input implements it (backends do not
// import this package, whose tests use them; AdaptInput adds the report).
type InputDevice interface {
	// Root returns the size of the root window in pixels.
	Root() (width, height int32)
	// Pointer returns the pointer position.
	Pointer(ctx context.Context) (x, y int32, err error)
	// LastPointer returns the pointer position at the end of the last action, without a round trip.
	LastPointer() (x, y int32)
	// Move moves the pointer.
	Move(ctx context.Context, to *agentv1.Point) error
	// Click clicks button count times at a point with mods held.
	Click(ctx context.Context, at *agentv1.Point, button agentv1.MouseButton, count int, mods keysym.Combo) error
	// MouseDown presses a button; owner holds it afterwards.
	MouseDown(ctx context.Context, owner string, at *agentv1.Point, button agentv1.MouseButton) error
	// MouseUp releases a button owner holds (one it does not hold is left alone).
	MouseUp(ctx context.Context, owner string, at *agentv1.Point, button agentv1.MouseButton) error
	// Drag presses button at path[0], moves through the path pausing stepDelay after each motion, releases.
	Drag(ctx context.Context, path []*agentv1.Point, button agentv1.MouseButton, stepDelay time.Duration, mods keysym.Combo) error
	// Scroll turns the wheel dx, dy clicks (dy > 0 down, dx > 0 right) with mods held.
	Scroll(ctx context.Context, at *agentv1.Point, dx, dy int, mods keysym.Combo) error
	// Key presses and releases combo repeat times.
	Key(ctx context.Context, combo keysym.Combo, repeat int) error
	// KeyDown presses combo; owner holds it afterwards.
	KeyDown(ctx context.Context, owner string, combo keysym.Combo) error
	// KeyUp releases the keys of combo that owner holds, in reverse order.
	KeyUp(ctx context.Context, owner string, combo keysym.Combo) error
	// HoldKey presses combo for dur; cancelled, it releases at once.
	HoldKey(ctx context.Context, combo keysym.Combo, dur time.Duration) error
	// Type types any Unicode text and says how many characters it typed and how many went through a
	// remapped spare keycode.
	Type(ctx context.Context, text string, delay time.Duration) (typed, remapped int, err error)
	// ReleaseAll releases everything owner holds and returns it, most recent first.
	ReleaseAll(ctx context.Context, owner string) ([]*agentv1.HeldInput, error)
	// ReleaseEverything releases every key and button the X server has down, whoever pressed them, and
	// forgets every owner's holds.
	ReleaseEverything(ctx context.Context) ([]*agentv1.HeldInput, error)
	// Held returns what owner holds, in press order.
	Held(owner string) []*agentv1.HeldInput
	// Close releases everything held by every owner; the agent calls it on shutdown.
	Close() error
}

// AdaptInput turns an input device into an available Input: a device exists only once XTEST answered.
func AdaptInput(d InputDevice) Input { return adaptedInput{d} }

type adaptedInput struct{ InputDevice }

func (adaptedInput) Capability() Capability { return Available }
