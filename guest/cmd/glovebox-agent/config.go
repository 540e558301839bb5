package main

import (
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Defaults, each with its reason.
const (
	// DefaultVsockPort is the agent's vsock port when no endpoint is given: an unassigned port the broker's
	// guest config uses by default.
	DefaultVsockPort = 7005
	// DefaultShutdownGrace bounds how long in-flight RPCs may finish on SIGTERM before the server stops hard;
	// held input is released in either case.
	DefaultShutdownGrace = 5 * time.Second
)

// Config is everything glovebox-agent needs to run. main fills it from flags; Validate checks it.
type Config struct {
	// Listen is the endpoints to serve on (vsock://CID:PORT, serial:///dev/virtio-ports/NAME, unix:///path,
	// tcp://host:port); repeatable.
	// Empty means vsock://:DefaultVsockPort.
	Listen []string
	// AllowCIDs is the vsock peers allowed to connect; empty means only the host (CID 2).
	AllowCIDs []uint32
	// AllowNonLoopbackTCP lets tcp:// endpoints listen on addresses other than loopback. Off by default: the
	// agent has no authentication of its own and must only be reachable by the host.
	AllowNonLoopbackTCP bool
	// Display is the X display to drive; empty means $DISPLAY.
	Display string
	// LogLevel is the minimum level logged (JSON lines on stderr).
	LogLevel slog.Level
	// ShutdownGrace bounds the graceful stop.
	ShutdownGrace time.Duration
	// BrowserPorts are the DevTools ports always probed for browsers (repeatable -browser-port); the first is
	// the default workspace browser's, the only one the agent may start. Empty means 9222.
	BrowserPorts []int
	// BrowserProfile is the default browser's persistent profile directory; empty means
	// <user cache dir>/glovebox/chromium.
	BrowserProfile string
	// Home is the desktop user's home directory: file reads stay inside it. Empty means $HOME.
	Home string
	// DropsDir is where dropped files land; empty means Home/Drops.
	DropsDir string
	// DownloadsDir is the browser download directory; empty means Home/Downloads.
	DownloadsDir string
	// FirefoxPorts are the WebDriver BiDi (remote agent) ports always probed for Firefox browsers (repeatable
	// -firefox-port); the first is the default workspace Firefox's, the only one the agent may start. Empty means
	// 9223.
	FirefoxPorts []int
	// FirefoxProfile is the default Firefox's persistent profile directory; empty means
	// <user cache dir>/glovebox/firefox.
	FirefoxProfile string
}

// Validate checks the config and fills defaults.
func (c *Config) Validate() error {
	var errs []error
	if len(c.Listen) == 0 {
		c.Listen = []string{fmt.Sprintf("vsock://:%d", DefaultVsockPort)}
	}
	if c.Display == "" {
		errs = append(errs, errors.New("display: no X display (set -display or DISPLAY)"))
	}
	for _, p := range c.BrowserPorts {
		if p < 1 || p > 65535 {
			errs = append(errs, fmt.Errorf("browser-port %d: must be 1..65535", p))
		}
	}
	for _, p := range c.FirefoxPorts {
		if p < 1 || p > 65535 {
			errs = append(errs, fmt.Errorf("firefox-port %d: must be 1..65535", p))
		}
	}
	if c.ShutdownGrace <= 0 {
		c.ShutdownGrace = DefaultShutdownGrace
	}
	return errors.Join(errs...)
}
