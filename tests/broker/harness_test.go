// Package broker_test runs the real glovebox-broker binary against the real glovebox-agent on Xvfb.
package broker_test

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
	"glovebox.dev/tests/internal/agenttest"
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

// brokerProc is a running glovebox-broker.
type brokerProc struct {
	Socket   string
	AuditDir string
	Conn     *grpc.ClientConn
	Log      *agenttest.SyncBuffer
	cmd      *exec.Cmd
	done     chan struct{}
}

// startBroker runs the broker with one principal (this process's uid, allowed everything) and the guests
// given as name -> endpoint URI.
func startBroker(t testing.TB, guests map[string]string) *brokerProc {
	t.Helper()
	dir, err := os.MkdirTemp("", "gbb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	p := &brokerProc{Socket: filepath.Join(dir, "broker.sock"), AuditDir: filepath.Join(dir, "audit"), Log: &agenttest.SyncBuffer{}, done: make(chan struct{})}
	var gs []map[string]any
	for name, ep := range guests {
		gs = append(gs, map[string]any{"name": name, "endpoint": ep})
	}
	cfg := map[string]any{
		"listen": []string{"unix://" + p.Socket},
		"audit":  map[string]any{"dir": p.AuditDir},
		"principals": []map[string]any{{
			"name": "me", "uids": []int{os.Getuid()}, "guests": []string{"*"}, "control": true, "admin": true, "audit": true,
			"rate_per_second": -1,
		}},
		"guests":             gs,
		"guest_call_timeout": "5s",
	}
	b, _ := json.Marshal(cfg)
	cfgPath := filepath.Join(dir, "broker.json")
	if err := os.WriteFile(cfgPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(brokerBinary(t), "-config", cfgPath, "-log-level", "debug")
	p.cmd.Stderr = p.Log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.Stop(); t.Logf("broker log:\n%s", p.Log.String()) })
	p.Conn, err = grpc.NewClient("unix://"+p.Socket, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(agenttest.MaxMessageBytes)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Conn.Close() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		resp, err := healthpb.NewHealthClient(p.Conn).Check(ctx, &healthpb.HealthCheckRequest{})
		cancel()
		if err == nil && resp.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("broker not serving: %v\n%s", err, p.Log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	for name := range guests {
		p.waitGuest(t, name, brokerv1.GuestState_GUEST_STATE_READY, 20*time.Second)
	}
	return p
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
		time.Sleep(20 * time.Millisecond)
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

func (p *brokerProc) session(t testing.TB, guest string) string {
	t.Helper()
	s, err := brokerv1.NewSessionServiceClient(p.Conn).CreateSession(context.Background(), &brokerv1.CreateSessionRequest{Guest: guest})
	if err != nil {
		t.Fatal(err)
	}
	return s.GetSession().GetId()
}
