// Package broker_test runs the real glovebox-broker binary against the real glovebox-agent on Xvfb.
package broker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/endpoint"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// brokerBinary builds glovebox-broker once per test process.
func brokerBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "glovebox-broker-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "glovebox-broker")
		cmd := exec.Command("go", "build", "-o", binPath, "./host/cmd/glovebox-broker")
		cmd.Dir = agenttest.RepoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build glovebox-broker: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// brokerSetup is a broker's config file and directories; start runs a broker on them, as often as a test
// likes (the audit log and key persist between runs).
type brokerSetup struct {
	Dir      string
	Socket   string
	AuditDir string
	KeyFile  string
	cfgPath  string
	guests   []string
}

// setupBroker writes a config with one principal (this process's uid, allowed everything, no rate limit)
// and the guests given as name -> endpoint URI; edit, when not nil, changes the config before it is written.
func setupBroker(t testing.TB, guests map[string]string, edit func(cfg map[string]any)) *brokerSetup {
	t.Helper()
	dir, err := os.MkdirTemp("", "gbb") // short: unix socket paths are limited to 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &brokerSetup{Dir: dir, Socket: filepath.Join(dir, "broker.sock"), AuditDir: filepath.Join(dir, "audit"), cfgPath: filepath.Join(dir, "broker.json")}
	s.KeyFile = filepath.Join(s.AuditDir, "audit.key")
	var gs []map[string]any
	for name, ep := range guests {
		gs = append(gs, map[string]any{"name": name, "endpoint": ep})
		s.guests = append(s.guests, name)
	}
	cfg := map[string]any{
		"listen": []string{"unix://" + s.Socket},
		"audit":  map[string]any{"dir": s.AuditDir, "key_file": s.KeyFile},
		"principals": []map[string]any{{
			"name": "me", "uids": []int{os.Getuid()}, "guests": []string{"*"}, "control": true, "admin": true, "audit": true,
			"rate_per_second": -1,
		}},
		"guests":             gs,
		"guest_call_timeout": "5s",
	}
	if edit != nil {
		edit(cfg)
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.cfgPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

// brokerProc is a running glovebox-broker.
type brokerProc struct {
	*brokerSetup
	// Conn is a connection to the unix socket (nil after launch, set by start).
	Conn *grpc.ClientConn
	Log  *agenttest.SyncBuffer
	cmd  *exec.Cmd
	done chan struct{}
}

// startBroker sets up and starts a broker serving guests (name -> endpoint URI).
func startBroker(t testing.TB, guests map[string]string) *brokerProc {
	t.Helper()
	return setupBroker(t, guests, nil).start(t)
}

// launch starts the broker process without waiting for it; it is stopped when the test ends, and its log
// printed if the test failed.
func (s *brokerSetup) launch(t testing.TB) *brokerProc {
	t.Helper()
	p := &brokerProc{brokerSetup: s, Log: &agenttest.SyncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(brokerBinary(t), "-config", s.cfgPath, "-log-level", "debug")
	p.cmd.Stderr = p.Log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() {
			t.Logf("broker log:\n%s", p.Log.String())
		}
	})
	return p
}

// start launches the broker, connects to its unix socket and waits until it serves and every guest is
// ready.
func (s *brokerSetup) start(t testing.TB) *brokerProc {
	t.Helper()
	p := s.launch(t)
	p.Conn = p.dial(t, "unix://"+s.Socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	p.waitServing(t, p.Conn, 20*time.Second)
	for _, name := range s.guests {
		p.waitGuest(t, name, brokerv1.GuestState_GUEST_STATE_READY, 20*time.Second)
	}
	return p
}

// dial connects to the broker; the connection is closed when the test ends.
func (p *brokerProc) dial(t testing.TB, target string, opts ...grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	// The socket appears a few milliseconds after the process starts: retry quickly, not after grpc-go's
	// default 1 s backoff.
	bc := backoff.DefaultConfig
	bc.BaseDelay, bc.MaxDelay = 5*time.Millisecond, 100*time.Millisecond
	opts = append(opts, grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(agenttest.MaxMessageBytes)),
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: bc, MinConnectTimeout: time.Second}))
	opts = append(opts, endpoint.WindowOptions()...)
	conn, err := grpc.NewClient(target, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// waitServing waits until the broker answers health checks on conn.
func (p *brokerProc) waitServing(t testing.TB, conn *grpc.ClientConn, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
		cancel()
		if err == nil && resp.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			return
		}
		select {
		case <-p.done:
			t.Fatalf("broker exited: %v\n%s", p.cmd.ProcessState, p.Log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("broker not serving: %v\n%s", err, p.Log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitGuest waits for a guest to reach state.
func (p *brokerProc) waitGuest(t testing.TB, name string, state brokerv1.GuestState, timeout time.Duration) *brokerv1.Guest {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		g, err := brokerv1.NewGuestServiceClient(p.Conn).GetGuest(context.Background(), &brokerv1.GetGuestRequest{Name: name})
		if err == nil && g.GetGuest().GetState() == state {
			return g.GetGuest()
		}
		if time.Now().After(deadline) {
			t.Fatalf("guest %s not %v: %v %v", name, state, g, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Stop sends SIGTERM and waits (SIGKILL after 10 s).
func (p *brokerProc) Stop() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// Kill sends SIGKILL (kill -9) and waits for the process to be gone.
func (p *brokerProc) Kill() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Kill()
	<-p.done
}

func (p *brokerProc) session(t testing.TB, guest string) string {
	t.Helper()
	s, err := brokerv1.NewSessionServiceClient(p.Conn).CreateSession(context.Background(), &brokerv1.CreateSessionRequest{Guest: guest})
	if err != nil {
		t.Fatal(err)
	}
	return s.GetSession().GetId()
}

// glovebox runs the glovebox CLI and returns its exit code and output.
func glovebox(t testing.TB, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(brokertest.Binary(t, "glovebox"), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut agenttest.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errOut.String()
	} else if err != nil {
		t.Fatalf("glovebox %v: %v", args, err)
	}
	return 0, out.String(), errOut.String()
}
