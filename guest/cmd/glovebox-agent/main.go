// Command glovebox-agent runs inside a guest as the desktop user and serves the glovebox.agent.v1 gRPC
// services (agent info, observe, act, clipboard) for the X display it drives.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"glovebox.dev/guest/internal/x11/xconn"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "glovebox-agent:", err)
		os.Exit(2)
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	// xgb logs through a package-level *log.Logger; route it into the JSON log at debug level (its lines are
	// connection diagnostics such as a missing .Xauthority, never request content).
	xconn.SetLogger(log.With("component", "xgb"))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, log); err != nil {
		log.Error("agent stopped", "error", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (Config, error) {
	var cfg Config
	fs := flag.NewFlagSet("glovebox-agent", flag.ContinueOnError)
	fs.Func("listen", "endpoint to serve on: vsock://CID:PORT, serial:///dev/virtio-ports/NAME, unix:///path, tcp://host:port (repeatable; default vsock://:"+
		strconv.Itoa(DefaultVsockPort)+")", func(s string) error {
		cfg.Listen = append(cfg.Listen, s)
		return nil
	})
	fs.Func("allow-cid", "vsock CID allowed to connect (repeatable; default only the host, 2)", func(s string) error {
		n, err := strconv.ParseUint(s, 10, 32)
		if err != nil {
			return fmt.Errorf("allow-cid %q: %w", s, err)
		}
		cfg.AllowCIDs = append(cfg.AllowCIDs, uint32(n))
		return nil
	})
	fs.BoolVar(&cfg.AllowNonLoopbackTCP, "allow-non-loopback-tcp", false, "let tcp:// endpoints listen beyond loopback (the agent has no authentication)")
	fs.StringVar(&cfg.Display, "display", os.Getenv("DISPLAY"), "X display to drive")
	level := fs.String("log-level", "info", "minimum log level: debug, info, warn, error")
	fs.DurationVar(&cfg.ShutdownGrace, "shutdown-grace", DefaultShutdownGrace, "how long in-flight RPCs may finish on shutdown")
	fs.Func("browser-port", "DevTools port probed for Chromium browsers (repeatable; the first is the default workspace browser's; default 9222)", func(s string) error {
		n, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("browser-port %q: %w", s, err)
		}
		cfg.BrowserPorts = append(cfg.BrowserPorts, n)
		return nil
	})
	fs.StringVar(&cfg.BrowserProfile, "browser-profile", "", "profile directory of the default workspace browser (default <user cache dir>/glovebox/chromium)")
	fs.StringVar(&cfg.Home, "home", os.Getenv("HOME"), "the desktop user's home directory: file reads stay inside it")
	fs.StringVar(&cfg.DropsDir, "drops-dir", "", "where dropped files land (default <home>/Drops)")
	fs.StringVar(&cfg.DownloadsDir, "downloads-dir", "", "the browser download directory (default <home>/Downloads)")
	fs.Func("firefox-port", "WebDriver BiDi port probed for Firefox browsers (repeatable; the first is the default workspace Firefox's; default 9223)", func(s string) error {
		n, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("firefox-port %q: %w", s, err)
		}
		cfg.FirefoxPorts = append(cfg.FirefoxPorts, n)
		return nil
	})
	fs.StringVar(&cfg.FirefoxProfile, "firefox-profile", "", "profile directory of the default workspace Firefox (default <user cache dir>/glovebox/firefox)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if *showVersion {
		fmt.Println(version)
		os.Exit(0)
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(*level)); err != nil {
		return cfg, fmt.Errorf("log-level: %w", err)
	}
	return cfg, cfg.Validate()
}
