// Package agenttest runs the real glovebox-agent binary on a real Xvfb desktop for end-to-end tests: it
// builds the binary once per test process, starts it listening on a unix socket and on loopback TCP, and
// waits until its gRPC health service answers SERVING.
package agenttest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"glovebox.dev/shared/endpoint"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/desktop"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// MaxMessageBytes matches the agent's message limit.
const MaxMessageBytes = 32 << 20

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// RepoRoot returns the repository root (the directory holding go.work), searched upwards from the working
// directory.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.work not found above the working directory")
		}
		dir = parent
	}
}

// Binary builds glovebox-agent once per test process and returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "glovebox-agent-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "glovebox-agent")
		cmd := exec.Command("go", "build", "-o", binPath, "./guest/cmd/glovebox-agent")
		cmd.Dir = RepoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build glovebox-agent: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// Agent is a running glovebox-agent.
type Agent struct {
	Desktop *desktop.Desktop
	// Socket is the unix socket path; TCPAddr the loopback host:port.
	Socket  string
	TCPAddr string
	// Log holds the agent's stderr (JSON log lines).
	Log *SyncBuffer

	cmd  *exec.Cmd
	done chan struct{}
}

// Options configures Start.
type Options struct {
	// Desktop to run on; nil starts a new one.
	Desktop *desktop.Desktop
	// ExtraArgs are appended to the agent's command line.
	ExtraArgs []string
	// Env entries ("KEY=value") are added to the agent's environment, overriding the desktop's (an
	// accessibility session's DBUS_SESSION_BUS_ADDRESS).
	Env []string
	// Binary is the glovebox-agent to run; "" builds this tree's (Binary). A benchmark runs a build of another
	// commit here to compare with, side by side.
	Binary string
}

// Start builds and starts the agent and waits until it serves.
func Start(t testing.TB, opts Options) *Agent {
	t.Helper()
	d := opts.Desktop
	if d == nil {
		d = desktop.Start(t, desktop.Options{})
	}
	bin := opts.Binary
	if bin == "" {
		bin = Binary(t)
	}
	dir, err := os.MkdirTemp("", "gbx") // short: unix socket paths are limited to 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	a := &Agent{Desktop: d, Socket: filepath.Join(dir, "agent.sock"), TCPAddr: testenv.FreeAddr(t), Log: &SyncBuffer{}, done: make(chan struct{})}
	args := append([]string{"-listen", "unix://" + a.Socket, "-listen", "tcp://" + a.TCPAddr, "-log-level", "debug"}, opts.ExtraArgs...)
	a.cmd = d.Command(bin, args...)
	a.cmd.Env = append(a.cmd.Env, opts.Env...)
	a.cmd.Stderr = a.Log
	if err := a.cmd.Start(); err != nil {
		t.Fatalf("start agent: %v", err)
	}
	go func() { a.cmd.Wait(); close(a.done) }()
	t.Cleanup(func() { a.Kill(); t.Logf("agent log:\n%s", a.Log.String()) })
	a.waitServing(t)
	return a
}

// Pid is the agent process's id (to read its CPU or memory from /proc).
func (a *Agent) Pid() int { return a.cmd.Process.Pid }

func (a *Agent) waitServing(t testing.TB) {
	t.Helper()
	conn := a.DialUnix(t)
	defer conn.Close()
	hc := healthpb.NewHealthClient(conn)
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		resp, err := hc.Check(ctx, &healthpb.HealthCheckRequest{})
		cancel()
		if err == nil && resp.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			return
		}
		select {
		case <-a.done:
			t.Fatalf("agent exited before serving: %v\n%s", a.cmd.ProcessState, a.Log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("agent not serving within 20s (last: %v)\n%s", err, a.Log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// DialUnix connects to the agent's unix socket.
func (a *Agent) DialUnix(t testing.TB) *grpc.ClientConn { return dial(t, "unix://"+a.Socket) }

// DialTCP connects to the agent's TCP endpoint.
func (a *Agent) DialTCP(t testing.TB) *grpc.ClientConn { return dial(t, "passthrough:///"+a.TCPAddr) }

// Signal sends sig to the agent and waits up to timeout for it to exit; it reports whether it exited.
func (a *Agent) Signal(sig syscall.Signal, timeout time.Duration) bool {
	_ = a.cmd.Process.Signal(sig)
	select {
	case <-a.done:
		return true
	case <-time.After(timeout):
		return false
	}
}

// Kill stops the agent at once (idempotent).
func (a *Agent) Kill() {
	select {
	case <-a.done:
	default:
		_ = a.cmd.Process.Kill()
		<-a.done
	}
}

// ExitCode is the agent's exit code once it exited, -1 before.
func (a *Agent) ExitCode() int {
	select {
	case <-a.done:
		return a.cmd.ProcessState.ExitCode()
	default:
		return -1
	}
}

func dial(t testing.TB, target string) *grpc.ClientConn {
	t.Helper()
	// Windows as the broker dials its guests (see endpoint.WindowBytes).
	opts := append(endpoint.WindowOptions(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessageBytes), grpc.MaxCallSendMsgSize(MaxMessageBytes)))
	conn, err := grpc.NewClient(target, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// SyncBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
