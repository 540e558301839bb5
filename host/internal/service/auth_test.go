package service

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"glovebox.dev/host/internal/auth"
	"glovebox.dev/host/internal/broker"
	"glovebox.dev/host/internal/config"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv/testpki"
)

type nopAudit struct{}

func (nopAudit) Append(ctx context.Context, rec *brokerv1.AuditRecord) (uint64, error) { return 1, nil }

// serve runs the broker's gRPC server with its real credentials on l.
func serve(t *testing.T, cfg *config.Config, tlsConf *tls.Config, l net.Listener) {
	t.Helper()
	cfg.ApplyDefaults()
	b, err := broker.New(broker.Options{Config: cfg, Audit: nopAudit{}})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	opts := append(ServerOptions(log, nil, b), grpc.Creds(auth.NewCredentials(auth.NewDirectory(cfg.Principals), tlsConf, log)))
	srv := grpc.NewServer(opts...)
	Register(srv, b, nil, nil)
	go srv.Serve(l)
	t.Cleanup(func() { srv.Stop(); b.Close(context.Background()) })
}

func listGuests(t *testing.T, target string, opts ...grpc.DialOption) error {
	t.Helper()
	cc, err := grpc.NewClient(target, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = brokerv1.NewGuestServiceClient(cc).ListGuests(ctx, &brokerv1.ListGuestsRequest{})
	return err
}

// TestUnixPeerUID: the same client is admitted when its uid is a principal's and refused PERMISSION_DENIED
// otherwise.
func TestUnixPeerUID(t *testing.T) {
	uid := uint32(os.Getuid())
	tests := []struct {
		name string
		uids []uint32
		want codes.Code
	}{
		{"known uid", []uint32{uid}, codes.OK},
		{"unknown uid", []uint32{uid + 12345}, codes.PermissionDenied},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := os.MkdirTemp("", "gbauth")
			defer os.RemoveAll(dir)
			sock := filepath.Join(dir, "b.sock")
			l, err := net.Listen("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			serve(t, &config.Config{Principals: []config.Principal{{Name: "p", UIDs: tc.uids, Guests: []string{"*"}}}}, nil, l)
			err = listGuests(t, "unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if got := status.Code(err); got != tc.want {
				t.Errorf("code = %v (%v), want %v", got, err, tc.want)
			}
		})
	}
}

// TestTCPMutualTLS: a client without a certificate, or with one no principal names, is refused.
func TestTCPMutualTLS(t *testing.T) {
	ca := testpki.New(t)
	server := ca.Server(t, "localhost")
	serverTLS, err := auth.ServerTLS(&config.TLS{Cert: server.CertFile, Key: server.KeyFile, ClientCA: ca.File})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serve(t, &config.Config{Principals: []config.Principal{{Name: "ci", CertNames: []string{"ci"}, Guests: []string{"*"}}}}, serverTLS, l)
	roots := ca.Pool()
	tests := []struct {
		name  string
		certs []tls.Certificate
		want  codes.Code
	}{
		{"client cert of a principal", []tls.Certificate{ca.Client(t, "ci").TLS}, codes.OK},
		{"no client cert", nil, codes.Unavailable},
		{"cert of nobody", []tls.Certificate{ca.Client(t, "nobody").TLS}, codes.Unavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			creds := credentials.NewTLS(&tls.Config{RootCAs: roots, ServerName: "localhost", Certificates: tc.certs})
			err := listGuests(t, "passthrough:///"+l.Addr().String(), grpc.WithTransportCredentials(creds))
			if got := status.Code(err); got != tc.want {
				t.Errorf("code = %v (%v), want %v", got, err, tc.want)
			}
		})
	}
}

func TestConfigRefusesOpenTCP(t *testing.T) {
	_, err := config.Parse([]byte(`{"listen":["tcp://127.0.0.1:7000"],"audit":{"dir":"/tmp/a"},"principals":[{"name":"p","uids":[1]}]}`))
	if err == nil || !strings.Contains(err.Error(), "tls: required") {
		t.Errorf("tcp without tls: %v", err)
	}
}
