package service

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log/slog"
	"math/big"
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
	Register(srv, b, nil)
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

// TestUnixPeerUID: the same client is admitted when its uid is a principal's and refused otherwise.
func TestUnixPeerUID(t *testing.T) {
	uid := uint32(os.Getuid())
	tests := []struct {
		name string
		uids []uint32
		want codes.Code
	}{
		{"known uid", []uint32{uid}, codes.OK},
		{"unknown uid", []uint32{uid + 12345}, codes.Unavailable},
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

// pki is a CA with a server and a client certificate, generated for the test.
type pki struct {
	caPEM             []byte
	ca                *x509.Certificate
	caKey             *ecdsa.PrivateKey
	server, client    tls.Certificate
	stranger          tls.Certificate
	certFile, keyFile string
	caFile            string
}

func newPKI(t *testing.T) *pki {
	t.Helper()
	p := &pki{}
	p.caKey, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test ca"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &p.caKey.PublicKey, p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	p.ca, _ = x509.ParseCertificate(der)
	p.caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	p.server = p.leaf(t, "localhost", x509.ExtKeyUsageServerAuth, p.ca, p.caKey)
	p.client = p.leaf(t, "ci", x509.ExtKeyUsageClientAuth, p.ca, p.caKey)
	p.stranger = p.leaf(t, "nobody", x509.ExtKeyUsageClientAuth, p.ca, p.caKey)
	dir := t.TempDir()
	p.caFile, p.certFile, p.keyFile = filepath.Join(dir, "ca.pem"), filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(p.caFile, p.caPEM, 0o600)
	os.WriteFile(p.certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.server.Certificate[0]}), 0o600)
	kb, _ := x509.MarshalECPrivateKey(p.server.PrivateKey.(*ecdsa.PrivateKey))
	os.WriteFile(p.keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	return p
}

func (p *pki) leaf(t *testing.T, cn string, usage x509.ExtKeyUsage, ca *x509.Certificate, caKey *ecdsa.PrivateKey) tls.Certificate {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: cn}, DNSNames: []string{cn}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{usage}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestTCPMutualTLS: a client without a certificate, or with one no principal names, is refused.
func TestTCPMutualTLS(t *testing.T) {
	p := newPKI(t)
	serverTLS, err := auth.ServerTLS(&config.TLS{Cert: p.certFile, Key: p.keyFile, ClientCA: p.caFile})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serve(t, &config.Config{Principals: []config.Principal{{Name: "ci", CertNames: []string{"ci"}, Guests: []string{"*"}}}}, serverTLS, l)
	roots := x509.NewCertPool()
	roots.AddCert(p.ca)
	tests := []struct {
		name  string
		certs []tls.Certificate
		want  codes.Code
	}{
		{"client cert of a principal", []tls.Certificate{p.client}, codes.OK},
		{"no client cert", nil, codes.Unavailable},
		{"cert of nobody", []tls.Certificate{p.stranger}, codes.Unavailable},
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
