package broker_test

import (
	"context"
	"crypto/tls"
	"os"
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
// socket (unknown uid), a TLS caller without a client certificate, one whose certificate names no principal
// and a plaintext TCP caller are refused before any RPC; the principal's certificate is admitted.
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
		{"unix socket, unknown uid", p.dial(t, "unix://"+setup.Socket, grpc.WithTransportCredentials(insecure.NewCredentials())), codes.Unavailable, `"uid":` + strconv.Itoa(os.Getuid())},
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
