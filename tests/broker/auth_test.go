package broker_test

import (
	"context"
	"crypto/tls"
	"os"
	"os/exec"
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
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/testpki"
)

// TestAuthRefused runs the broker binary with a unix socket and a mutual-TLS TCP listener and one principal
// known by a uid that is not this process's and by the client certificate name "ci". A caller on the unix
// socket (unknown uid) gets PERMISSION_DENIED on every RPC; a TLS caller without a client certificate, one
// whose certificate names no principal and a plaintext TCP caller are refused in the handshake; the
// principal's certificate is admitted.
func TestAuthRefused(t *testing.T) {
	ca := testpki.New(t)
	server, client, stranger := ca.Server(t, "localhost"), ca.Client(t, "ci"), ca.Client(t, "nobody")
	addr := testenv.FreeAddr(t)
	unknownUID := os.Getuid() + 12345
	setup := setupBroker(t, nil, func(cfg map[string]any) {
		cfg["listen"] = append(cfg["listen"].([]string), "tcp://"+addr)
		cfg["tls"] = map[string]any{"cert": server.CertFile, "key": server.KeyFile, "client_ca": ca.File}
		cfg["principals"] = []map[string]any{{"name": "ci", "uids": []int{unknownUID}, "cert_names": []string{"ci"}, "guests": []string{"*"}}}
		cfg["guests"] = []map[string]any{}
	})
	p := setup.launch(t)
	tlsWith := func(certs ...tls.Certificate) grpc.DialOption {
		return grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: ca.Pool(), ServerName: "localhost", Certificates: certs}))
	}
	admitted := p.dial(t, "passthrough:///"+addr, tlsWith(client.TLS))
	p.waitServing(t, admitted, 20*time.Second)

	tests := []struct {
		name   string
		conn   *grpc.ClientConn
		want   codes.Code
		logged string // what the broker's refusal log line says
	}{
		{"principal's client certificate", admitted, codes.OK, ""},
		{"unix socket, unknown uid", p.dial(t, "unix://"+setup.Socket, grpc.WithTransportCredentials(insecure.NewCredentials())), codes.PermissionDenied, `"uid":` + strconv.Itoa(os.Getuid())},
		{"tcp, no client certificate", p.dial(t, "passthrough:///"+addr, tlsWith()), codes.Unavailable, "certificate"},
		{"tcp, certificate of no principal", p.dial(t, "passthrough:///"+addr, tlsWith(stranger.TLS)), codes.Unavailable, `"cn":"nobody"`},
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

// TestUnknownUIDPermissionDenied runs grpcurl as uid 65534 (setpriv) against the broker's unix socket, whose
// only principal is this process's uid: reflection, health and ListGuests all answer PERMISSION_DENIED naming
// the uid, never UNAVAILABLE (before, the handshake was dropped and the client saw UNAVAILABLE, which
// clients retry forever), and the broker logs the uid.
func TestUnknownUIDPermissionDenied(t *testing.T) {
	testenv.NeedCommands(t, "setpriv", "grpcurl")
	if os.Getuid() != 0 {
		testenv.Missing(t, "running a client as another uid needs root")
	}
	grpcurl, err := exec.LookPath("grpcurl")
	if err != nil {
		t.Fatal(err)
	}
	setup := setupBroker(t, nil, func(cfg map[string]any) { cfg["guests"] = []map[string]any{} })
	p := setup.start(t)
	// Let uid 65534 reach the socket (the broker makes it 0600 for its own uid, as it should).
	if err := os.Chmod(setup.Dir, 0o711); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(setup.Socket, 0o666); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"list"},
		{"grpc.health.v1.Health/Check"},
		{"-d", "{}", "glovebox.broker.v1.GuestService/ListGuests"},
	} {
		argv := []string{"--reuid=65534", "--regid=65534", "--clear-groups", grpcurl, "-plaintext", "-unix"}
		argv = append(append(append(argv, args[:len(args)-1]...), setup.Socket), args[len(args)-1])
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		out, err := exec.CommandContext(ctx, "setpriv", argv...).CombinedOutput()
		cancel()
		if err == nil || !strings.Contains(string(out), "PermissionDenied") || !strings.Contains(string(out), "uid 65534") || strings.Contains(string(out), "Unavailable") {
			t.Errorf("grpcurl %v as uid 65534: err=%v, want PermissionDenied naming uid 65534:\n%s", args, err, out)
		}
	}
	if !strings.Contains(p.Log.String(), `"uid":65534`) {
		t.Errorf("broker log has no refusal naming uid 65534:\n%s", p.Log.String())
	}
}
