package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"glovebox.dev/guest/internal/server"
	"glovebox.dev/shared/endpoint"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
)

// run serves until ctx ends, then stops gracefully (bounded by cfg.ShutdownGrace) and releases every key and
// button any owner still holds.
func run(ctx context.Context, cfg Config, log *slog.Logger) error {
	// The generation must change when the agent restarts so refs and targets from the old process are
	// refused; microseconds since the epoch increase across restarts without any state on disk.
	generation := uint64(time.Now().UnixMicro())

	// Endpoints first: a bad one fails the start before anything touches the display.
	listeners, err := listenAll(ctx, cfg, log)
	if err != nil {
		return err
	}
	backends := newBackendSet(cfg.Display, log)
	defer backends.Close()
	fs := openFiles(cfg, log)
	downloads := ""
	if fs != nil {
		defer fs.Close()
		downloads = fs.DownloadDir()
	}
	br := openBrowser(cfg, downloads, log)
	defer br.Close()
	withOwnBackends := func(b server.Backends) server.Backends {
		b.Browser = br
		if fs != nil {
			b.Files = fs
		}
		return b
	}

	svc := server.New(server.Options{Version: version, XDisplay: cfg.Display, Generation: generation, Logger: log},
		withOwnBackends(backends.current()))
	g := grpc.NewServer(svc.ServerOptions()...)
	svc.Register(g)
	reflection.Register(g)
	// RPCs are served from the start (a broker can connect and read GetInfo while the desktop backends open,
	// which under TCG at boot takes a good part of a second); health says SERVING once the first attempt to
	// open them is over, so a caller that waits for it sees every backend the desktop offers.
	hs := health.NewServer()
	hs.SetServingStatus("", healthpb.HealthCheckResponse_NOT_SERVING)
	healthpb.RegisterHealthServer(g, hs)
	attachCtx, stopAttach := context.WithCancel(ctx)
	attached := make(chan struct{})
	go func() {
		defer close(attached)
		backends.openMissing(attachCtx)
		svc.SetBackends(withOwnBackends(backends.current()))
		hs.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
		backends.attachLate(attachCtx, func(b server.Backends) { svc.SetBackends(withOwnBackends(b)) })
	}()
	defer func() { stopAttach(); <-attached }()

	serveErr := make(chan error, len(listeners))
	for _, l := range listeners {
		go func() { serveErr <- g.Serve(l) }()
	}
	log.Info("agent serving", "version", version, "display", cfg.Display, "generation", generation, "listen", cfg.Listen)

	select {
	case <-ctx.Done():
	case err = <-serveErr:
		err = fmt.Errorf("serve: %w", err)
	}
	hs.Shutdown()
	stopped := make(chan struct{})
	go func() { g.GracefulStop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(cfg.ShutdownGrace):
		g.Stop()
	}
	log.Info("agent stopped")
	return err
}

// listenAll opens every configured endpoint or none: a failure closes the ones already open.
func listenAll(ctx context.Context, cfg Config, log *slog.Logger) ([]net.Listener, error) {
	var ls []net.Listener
	for _, uri := range cfg.Listen {
		ep, err := endpoint.Parse(uri)
		if err == nil {
			var l net.Listener
			l, err = endpoint.Listen(ctx, ep, endpoint.ListenOptions{
				AllowCIDs:        cfg.AllowCIDs,
				AllowNonLoopback: cfg.AllowNonLoopbackTCP,
				Logger:           log,
			})
			if err == nil {
				ls = append(ls, l)
				continue
			}
		}
		for _, l := range ls {
			l.Close()
		}
		return nil, fmt.Errorf("listen %s: %w", uri, err)
	}
	if len(ls) == 0 {
		return nil, errors.New("no endpoint to listen on")
	}
	return ls, nil
}
