// Command glovebox-broker is the Glovebox host broker: it keeps every guest's glovebox-agent connected, gives
// each caller a session, freezes targets, enforces control and policy, and writes the audit log.
//
// Usage:
//
//	glovebox-broker -config /etc/glovebox/broker.json [-log-level info]
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"glovebox.dev/host/internal/config"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	configPath := flag.String("config", "/etc/glovebox/broker.json", "broker config file (JSON)")
	level := flag.String("log-level", "info", "log level: debug, info, warn, error")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "glovebox-broker: unexpected arguments: %s (the config file is given with -config)\n", strings.Join(flag.Args(), " "))
		os.Exit(2)
	}
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(*level)); err != nil {
		fmt.Fprintf(os.Stderr, "glovebox-broker: -log-level: %v\n", err)
		os.Exit(2)
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: lv}))
	cfg, err := config.Load(*configPath)
	if err != nil {
		log.Error("config", "error", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, log); err != nil {
		log.Error("broker", "error", err)
		os.Exit(1)
	}
}
