package python_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/agenttest"
)

// runningBroker is a glovebox-broker process serving one guest (the agent) on a unix socket.
type runningBroker struct {
	URI      string
	Guest    string
	AuditDir string
	Log      *agenttest.SyncBuffer
}

// startBroker builds glovebox-broker, starts it with a config that lets this uid use guest "py" (the agent)
// and waits until the broker serves and the guest is ready.
func startBroker(t *testing.T, a *agenttest.Agent) *runningBroker {
	t.Helper()
	root := agenttest.RepoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "host", "cmd", "glovebox-broker", "main.go")); err != nil {
		testenv.Missing(t, "glovebox-broker has no main.go yet (host/cmd/glovebox-broker)")
		return nil
	}
	dir, err := os.MkdirTemp("", "gbpy") // short: unix socket paths are limited to 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "glovebox-broker")
	build := exec.Command("go", "build", "-o", bin, "./host/cmd/glovebox-broker")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build glovebox-broker: %v\n%s", err, out)
	}
	b := &runningBroker{URI: "unix://" + filepath.Join(dir, "broker.sock"), Guest: "py", AuditDir: filepath.Join(dir, "audit"), Log: &agenttest.SyncBuffer{}}
	cfg := map[string]any{
		"listen": []string{b.URI},
		"audit":  map[string]any{"dir": b.AuditDir},
		"principals": []map[string]any{{
			"name": "tester", "uids": []int{os.Getuid()}, "guests": []string{"*"}, "audit": true, "control": true,
		}},
		"guests": []map[string]any{{"name": b.Guest, "endpoint": "unix://" + a.Socket}},
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
