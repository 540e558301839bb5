// Package testpki is a throwaway certificate authority for tests of mutual TLS: it makes a CA and issues
// server and client certificates, as tls.Certificates for in-process peers and as PEM files for configs and
// command lines. Keys are ECDSA P-256; everything is valid from an hour ago to an hour from now.
package testpki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// CA is a certificate authority made for one test.
type CA struct {
	// Cert is the CA's certificate.
	Cert *x509.Certificate
	// File is Cert as a PEM file (a broker's client_ca, the CLI's -ca).
	File string

	key    *ecdsa.PrivateKey
	dir    string
	serial atomic.Int64 // the last serial number issued; the CA's own is 1
}

// Leaf is a certificate the CA issued, with its key.
type Leaf struct {
	// TLS is the certificate and key for a tls.Config.
	TLS tls.Certificate
	// CertFile and KeyFile are the certificate and its key as PEM files.
	CertFile, KeyFile string
}

// New makes a CA whose files live in a directory of the test.
func New(t testing.TB) *CA {
	t.Helper()
	ca := &CA{key: newKey(t), dir: t.TempDir()}
	ca.serial.Store(1)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "glovebox test ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &ca.key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	if ca.Cert, err = x509.ParseCertificate(der); err != nil {
		t.Fatal(err)
	}
	ca.File = ca.write(t, "ca.pem", "CERTIFICATE", der)
	return ca
}

// Pool is a certificate pool holding only the CA, for RootCAs or ClientCAs.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// Server issues a server certificate for name, a DNS name or an IP address (the subject alternative name a
// client checks), with name as its common name too.
func (ca *CA) Server(t testing.TB, name string) Leaf {
	t.Helper()
	return ca.issue(t, "server", name, x509.ExtKeyUsageServerAuth)
}

// Client issues a client certificate whose common name (and DNS name) is cn, the name a broker principal's
// cert_names lists.
func (ca *CA) Client(t testing.TB, cn string) Leaf {
	t.Helper()
	return ca.issue(t, "client", cn, x509.ExtKeyUsageClientAuth)
}

func (ca *CA) issue(t testing.TB, kind, name string, usage x509.ExtKeyUsage) Leaf {
	t.Helper()
	key := newKey(t)
	serial := ca.serial.Add(1)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{usage},
		KeyUsage: x509.KeyUsageDigitalSignature}
	if ip := net.ParseIP(name); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{name}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	base := fmt.Sprintf("%s-%d", kind, serial)
	return Leaf{
		TLS:      tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key},
		CertFile: ca.write(t, base+".pem", "CERTIFICATE", der),
		KeyFile:  ca.write(t, base+".key", "EC PRIVATE KEY", keyDER),
	}
}

// write writes one PEM block to a file of the CA's directory and returns its path.
func (ca *CA) write(t testing.TB, name, typ string, der []byte) string {
	t.Helper()
	p := filepath.Join(ca.dir, name)
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
