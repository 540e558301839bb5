package testpki

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"os"
	"testing"
)

// TestIssued checks the certificates with the standard library's own verifier and reads the files back.
func TestIssued(t *testing.T) {
	ca := New(t)
	other := New(t)
	tests := []struct {
		name  string
		leaf  Leaf
		host  string
		usage x509.ExtKeyUsage
	}{
		{"server by DNS name", ca.Server(t, "localhost"), "localhost", x509.ExtKeyUsageServerAuth},
		{"server by IP address", ca.Server(t, "127.0.0.1"), "127.0.0.1", x509.ExtKeyUsageServerAuth},
		{"client", ca.Client(t, "ci"), "ci", x509.ExtKeyUsageClientAuth},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cert, err := x509.ParseCertificate(tc.leaf.TLS.Certificate[0])
			if err != nil {
				t.Fatal(err)
			}
			if cert.Subject.CommonName != tc.host {
				t.Errorf("common name %q, want %q", cert.Subject.CommonName, tc.host)
			}
			opts := x509.VerifyOptions{Roots: ca.Pool(), DNSName: tc.host, KeyUsages: []x509.ExtKeyUsage{tc.usage}}
			if _, err := cert.Verify(opts); err != nil {
				t.Errorf("verify with its CA: %v", err)
			}
			opts.Roots = other.Pool()
			if _, err := cert.Verify(opts); err == nil {
				t.Error("verified with another CA")
			}
			pair, err := tls.LoadX509KeyPair(tc.leaf.CertFile, tc.leaf.KeyFile)
			if err != nil {
				t.Fatalf("load the files: %v", err)
			}
			if !bytes.Equal(pair.Certificate[0], tc.leaf.TLS.Certificate[0]) {
				t.Error("CertFile holds another certificate")
			}
		})
	}
	caPEM, err := os.ReadFile(ca.File)
	if err != nil {
		t.Fatal(err)
	}
	if pool := x509.NewCertPool(); !pool.AppendCertsFromPEM(caPEM) || !pool.Equal(ca.Pool()) {
		t.Error("File does not hold the CA certificate")
	}
}
