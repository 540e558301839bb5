package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	"glovebox.dev/host/internal/audit"
	"glovebox.dev/host/internal/auth"
	"glovebox.dev/host/internal/broker"
	"glovebox.dev/host/internal/config"
	"glovebox.dev/host/internal/console"
	"glovebox.dev/host/internal/metrics"
	"glovebox.dev/host/internal/service"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

const (
	// unixSocketMode lets any local user connect: the peer uid check is what admits or refuses them.
	unixSocketMode = 0o666
	// drainTimeout is how long in-flight RPCs get at shutdown before they are cut off.
	drainTimeout = 5 * time.Second
)

// run serves until ctx ends, then shuts down: stop accepting, drain RPCs, close every session with
// BROKER_SHUTDOWN (releasing their input on the guests), and flush and close the audit log.
func run(ctx context.Context, cfg *config.Config, log *slog.Logger) error {
	keyFile := cfg.Audit.KeyFile
	if keyFile == "" {
		keyFile = filepath.Join(cfg.Audit.Dir, config.DefaultAuditKeyFile)
	}
	if err := os.MkdirAll(cfg.Audit.Dir, 0o700); err != nil {
		return fmt.Errorf("audit.dir: %w", err)
	}
	key, err := audit.LoadOrCreateKey(keyFile)
	if err != nil {
		return fmt.Errorf("audit.key_file: %w", err)
	}
	m := metrics.New()
	alog, err := audit.Open(cfg.Audit.Dir, key, audit.Options{RotateBytes: cfg.Audit.RotateBytes, Observer: m, Logger: log})
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	defer alog.Close()

	tlsConf, err := serverTLS(cfg)
	if err != nil {
		return err
	}
	b, err := broker.New(broker.Options{Config: cfg, Audit: alog, Redact: alog.Redact, Fingerprint: alog.Fingerprint, Logger: log, Metrics: m})
	if err != nil {
		return err
	}
	defer b.Close(context.Background())

	opts := append(service.ServerOptions(log, m, b), grpc.Creds(auth.NewCredentials(auth.NewDirectory(cfg.Principals), tlsConf, log)))
	srv := grpc.NewServer(opts...)
	con, conLn, err := startConsole(cfg, b, alog, log)
	if err != nil {
		return err
	}
	var links service.LinkMinter
	if con != nil {
		links = con
	}
	service.Register(srv, b, alog, links)
	// Room for every listener's Serve, the MCP endpoint's two, the metrics server's and the console's.
	errc := make(chan error, len(cfg.Listen)+5)
	mcpEP, err := startMCP(cfg, srv, b, tlsConf, log, errc)
	if err != nil {
		return err
	}
	defer mcpEP.close()
	hs := health.NewServer()
	healthpb.RegisterHealthServer(srv, hs)
	reflection.Register(srv)

	var listeners []net.Listener
	for _, uri := range cfg.Listen {
		l, err := listen(uri)
		if err != nil {
			for _, l := range listeners {
				l.Close()
			}
			return err
		}
		listeners = append(listeners, l)
	}
	if mcpEP != nil {
		listeners = append(listeners, mcpEP.local)
	}
	for _, l := range listeners {
		go func() { errc <- srv.Serve(l) }()
	}
	var hsrv *http.Server
	if cfg.MetricsListen != "" {
		ml, err := net.Listen("tcp", cfg.MetricsListen)
		if err != nil {
			srv.Stop()
			return fmt.Errorf("metrics_listen: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", m.Handler())
		hsrv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		go func() {
			if err := hsrv.Serve(ml); !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("metrics: %w", err)
			}
		}()
		log.Info("metrics serving", "listen", ml.Addr().String())
	}
	conCtx, stopConsole := context.WithCancel(context.Background())
	defer stopConsole()
	if con != nil {
		go func() {
			if err := con.Serve(conCtx, conLn); err != nil {
				errc <- fmt.Errorf("console: %w", err)
			}
		}()
		log.Info("console serving", "listen", conLn.Addr().String())
	}
	log.Info("broker serving", "version", version, "listen", cfg.Listen, "guests", len(cfg.Guests), "principals", len(cfg.Principals))

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
	}
	log.Info("broker shutting down")
	hs.Shutdown()
	mcpEP.close()
	drained := make(chan struct{})
	go func() { srv.GracefulStop(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(drainTimeout):
		srv.Stop()
	}
	if hsrv != nil {
		hsrv.Close()
	}
	stopConsole()
	b.Close(context.Background())
	if err := alog.Close(); err != nil {
		return fmt.Errorf("audit close: %w", err)
	}
	log.Info("broker stopped")
	return serveErr
}

// serverTLS loads the TCP listener's TLS config when one is configured.
func serverTLS(cfg *config.Config) (*tls.Config, error) {
	if cfg.TLS == nil {
		return nil, nil
	}
	return auth.ServerTLS(cfg.TLS)
}

// listen opens one listen endpoint; a stale unix socket left by a killed broker is replaced.
func listen(uri string) (net.Listener, error) {
	l, err := config.ParseListen(uri)
	if err != nil {
		return nil, err
	}
	if l.Network == "unix" {
		if fi, err := os.Lstat(l.Address); err == nil && fi.Mode()&os.ModeSocket != 0 {
			if c, err := net.Dial("unix", l.Address); err == nil {
				c.Close()
				return nil, fmt.Errorf("listen %s: another process is serving there", uri)
			}
			os.Remove(l.Address)
		}
		if err := os.MkdirAll(filepath.Dir(l.Address), 0o755); err != nil {
			return nil, fmt.Errorf("listen %s: %w", uri, err)
		}
	}
	ln, err := net.Listen(l.Network, l.Address)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", uri, err)
	}
	if l.Network == "unix" {
		if err := os.Chmod(l.Address, unixSocketMode); err != nil {
			ln.Close()
			return nil, fmt.Errorf("listen %s: %w", uri, err)
		}
	}
	return ln, nil
}

// startConsole opens the console's listener when console.listen is set (nil, nil, nil otherwise).
func startConsole(cfg *config.Config, b *broker.Broker, alog *audit.Log, log *slog.Logger) (*console.Server, net.Listener, error) {
	if cfg.Console.Listen == "" {
		return nil, nil, nil
	}
	ln, err := net.Listen("tcp", cfg.Console.Listen)
	if err != nil {
		return nil, nil, fmt.Errorf("console.listen: %w", err)
	}
	if cfg.Console.TLS {
		cert, err := tls.LoadX509KeyPair(cfg.TLS.Cert, cfg.TLS.Key)
		if err != nil {
			ln.Close()
			return nil, nil, fmt.Errorf("console.tls: %w", err)
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	}
	con := console.New(console.Options{Broker: b, Config: cfg.Console, Logger: log, Audit: auditTail(alog)})
	con.SetAddr(ln.Addr(), cfg.Console.TLS)
	return con, ln, nil
}

// auditTail reads a guest's newest n records for the console.
func auditTail(alog *audit.Log) console.AuditTail {
	return func(guest string, n int) ([]*brokerv1.AuditRecord, error) {
		head, _, err := alog.Head(guest)
		if err != nil || head == 0 {
			return nil, err
		}
		from := uint64(1)
		if head > uint64(n) {
			from = head - uint64(n) + 1
		}
		recs, _, err := alog.List(guest, audit.Filter{FromSeq: from}, n, "")
		return recs, err
	}
}
