// Package brokertest runs the real glovebox-broker binary for end-to-end tests: it builds it once per test
// process, starts it with a config that lets the test's uid use one guest (a running agenttest.Agent) on a
// unix socket, and waits until it serves and the guest is ready.
package brokertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/agenttest"
)

var (
	buildMu sync.Mutex
	built   = map[string]string{} // command name -> binary path, built once per test process
)

// Binary builds host/cmd/NAME (glovebox-broker or glovebox) once per test process and returns its path.
func Binary(t testing.TB, name string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := built[name]; ok {
		return p
	}
	dir, err := os.MkdirTemp("", name+"-bin-")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", p, "./host/cmd/"+name)
	cmd.Dir = agenttest.RepoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", name, err, out)
	}
	built[name] = p
	return p
}

// Broker is a glovebox-broker process serving one guest (the agent) on a unix socket.
type Broker struct {
	// URI is the broker's unix endpoint ("unix:///tmp/.../broker.sock"); Guest the agent's guest name.
	URI   string
	Guest string
	// AuditDir is the audit log directory; KeyFile its HMAC key.
	AuditDir string
	KeyFile  string
	// Log holds the broker's stderr.
	Log *agenttest.SyncBuffer
	// Pid is the broker process's id.
	Pid int
}

// Start builds glovebox-broker, starts it with a config that lets this uid (principal "tester": every
// guest, control and audit) use the agent as guest "g1", and waits until the broker serves and the guest is
// ready. The broker is killed when the test ends.
func Start(t testing.TB, a *agenttest.Agent) *Broker {
	t.Helper()
	return StartConfig(t, a, nil)
}

// StartConfig is Start with edit, when not nil, changing the config (a JSON object) before it is written:
// a policy, a rate limit.
func StartConfig(t testing.TB, a *agenttest.Agent, edit func(cfg map[string]any)) *Broker {
	t.Helper()
	root := agenttest.RepoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "host", "cmd", "glovebox-broker", "main.go")); err != nil {
		testenv.Missing(t, "glovebox-broker has no main.go yet (host/cmd/glovebox-broker)")
		return nil
	}
	dir, err := os.MkdirTemp("", "gbb") // short: unix socket paths are limited to 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := Binary(t, "glovebox-broker")
	b := &Broker{URI: "unix://" + filepath.Join(dir, "broker.sock"), Guest: "g1", AuditDir: filepath.Join(dir, "audit"), Log: &agenttest.SyncBuffer{}}
	b.KeyFile = filepath.Join(b.AuditDir, "audit.key")
	cfg := map[string]any{
		"listen": []string{b.URI},
		"audit":  map[string]any{"dir": b.AuditDir, "key_file": b.KeyFile},
		"principals": []map[string]any{{
			"name": "tester", "uids": []int{os.Getuid()}, "guests": []string{"*"}, "audit": true, "control": true,
		}},
		"guests": []map[string]any{{"name": b.Guest, "endpoint": "unix://" + a.Socket}},
	}
	if edit != nil {
		edit(cfg)
	}
	cfgJSON, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfgFile := filepath.Join(dir, "broker.json")
	if err := os.WriteFile(cfgFile, cfgJSON, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-config", cfgFile)
	cmd.Stderr = b.Log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b.Pid = cmd.Process.Pid
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("broker log:\n%s", b.Log.String())
		}
	})

	conn, err := grpc.NewClient(b.URI, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	health := healthpb.NewHealthClient(conn)
	guests := brokerv1.NewGuestServiceClient(conn)
	deadline := time.Now().Add(30 * time.Second)
	var last error
	for {
		select {
		case <-exited:
			t.Fatalf("broker exited: %v\n%s", cmd.ProcessState, b.Log.String())
		default:
		}
		last = ready(health, guests, b.Guest)
		if last == nil {
			return b
		}
		if time.Now().After(deadline) {
			t.Fatalf("broker not ready within 30s: %v\n%s", last, b.Log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ready says why the broker is not serving the guest yet, or nil.
func ready(health healthpb.HealthClient, guests brokerv1.GuestServiceClient, guest string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	h, err := health.Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		return err
	}
	if h.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		return fmt.Errorf("health %v", h.GetStatus())
	}
	g, err := guests.GetGuest(ctx, &brokerv1.GetGuestRequest{Name: guest})
	if err != nil {
		return err
	}
	if g.GetGuest().GetState() != brokerv1.GuestState_GUEST_STATE_READY {
		return fmt.Errorf("guest %s %v: %s", guest, g.GetGuest().GetState(), g.GetGuest().GetLastError())
	}
	return nil
}
