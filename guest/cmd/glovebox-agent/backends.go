package main

import (
	"context"
	"log/slog"
	"time"

	"glovebox.dev/guest/internal/atspi"
	"glovebox.dev/guest/internal/clipboard"
	"glovebox.dev/guest/internal/server"
	"glovebox.dev/guest/internal/x11/input"
	"glovebox.dev/guest/internal/x11/screen"
	"glovebox.dev/guest/internal/x11/windows"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// openBackends connects every backend to the display, each on its own X connection so a capture never
// waits behind input and the clipboard's event loop blocks neither. A backend that cannot start is left nil
// with the reason; GetInfo reports it unavailable and its RPCs fail with CAPABILITY_UNAVAILABLE. The returned
// func closes them all, the input backend releasing every key and button still held.
func openBackends(display string, log *slog.Logger) (server.Backends, func()) {
	b := server.Backends{Missing: map[agentv1.Backend]string{}}
	var closers []func() error
	fail := func(backend agentv1.Backend, err error) {
		b.Missing[backend] = err.Error()
		log.Warn("backend unavailable", "backend", backend.String(), "error", err)
	}

	var win *windows.Windows
	if w, err := windows.New(display); err != nil {
		fail(agentv1.Backend_BACKEND_SCREEN, err)
	} else {
		win = w
		b.Windows = w
		closers = append(closers, w.Close)
	}
	if win != nil {
		if s, err := screen.New(display, win, log.With("backend", "screen")); err != nil {
			fail(agentv1.Backend_BACKEND_SCREEN, err)
		} else {
			b.Screen = server.AdaptScreen(s)
			closers = append(closers, s.Close)
		}
	}
	var click func(ctx context.Context, x, y int32) error
	if d, err := input.Open(display, log.With("backend", "input")); err != nil {
		fail(agentv1.Backend_BACKEND_INPUT, err)
	} else {
		b.Input = server.AdaptInput(d)
		closers = append(closers, d.Close)
		click = func(ctx context.Context, x, y int32) error {
			return d.Click(ctx, &agentv1.Point{X: x, Y: y}, agentv1.MouseButton_MOUSE_BUTTON_LEFT, 1, nil)
		}
	}
	// The accessibility bus is found through the session bus of DBUS_SESSION_BUS_ADDRESS; element_click's
	// pointer fallback clicks through the input backend (inside the same mutation queue).
	actx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	if a, err := atspi.Open(actx, atspi.Options{Click: click, Logger: log.With("backend", "accessibility")}); err != nil {
		fail(agentv1.Backend_BACKEND_ACCESSIBILITY, err)
	} else {
		b.Accessibility = server.AdaptAccessibility(a)
		closers = append(closers, a.Close)
	}
	cancel()
	if c, err := clipboard.Open(display, log.With("backend", "clipboard")); err != nil {
		fail(agentv1.Backend_BACKEND_CLIPBOARD, err)
	} else {
		b.Clipboard = server.AdaptClipboard(c)
		closers = append(closers, c.Close)
	}
	return b, func() {
		for i := len(closers) - 1; i >= 0; i-- {
			if err := closers[i](); err != nil {
				log.Warn("close backend", "error", err)
			}
		}
	}
}
