package cli

import (
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
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// testPKI is a CA with a server certificate for 127.0.0.1 and a client certificate, written as PEM files.
type testPKI struct {
	caFile, certFile, keyFile string
	server                    tls.Certificate
	pool                      *x509.CertPool
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	dir := t.TempDir()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test ca"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	issue := func(serial int64, cn string, usage x509.ExtKeyUsage, ips []net.IP) ([]byte, *ecdsa.PrivateKey) {
		k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn}, NotBefore: time.Now().Add(-time.Hour),
			NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: ips, KeyUsage: x509.KeyUsageDigitalSignature}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		return der, k
	}
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	srvDER, srvKey := issue(2, "broker", x509.ExtKeyUsageServerAuth, []net.IP{net.IPv4(127, 0, 0, 1)})
	cliDER, cliKey := issue(3, "alice", x509.ExtKeyUsageClientAuth, nil)
	cliKeyDER, _ := x509.MarshalECPrivateKey(cliKey)
	p := &testPKI{caFile: write("ca.pem", "CERTIFICATE", caDER), certFile: write("client.pem", "CERTIFICATE", cliDER),
		keyFile: write("client.key", "EC PRIVATE KEY", cliKeyDER), pool: x509.NewCertPool()}
	p.pool.AddCert(ca)
	p.server = tls.Certificate{Certificate: [][]byte{srvDER}, PrivateKey: srvKey}
	return p
}

// TestMutualTLS checks that a tcp:// broker is reached with the client certificate, and that the CLI
// refuses a server its CA does not vouch for.
func TestMutualTLS(t *testing.T) {
	pki := newTestPKI(t)
	f := startFakeBroker(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var peerCN string
	tc := &tls.Config{Certificates: []tls.Certificate{pki.server}, ClientCAs: pki.pool, ClientAuth: tls.RequireAndVerifyClientCert,
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) > 0 {
				peerCN = cs.PeerCertificates[0].Subject.CommonName
			}
			return nil
		}}
	s := grpc.NewServer(grpc.Creds(credentials.NewTLS(tc)))
	brokerv1.RegisterGuestServiceServer(s, f)
	go s.Serve(l)
	defer s.Stop()
	uri := "tcp://" + l.Addr().String()

	code, stdout, stderr := f.run(t, "", nil, "guests", "-broker", uri, "-cert", pki.certFile, "-key", pki.keyFile, "-ca", pki.caFile)
	if code != ExitOK || !strings.Contains(stdout, "g1") {
		t.Fatalf("guests over mTLS: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if peerCN != "alice" {
		t.Errorf("server saw client certificate %q, want alice", peerCN)
	}

	// The same files from the environment; a CA that did not sign the server is refused.
	env := map[string]string{"GLOVEBOX_BROKER": uri, "GLOVEBOX_CERT": pki.certFile, "GLOVEBOX_KEY": pki.keyFile, "GLOVEBOX_CA": pki.caFile}
	if code, _, stderr := f.run(t, "", env, "guests"); code != ExitOK {
		t.Errorf("guests with env: exit %d: %s", code, stderr)
	}
	other := newTestPKI(t)
	code, _, stderr = f.run(t, "", nil, "guests", "-timeout", "3s", "-broker", uri, "-cert", pki.certFile, "-key", pki.keyFile, "-ca", other.caFile)
	if code != ExitFailure || !strings.HasPrefix(stderr, "UNAVAILABLE: ") {
		t.Errorf("untrusted server: exit %d, stderr %q", code, stderr)
	}
}
