// Package atspi reads and drives desktop applications through AT-SPI, speaking D-Bus directly (godbus) on the
// accessibility bus: it lists the applications, snapshots their trees in one call (one Cache.GetItems per app,
// then pipelined calls with bounded concurrency), keeps the snapshots so element refs resolve only while they
// are valid, and performs element actions after checking the element again (compare and act).
//
// The backend finds the accessibility bus the way libatspi (so GTK's bridge, Chromium and pyatspi) does:
// AT_SPI_BUS_ADDRESS, else the AT_SPI_BUS property of the X root window (Options.RootBus), else
// org.a11y.Bus.GetAddress on the session bus named by DBUS_SESSION_BUS_ADDRESS (or Options.SessionBus); and sets
// org.a11y.Status.IsEnabled on the session bus so toolkits export their trees (busaddr.go).
package atspi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/godbus/dbus/v5"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// Defaults, each with the reason for its value.
const (
	// DefaultCallTimeout bounds one D-Bus call: a toolkit answers in microseconds to milliseconds, and an app
	// that has not answered in 2 s is busy or hung; the snapshot then says so rather than waiting.
	DefaultCallTimeout = 2 * time.Second
	// DefaultSnapshotTimeout bounds a whole snapshot: 20000 nodes take well under a second when the app
	// answers; past this the snapshot is returned cut, with the reason.
	DefaultSnapshotTimeout = 10 * time.Second
	// DefaultInFlight bounds the calls outstanding at once during a snapshot: enough to hide the round trip
	// through the bus daemon, few enough not to flood an app's main loop.
	DefaultInFlight = 128
	// DefaultLaunchTimeout is how long a launched app may take to appear on the bus (GetAppRequest says 10 s).
	DefaultLaunchTimeout = 10 * time.Second
)

// D-Bus names of AT-SPI.
const (
	registryName  = "org.a11y.atspi.Registry"
	rootPath      = dbus.ObjectPath("/org/a11y/atspi/accessible/root")
	cachePath     = dbus.ObjectPath("/org/a11y/atspi/cache")
	ifAccessible  = "org.a11y.atspi.Accessible"
	ifApplication = "org.a11y.atspi.Application"
	ifComponent   = "org.a11y.atspi.Component"
	ifText        = "org.a11y.atspi.Text"
	ifEditable    = "org.a11y.atspi.EditableText"
	ifValue       = "org.a11y.atspi.Value"
	ifAction      = "org.a11y.atspi.Action"
	ifProperties  = "org.freedesktop.DBus.Properties"
	coordScreen   = uint32(0) // ATSPI_COORD_TYPE_SCREEN
)

// Options configures Open.
type Options struct {
	// SessionBus is the session bus address; empty means $DBUS_SESSION_BUS_ADDRESS.
	SessionBus string
	// RootBus reads the AT_SPI_BUS property of the X root window ("" when it is not set); nil: not read.
	RootBus func() (string, error)
	// Click clicks the left button once at a root-window point: the pointer fallback of element_click for an
	// element with no click-like action. Nil makes that fallback fail with CAPABILITY_UNAVAILABLE.
	Click func(ctx context.Context, x, y int32) error
	// CallTimeout, SnapshotTimeout and InFlight override the defaults above when non-zero.
	CallTimeout     time.Duration
	SnapshotTimeout time.Duration
	InFlight        int
	Logger          *slog.Logger
}

// Backend is a connection to the accessibility bus with the snapshots taken through it. It is safe for
// concurrent use; element actions are serialized by the caller (the agent's mutation queue).
type Backend struct {
	conn    *dbus.Conn
	session string
	// source says where the bus address came from (busAddress).
	source string
	opts   Options
	// seenApp is set once an application has been seen on the bus (watchApps).
	seenApp   atomic.Bool
	closed    chan struct{}
	closeOnce sync.Once
	log       *slog.Logger
	store     *store

	mu   sync.Mutex
	pids map[string]int32 // bus name -> pid; a unique bus name is never reused by the daemon
	// peers are the apps' peer-to-peer connections by bus name (nil: none; see peer.go).
	peers map[string]*dbus.Conn
	// fasts are the apps' second peer-to-peer connections, for a snapshot's pipelined calls (fastconn.go).
	fasts map[string]*fastConn
}

