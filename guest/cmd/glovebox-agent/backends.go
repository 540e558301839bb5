package main

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"glovebox.dev/guest/internal/atspi"
	"glovebox.dev/guest/internal/clipboard"
	"glovebox.dev/guest/internal/server"
	"glovebox.dev/guest/internal/x11/input"
	"glovebox.dev/guest/internal/x11/screen"
	"glovebox.dev/guest/internal/x11/windows"
	"glovebox.dev/guest/internal/x11/xconn"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// Retry cadences of backends that could not start. X connections fail fast when the display is not there, so
// they are retried often: an agent started before its X server (a VM boot, a session service) serves at once
// and attaches the desktop within a fraction of a second of the display appearing. Opening the accessibility
// bus costs a D-Bus round trip or a timeout, so it is retried less often.
const (
	retryX             = 100 * time.Millisecond
	retryAccessibility = 2 * time.Second
	accessibilityOpen  = 5 * time.Second
)

// backendSet opens the desktop backends, each on its own X connection so a capture never waits behind input
// and the clipboard's event loop blocks neither, and keeps retrying those that could not start. A missing
// backend is nil with its reason in Missing; GetInfo reports it unavailable and its RPCs fail with
// CAPABILITY_UNAVAILABLE until it attaches.
type backendSet struct {
	display string
	log     *slog.Logger

	mu       sync.Mutex
	b        server.Backends
	input    *input.Device
	closers  []func() error
	warned   map[agentv1.Backend]bool
	lastA11y time.Time
	closed   bool
}

func newBackendSet(display string, log *slog.Logger) *backendSet {
	return &backendSet{display: display, log: log, warned: map[agentv1.Backend]bool{},
		b: server.Backends{Missing: map[agentv1.Backend]string{}}}
}

// current returns a copy of the backends open now.
func (s *backendSet) current() server.Backends {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.b
	b.Missing = make(map[agentv1.Backend]string, len(s.b.Missing))
	for k, v := range s.b.Missing {
		b.Missing[k] = v
	}
	return b
}

// complete reports whether every backend this set opens is open.
func (s *backendSet) complete() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Screen != nil && s.b.Input != nil && s.b.Clipboard != nil && s.b.Accessibility != nil
}

// openMissing tries to open every backend still missing and reports whether any attached.
func (s *backendSet) openMissing(ctx context.Context) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	attached := false
	ok := func(backend agentv1.Backend, closer func() error) {
		delete(s.b.Missing, backend)
		s.closers = append(s.closers, closer)
		attached = true
		if s.warned[backend] {
			s.log.Info("backend attached", "backend", backend.String())
		}
	}
	if s.b.Windows == nil {
		if w, err := windows.New(s.display); err != nil {
			s.fail(agentv1.Backend_BACKEND_SCREEN, err)
		} else {
			s.b.Windows = w
			s.closers = append(s.closers, w.Close)
		}
	}
	if s.b.Screen == nil && s.b.Windows != nil {
		if sc, err := screen.New(s.display, s.b.Windows.(*windows.Windows), s.log.With("backend", "screen")); err != nil {
			s.fail(agentv1.Backend_BACKEND_SCREEN, err)
		} else {
			s.b.Screen = server.AdaptScreen(sc)
			ok(agentv1.Backend_BACKEND_SCREEN, sc.Close)
		}
	}
	if s.b.Input == nil {
		if d, err := input.Open(s.display, s.log.With("backend", "input")); err != nil {
			s.fail(agentv1.Backend_BACKEND_INPUT, err)
		} else {
			s.input = d
			s.b.Input = server.AdaptInput(d)
			ok(agentv1.Backend_BACKEND_INPUT, d.Close)
		}
	}
	if s.b.Clipboard == nil {
		if c, err := clipboard.Open(s.display, s.log.With("backend", "clipboard")); err != nil {
			s.fail(agentv1.Backend_BACKEND_CLIPBOARD, err)
		} else {
			s.b.Clipboard = server.AdaptClipboard(c)
			ok(agentv1.Backend_BACKEND_CLIPBOARD, c.Close)
		}
	}
	if s.b.Accessibility == nil && time.Since(s.lastA11y) >= retryAccessibility {
		s.lastA11y = time.Now()
		// The accessibility bus is found as the toolkits find it: AT_SPI_BUS_ADDRESS, the X root window's
		// AT_SPI_BUS, the session bus of DBUS_SESSION_BUS_ADDRESS; element_click's pointer fallback clicks through
		// the input backend (inside the same mutation queue).
		actx, cancel := context.WithTimeout(ctx, accessibilityOpen)
		a, err := atspi.Open(actx, atspi.Options{Click: s.click, Logger: s.log.With("backend", "accessibility"),
			RootBus: func() (string, error) { return xconn.RootString(s.display, "AT_SPI_BUS") }})
		cancel()
		if err != nil {
			s.fail(agentv1.Backend_BACKEND_ACCESSIBILITY, err)
		} else {
			s.b.Accessibility = server.AdaptAccessibility(a)
			ok(agentv1.Backend_BACKEND_ACCESSIBILITY, a.Close)
		}
	}
	return attached
}

// click is element_click's pointer fallback: a left click through the input backend, once it is open.
func (s *backendSet) click(ctx context.Context, x, y int32) error {
	s.mu.Lock()
	d := s.input
	s.mu.Unlock()
	if d == nil {
		return errors.New("no input backend for a pointer click")
	}
	return d.Click(ctx, &agentv1.Point{X: x, Y: y}, agentv1.MouseButton_MOUSE_BUTTON_LEFT, 1, nil)
}

// fail records why a backend is missing; it warns once per backend, then logs retries at debug level.
func (s *backendSet) fail(backend agentv1.Backend, err error) {
	s.b.Missing[backend] = err.Error()
	if s.warned[backend] {
		s.log.Debug("backend still unavailable", "backend", backend.String(), "error", err)
		return
	}
	s.warned[backend] = true
	s.log.Warn("backend unavailable, retrying", "backend", backend.String(), "error", err)
}

// attachLate retries the missing backends until all are open or ctx ends, handing every new set to use.
func (s *backendSet) attachLate(ctx context.Context, use func(server.Backends)) {
	t := time.NewTicker(retryX)
	defer t.Stop()
	for !s.complete() {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if s.openMissing(ctx) {
			use(s.current())
		}
	}
}

// Close closes every backend, the input backend releasing every key and button still held, and stops
// further attaching.
func (s *backendSet) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for i := len(s.closers) - 1; i >= 0; i-- {
		if err := s.closers[i](); err != nil {
			s.log.Warn("close backend", "error", err)
		}
	}
	s.closers = nil
}
