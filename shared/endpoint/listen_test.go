package endpoint

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mdlayher/vsock"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"glovebox.dev/shared/errdefs"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeConn is a connection whose peer is a vsock address; vsock itself is never opened in tests (this
// machine is a VM: a real vsock socket would reach its host).
type fakeConn struct {
	net.Conn
	remote net.Addr
	closed bool
}

func (c *fakeConn) RemoteAddr() net.Addr { return c.remote }
func (c *fakeConn) Close() error         { c.closed = true; return nil }

// fakeListener hands out queued connections, then io.EOF-like errors.
type fakeListener struct {
	net.Listener
	conns []*fakeConn
}

var errDone = errors.New("no more connections")

func (l *fakeListener) Accept() (net.Conn, error) {
	if len(l.conns) == 0 {
		return nil, errDone
	}
	c := l.conns[0]
	l.conns = l.conns[1:]
	return c, nil
}

func TestCIDFilter(t *testing.T) {
	peers := []net.Addr{
		&vsock.Addr{ContextID: 3, Port: 1},
		&vsock.Addr{ContextID: 2, Port: 2},
		&net.TCPAddr{}, // not vsock: refused
		&vsock.Addr{ContextID: 7, Port: 3},
	}
	var conns []*fakeConn
	for _, p := range peers {
		conns = append(conns, &fakeConn{remote: p})
	}
	tests := []struct {
		name  string
		allow []uint32
		want  []bool // accepted, per conn
		logs  []string
	}{
		{"default host only", nil, []bool{false, true, false, false}, []string{"refused vsock peer cid=3", "refused vsock peer cid=unknown", "refused vsock peer cid=7"}},
		{"allow 3 and 7", []uint32{3, 7}, []bool{true, false, false, true}, []string{"refused vsock peer cid=2", "refused vsock peer cid=unknown"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cs []*fakeConn
			for _, c := range conns {
				cs = append(cs, &fakeConn{remote: c.remote})
			}
			var buf bytes.Buffer
			log := slog.New(slog.NewTextHandler(&buf, nil))
			allow := tt.allow
			if len(allow) == 0 {
				allow = []uint32{HostCID}
			}
			l := newCIDFilter(&fakeListener{conns: cs}, allow, log)
			var accepted []net.Conn
			for {
				c, err := l.Accept()
				if err != nil {
					if !errors.Is(err, errDone) {
						t.Fatalf("Accept: %v", err)
					}
					break
				}
				accepted = append(accepted, c)
			}
			for i, c := range cs {
				got := !c.closed
				if got != tt.want[i] {
					t.Errorf("conn %d from %v: accepted %v, want %v", i, c.remote, got, tt.want[i])
				}
			}
			if n := countTrue(tt.want); len(accepted) != n {
				t.Errorf("accepted %d connections, want %d", len(accepted), n)
			}
			for _, line := range tt.logs {
				if !strings.Contains(buf.String(), line) {
					t.Errorf("log lacks %q:\n%s", line, buf.String())
				}
			}
		})
	}
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// healthRoundTrip serves grpc.health.v1 on l and checks it through GRPCTarget(e).
func healthRoundTrip(t *testing.T, l net.Listener, e Endpoint) {
	t.Helper()
	srv := grpc.NewServer()
	healthpb.RegisterHealthServer(srv, health.NewServer())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	defer func() {
		srv.Stop()
		<-done
	}()
	target, opts := GRPCTarget(e)
	cc, err := grpc.NewClient(target, append(opts, grpc.WithTransportCredentials(insecure.NewCredentials()))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	resp, err := healthpb.NewHealthClient(cc).Check(t.Context(), &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatalf("health check over %s: %v", e, err)
	}
	if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("health over %s: %v", e, resp.GetStatus())
	}
}

func TestUnix(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "agent.sock")
	e, err := Parse("unix://" + p)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()

	// A stale socket (its listener gone) is replaced.
	stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: p, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	stale.SetUnlinkOnClose(false)
	stale.Close()
	if fi, err := os.Lstat(p); err != nil || fi.Mode().Type() != fs.ModeSocket {
		t.Fatalf("stale socket not left behind: %v", err)
	}

	l, err := Listen(ctx, e, ListenOptions{})
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != fs.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, want a socket with 0600", fi.Mode())
	}
	if got := l.Addr().String(); got != p {
		t.Errorf("Addr %q, want %q", got, p)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the socket", len(entries))
	}

	// A live socket is not taken over.
	if l2, err := Listen(ctx, e, ListenOptions{}); err == nil || !strings.Contains(err.Error(), "another process listens on it") {
		if l2 != nil {
			l2.Close()
		}
		t.Errorf("Listen over a live socket: %v", err)
	}

	healthRoundTrip(t, l, e) // closes l through srv.Stop
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("socket file left after Close: %v", err)
	}

	// Another mode.
	l, err = Listen(ctx, e, ListenOptions{UnixMode: 0o660})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o660 {
		t.Errorf("socket mode %v (%v), want 0660", fi.Mode(), err)
	}
	l.Close()

	// A regular file is never clobbered.
	if err := os.WriteFile(p, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if l, err := Listen(ctx, e, ListenOptions{}); err == nil || !strings.Contains(err.Error(), "not a socket") {
		if l != nil {
			l.Close()
		}
		t.Errorf("Listen over a regular file: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "keep me" {
		t.Errorf("regular file changed: %q", b)
	}
}

func TestTCP(t *testing.T) {
	ctx := t.Context()
	for _, uri := range []string{"tcp://127.0.0.1:0", "tcp://localhost:0"} {
		e, err := Parse(uri)
		if err != nil {
			t.Fatal(err)
		}
		l, err := Listen(ctx, e, ListenOptions{})
		if err != nil {
			t.Fatalf("Listen(%s): %v", uri, err)
		}
		e.Port = uint32(l.Addr().(*net.TCPAddr).Port)
		healthRoundTrip(t, l, e)
	}
	for _, uri := range []string{"tcp://0.0.0.0:0", "tcp://[::]:0", "tcp://192.0.2.1:0"} {
		e, err := Parse(uri)
		if err != nil {
			t.Fatal(err)
		}
		l, err := Listen(ctx, e, ListenOptions{})
		if err == nil {
			l.Close()
			t.Errorf("Listen(%s) without AllowNonLoopback succeeded", uri)
			continue
		}
		if !errors.Is(err, errdefs.ErrPermissionDenied) || !strings.Contains(err.Error(), "not a loopback address") {
			t.Errorf("Listen(%s) = %v, want a permission denied naming the address", uri, err)
		}
	}
	// With the flag, the check is passed and the kernel decides: 192.0.2.1 (TEST-NET-1) is no address of
	// this machine, so the bind itself fails, which shows the loopback check did not refuse it.
	e, _ := Parse("tcp://192.0.2.1:0")
	if l, err := Listen(ctx, e, ListenOptions{AllowNonLoopback: true}); err == nil {
		l.Close()
	} else if errors.Is(err, errdefs.ErrPermissionDenied) {
		t.Errorf("Listen with AllowNonLoopback still refused: %v", err)
	}
}

func TestUnsupported(t *testing.T) {
	// Each VM transport has one side only: the guest listens on serial://, the host dials serial+unix://
	// and hvsock://.
	for _, uri := range []string{"hvsock:///run/v.sock:1024", "serial+unix:///run/qemu/agent.sock"} {
		e, err := Parse(uri)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Listen(t.Context(), e, ListenOptions{}); !errors.Is(err, errdefs.ErrUnsupportedAction) {
			t.Errorf("Listen(%s) = %v, want unsupported", uri, err)
		}
	}
	e, _ := Parse("serial:///dev/virtio-ports/glovebox")
	if _, err := Dial(t.Context(), e); !errors.Is(err, errdefs.ErrUnsupportedAction) {
		t.Errorf("Dial(%s) = %v, want unsupported", e, err)
	}
	if _, err := Listen(t.Context(), e, ListenOptions{}); err == nil || !strings.Contains(err.Error(), "no virtio-serial port named") {
		t.Errorf("Listen(%s) without the port = %v", e, err)
	}
	// Dialing vsock without a CID is refused before any socket is opened.
	e, _ = Parse("vsock://:1024")
	if _, err := Dial(context.Background(), e); err == nil || !strings.Contains(err.Error(), "name the peer CID") {
		t.Errorf("Dial(%s) = %v", e, err)
	}
}