// Open connects to the accessibility bus and enables accessibility (org.a11y.Status.IsEnabled).
func Open(ctx context.Context, opts Options) (*Backend, error) {
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.SnapshotTimeout <= 0 {
		opts.SnapshotTimeout = DefaultSnapshotTimeout
	}
	if opts.InFlight <= 0 {
		opts.InFlight = DefaultInFlight
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	addr, source, session, err := busAddress(ctx, opts, log)
	if err != nil {
		return nil, err
	}
	conn, err := dbus.Connect(addr, dbus.WithContext(context.Background()))
	if err != nil {
		return nil, fmt.Errorf("atspi: accessibility bus from %s: %v: %w", source, err, errdefs.ErrCapabilityUnavailable)
	}
	// at-spi2-atk (GTK, Chromium) builds its Cache object only once some client listens for events; a
	// listener on children-changed, as every screen reader registers, makes every app (including those started
	// later, which ask the registry for its listeners) export Cache.GetItems. No match rule is added, so the
	// events are not delivered here.
	rctx, rcancel := context.WithTimeout(ctx, opts.CallTimeout)
	defer rcancel()
	if err := conn.Object(registryName, "/org/a11y/atspi/registry").CallWithContext(rctx,
		"org.a11y.atspi.Registry.RegisterEvent", 0, "object:children-changed", []string{}, "").Err; err != nil {
		log.Warn("register an event listener (snapshots will read every node)", "error", err)
	}
	b := &Backend{conn: conn, session: session, source: source, opts: opts, log: log, store: newStore(),
		pids: map[string]int32{}, peers: map[string]*dbus.Conn{}, fasts: map[string]*fastConn{},
		closed: make(chan struct{})}
	b.watchApps(ctx)
	return b, nil
}

// Close closes the connection.
func (b *Backend) Close() error {
	b.closeOnce.Do(func() { close(b.closed) })
	b.closePeers()
	return b.conn.Close()
}

// Available reports whether the backend can work, and why not.
func (b *Backend) Available() (bool, string) {
	if !b.conn.Connected() {
		return false, "accessibility bus connection closed"
	}
	return true, ""
}

// call makes one D-Bus call bounded by the per-call timeout.
func (b *Backend) call(ctx context.Context, dest string, path dbus.ObjectPath, method string, args ...any) *dbus.Call {
	ctx, cancel := context.WithTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	return b.peer(dest).Object(dest, path).CallWithContext(ctx, method, 0, args...)
}

// errGone reports whether err says the object or its application no longer exists.
func errGone(err error) (objectGone, appGone bool) {
	var de dbus.Error
	if errors.As(err, &de) {
		switch de.Name {
		case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
			return true, true
		case "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownMethod",
			"org.freedesktop.DBus.Error.UnknownInterface":
			return true, false
		}
	}
	return false, false
}

// classify wraps a D-Bus call error in the errdefs class that says what happened: a vanished object is a
// stale ref, a vanished app a gone target, a deadline a timeout.
func classify(what string, err error) error {
	if err == nil {
		return nil
	}
	obj, app := errGone(err)
	switch {
	case app:
		return fmt.Errorf("%s: application left the bus: %w", what, errdefs.ErrTargetGone)
	case obj:
		return errgrpc.WithCause(fmt.Errorf("%s: element no longer exists: %w", what, errdefs.ErrStaleRef), errgrpc.CauseGone)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: application did not answer in time: %w", what, errdefs.ErrTimeout)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("%s: %w", what, errdefs.ErrInterrupted)
	}
	// A D-Bus error's text may be the application's: untrusted metadata, not the message.
	return errgrpc.WithMetadata(fmt.Errorf("%s: the call failed (%s): %w", what, dbusErrorName(err), errdefs.ErrInternal),
		map[string]string{errgrpc.Untrusted("detail"): errgrpc.UntrustedValue(err.Error())})
}

//go:generate go run gen_names.go

// roleName is the AT-SPI name of a role value (roleNames: names.go, written by gen_names.go).
func roleName(r uint32) string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return fmt.Sprintf("role %d", r)
}

// stateList names the states set in an AT-SPI state set (two 32-bit words).
func stateList(s []uint32) []string {
	var out []string
	for w, word := range s {
		for bit := 0; bit < 32 && word != 0; bit++ {
			if word&(1<<bit) == 0 {
				continue
			}
			i := w*32 + bit
			if i > 0 && i < len(stateNames) {
				out = append(out, stateNames[i])
			}
		}
	}
	return out
}

// Well-known state bits.
const (
	stateDefunct   = 6
	stateEditable  = 7
	stateFocusable = 11
	stateFocused   = 12
	stateSensitive = 24
	stateShowing   = 25
	stateVisible   = 30
)

func hasState(s [2]uint32, bit int) bool { return s[bit/32]&(1<<(bit%32)) != 0 }

// rect is an agentv1.Rect from AT-SPI extents.
func rect(x, y, w, h int32) *agentv1.Rect { return &agentv1.Rect{X: x, Y: y, Width: w, Height: h} }

// cleanName trims what toolkits pad names with.
func cleanName(s string) string { return strings.TrimSpace(s) }

// dbusErrorName names a failed call's error for a message: a standard D-Bus error name, else a generic phrase
// (an application may name its errors anything, and its names are guest text).
func dbusErrorName(err error) string {
	var de dbus.Error
	if errors.As(err, &de) && strings.HasPrefix(de.Name, "org.freedesktop.DBus.Error.") && len(de.Name) <= 80 {
		return de.Name
	}
	return "an application or transport error"
}
