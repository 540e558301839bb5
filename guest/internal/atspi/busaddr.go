package atspi

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/godbus/dbus/v5"

	"glovebox.dev/shared/errdefs"
)

// appWatch is how often a backend that has seen no application on its bus yet asks the registry again: one
// small call, until the first application shows up.
const appWatch = 2 * time.Second

// Where busAddress found the accessibility bus, as Degraded names it.
const (
	sourceEnv     = "AT_SPI_BUS_ADDRESS"
	sourceRoot    = "the X root window's AT_SPI_BUS"
	sourceSession = "org.a11y.Bus on the session bus"
)

// busAddress finds the accessibility bus in libatspi's order (atspi_get_a11y_bus): $AT_SPI_BUS_ADDRESS, the X
// root window's AT_SPI_BUS property, org.a11y.Bus.GetAddress on the session bus. Toolkits take the first they
// find, so when the root window and the session bus name different buses, the applications are on the root
// window's. It sets org.a11y.Status.IsEnabled on the session bus whichever bus it answers. It answers the
// address, where it came from and the session bus address.
func busAddress(ctx context.Context, opts Options, log *slog.Logger) (addr, source, session string, err error) {
	session = opts.SessionBus
	if session == "" {
		session = os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	}
	fromSession, sessionErr := "", fmt.Errorf("atspi: no session bus (DBUS_SESSION_BUS_ADDRESS is unset): %w", errdefs.ErrCapabilityUnavailable)
	if session != "" {
		fromSession, sessionErr = askSession(ctx, opts, session, log)
	}
	if a := os.Getenv("AT_SPI_BUS_ADDRESS"); a != "" {
		return a, sourceEnv, session, nil
	}
	if opts.RootBus != nil {
		switch a, err := opts.RootBus(); {
		case err != nil:
			log.Warn("read the X root window's AT_SPI_BUS", "error", err)
		case a != "":
			return a, sourceRoot, session, nil
		}
	}
	if sessionErr != nil {
		return "", "", "", sessionErr
	}
	return fromSession, sourceSession, session, nil
}

// askSession asks the session bus for the accessibility bus's address and sets org.a11y.Status.IsEnabled.
func askSession(ctx context.Context, opts Options, session string, log *slog.Logger) (string, error) {
	sc, err := dbus.Connect(session, dbus.WithContext(ctx))
	if err != nil {
		return "", fmt.Errorf("atspi: session bus: %v: %w", err, errdefs.ErrCapabilityUnavailable)
	}
	defer sc.Close()
	cctx, cancel := context.WithTimeout(ctx, opts.CallTimeout)
	defer cancel()
	bus := sc.Object("org.a11y.Bus", "/org/a11y/bus")
	// Toolkits and screen readers watch IsEnabled; GTK exports its tree regardless, Chromium and Qt only
	// when it is true.
	if err := bus.CallWithContext(cctx, ifProperties+".Set", 0, "org.a11y.Status", "IsEnabled", dbus.MakeVariant(true)).Err; err != nil {
		log.Warn("set org.a11y.Status.IsEnabled", "error", err)
	}
	var addr string
	if err := bus.CallWithContext(cctx, "org.a11y.Bus.GetAddress", 0).Store(&addr); err != nil {
		return "", fmt.Errorf("atspi: org.a11y.Bus.GetAddress: %v: %w", err, errdefs.ErrCapabilityUnavailable)
	}
	return addr, nil
}

// watchApps notes whether an application is on the bus now and, until one is, asks again every appWatch (until
// Close).
func (b *Backend) watchApps(ctx context.Context) {
	if b.anyApp(ctx) {
		return
	}
	go func() {
		t := time.NewTicker(appWatch)
		defer t.Stop()
		for {
			select {
			case <-b.closed:
				return
			case <-t.C:
			}
			if b.anyApp(context.Background()) {
				return
			}
		}
	}()
}

// anyApp reports whether an application has been seen on the bus, asking the registry when none has yet.
func (b *Backend) anyApp(ctx context.Context) bool {
	if b.seenApp.Load() {
		return true
	}
	var kids []struct {
		Name string
		Path dbus.ObjectPath
	}
	if b.call(ctx, registryName, rootPath, ifAccessible+".GetChildren").Store(&kids) == nil && len(kids) > 0 {
		b.seenApp.Store(true)
	}
	return b.seenApp.Load()
}

// Degraded says why the backend works but is likely to see nothing: no application has ever appeared on its
// bus (empty once one has).
func (b *Backend) Degraded() string {
	if b.seenApp.Load() {
		return ""
	}
	return "no application has appeared on the accessibility bus found through " + b.source +
		" since the agent connected: applications may be on another bus (AT_SPI_BUS_ADDRESS, the X root window's AT_SPI_BUS), or none has started"
}
