package cli

import (
	"crypto/tls"
	"net"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv/testpki"
)

// TestMutualTLS checks that a tcp:// broker is reached with the client certificate, and that the CLI
// refuses a server its CA does not vouch for.
func TestMutualTLS(t *testing.T) {
	ca := testpki.New(t)
	server, client := ca.Server(t, "127.0.0.1"), ca.Client(t, "alice")
	f := startFakeBroker(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var peerCN string
	tc := &tls.Config{Certificates: []tls.Certificate{server.TLS}, ClientCAs: ca.Pool(), ClientAuth: tls.RequireAndVerifyClientCert,
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

	code, stdout, stderr := f.run(t, "", nil, "guests", "-broker", uri, "-cert", client.CertFile, "-key", client.KeyFile, "-ca", ca.File)
	if code != ExitOK || !strings.Contains(stdout, "g1") {
		t.Fatalf("guests over mTLS: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if peerCN != "alice" {
		t.Errorf("server saw client certificate %q, want alice", peerCN)
	}

	// The same files from the environment; a CA that did not sign the server is refused.
	env := map[string]string{"GLOVEBOX_BROKER": uri, "GLOVEBOX_CERT": client.CertFile, "GLOVEBOX_KEY": client.KeyFile, "GLOVEBOX_CA": ca.File}
	if code, _, stderr := f.run(t, "", env, "guests"); code != ExitOK {
		t.Errorf("guests with env: exit %d: %s", code, stderr)
	}
	other := testpki.New(t)
	code, _, stderr = f.run(t, "", nil, "guests", "-timeout", "3s", "-broker", uri, "-cert", client.CertFile, "-key", client.KeyFile, "-ca", other.File)
	if code != ExitFailure || !strings.HasPrefix(stderr, "UNAVAILABLE: ") {
		t.Errorf("untrusted server: exit %d, stderr %q", code, stderr)
	}
}
