package broker_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// testCA issues certificates for one test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	dir  string
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "glovebox test ca"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, key: key, dir: t.TempDir()}
}

// issue returns a leaf certificate for cn, and writes it and its key as PEM files named after cn.
func (ca *testCA) issue(t *testing.T, cn string, usage x509.ExtKeyUsage) (tls.Certificate, string, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn}, DNSNames: []string{cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{usage}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(ca.dir, cn+".pem"), filepath.Join(ca.dir, cn+".key")
	write(t, certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	write(t, keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}))
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, certFile, keyFile
}

func (ca *testCA) file(t *testing.T) string {
	p := filepath.Join(ca.dir, "ca.pem")
	write(t, p, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.cert.Raw}))
	return p
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func freeTCPAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestAuthRefused runs the broker binary with a unix socket and a mutual-TLS TCP listener and one principal
// known by a uid that is not this process's and by the client certificate name "ci". A caller on the unix
// socket (unknown uid), a TLS caller without a client certificate, one whose certificate names no principal
// and a plaintext TCP caller are refused before any RPC; the principal's certificate is admitted.
func TestAuthRefused(t *testing.T) {
	ca := newTestCA(t)
	_, serverCert, serverKey := ca.issue(t, "localhost", x509.ExtKeyUsageServerAuth)
	client, _, _ := ca.issue(t, "ci", x509.ExtKeyUsageClientAuth)
	stranger, _, _ := ca.issue(t, "nobody", x509.ExtKeyUsageClientAuth)
	addr := freeTCPAddr(t)
	unknownUID := os.Getuid() + 12345
	setup := setupBroker(t, nil, func(cfg map[string]any) {
		cfg["listen"] = append(cfg["listen"].([]string), "tcp://"+addr)
		cfg["tls"] = map[string]any{"cert": serverCert, "key": serverKey, "client_ca": ca.file(t)}
		cfg["principals"] = []map[string]any{{"name": "ci", "uids": []int{unknownUID}, "cert_names": []string{"ci"}, "guests": []string{"*"}}}
		cfg["guests"] = []map[string]any{}
	})
	p := setup.launch(t)
	roots := x509.NewCertPool()
	roots.AddCert(ca.cert)
	tlsWith := func(certs ...tls.Certificate) grpc.DialOption {
		return grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: roots, ServerName: "localhost", Certificates: certs}))
	}
	admitted := p.dial(t, "passthrough:///"+addr, tlsWith(client))
	p.waitServing(t, admitted, 20*time.Second)

	tests := []struct {
		name   string
		conn   *grpc.ClientConn
		want   codes.Code
		logged string // what the broker's refusal log line says
	}{
		{"principal's client certificate", admitted, codes.OK, ""},
		{"unix socket, unknown uid", p.dial(t, "unix://"+setup.Socket, grpc.WithTransportCredentials(insecure.NewCredentials())), codes.Unavailable, `"uid":` + strconv.Itoa(os.Getuid())},
		{"tcp, no client certificate", p.dial(t, "passthrough:///"+addr, tlsWith()), codes.Unavailable, "certificate"},
		{"tcp, certificate of no principal", p.dial(t, "passthrough:///"+addr, tlsWith(stranger)), codes.Unavailable, `"cn":"nobody"`},
		{"tcp, plaintext", p.dial(t, "passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials())), codes.Unavailable, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err := brokerv1.NewGuestServiceClient(tc.conn).ListGuests(ctx, &brokerv1.ListGuestsRequest{})
			if got := status.Code(err); got != tc.want {
				t.Errorf("ListGuests: %v (%v), want %v", got, err, tc.want)
			}
			// The broker logs the refusal after the client's TLS 1.3 handshake has already ended.
			for deadline := time.Now().Add(3 * time.Second); tc.logged != "" && !strings.Contains(p.Log.String(), tc.logged); {
				if time.Now().After(deadline) {
					t.Errorf("broker log has no refusal with %s", tc.logged)
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}
