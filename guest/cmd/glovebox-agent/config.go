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
	// Listen is the endpoints to serve on (vsock://CID:PORT, unix:///path, tcp://host:port); repeatable.
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
	if c.ShutdownGrace <= 0 {
		c.ShutdownGrace = DefaultShutdownGrace
	}
	return errors.Join(errs...)
}
