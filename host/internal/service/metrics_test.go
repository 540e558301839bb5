package service

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"glovebox.dev/host/internal/auth"
	"glovebox.dev/host/internal/broker"
	"glovebox.dev/host/internal/config"
	"glovebox.dev/host/internal/metrics"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// TestMetricsGuestLabelOnlyKnownGuests: guest names a caller sends that name no guest it may use (absent,
// oversized, refused) never become a metrics label: each would be a new series of caller-chosen text, so any
// principal could grow the broker's memory without bound. Nor does a name that is not a guest name at all reach
// the RPC log line.
func TestMetricsGuestLabelOnlyKnownGuests(t *testing.T) {
	cfg := &config.Config{
		Principals: []config.Principal{{Name: "p", UIDs: []uint32{uint32(os.Getuid())}, Guests: []string{"*"}}},
		Guests:     []config.Guest{{Name: "g1", Endpoint: "unix://" + filepath.Join(t.TempDir(), "agent.sock")}},
	}
	cfg.ApplyDefaults()
	b, err := broker.New(broker.Options{Config: cfg, Audit: nopAudit{}})
	if err != nil {
		t.Fatal(err)
	}
	m := metrics.New()
	var logged syncBuffer
	log := slog.New(slog.NewJSONHandler(&logged, nil))
	srv := grpc.NewServer(append(ServerOptions(log, m, b), grpc.Creds(auth.NewCredentials(auth.NewDirectory(cfg.Principals), nil, log)))...)
	Register(srv, b, nil, nil)
	dir := t.TempDir()
	l, err := net.Listen("unix", filepath.Join(dir, "b.sock"))
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Stop(); b.Close(context.Background()) })

	cc, err := grpc.NewClient("unix://"+l.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	long := strings.Repeat("x", 100_000)
	names := []string{long, "no-such-guest", "Bad Name!"}
	gs, ss, cs := brokerv1.NewGuestServiceClient(cc), brokerv1.NewSessionServiceClient(cc), brokerv1.NewControlServiceClient(cc)
	for _, n := range names {
		gs.GetGuest(ctx, &brokerv1.GetGuestRequest{Name: n})
		gs.UnregisterGuest(ctx, &brokerv1.UnregisterGuestRequest{Name: n})
		ss.CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: n})
		ss.CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: n, Mode: 99})
		cs.GetControl(ctx, &brokerv1.GetControlRequest{Guest: n})
		cs.AcquireControl(ctx, &brokerv1.AcquireControlRequest{Guest: n, Reason: "r"})
		cs.AcquireControl(ctx, &brokerv1.AcquireControlRequest{Guest: n, Reason: strings.Repeat("r", 100_000)})
		cs.ReleaseControl(ctx, &brokerv1.ReleaseControlRequest{Guest: n})
	}

	if _, err := gs.GetGuest(ctx, &brokerv1.GetGuestRequest{Name: "g1"}); err != nil {
		t.Fatal(err)
	}
	cs.GetControl(ctx, &brokerv1.GetControlRequest{Guest: "g1"})

	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	rpcs, g1 := 0, 0
	for _, f := range fams {
		for _, metric := range f.GetMetric() {
			for _, lp := range metric.GetLabel() {
				if lp.GetName() == "method" {
					rpcs++
				}
				if lp.GetName() == "guest" && lp.GetValue() == "g1" {
					g1++
				} else if lp.GetName() == "guest" && lp.GetValue() != "" {
					t.Errorf("%s has guest label %.40q (%d bytes): not a guest of the broker", f.GetName(), lp.GetValue(), len(lp.GetValue()))
				}
			}
		}
	}
	if rpcs == 0 || g1 == 0 {
		t.Fatalf("%d rpc series, %d of them of guest g1: want both recorded", rpcs, g1)
	}
	out := logged.String()
	if strings.Contains(out, long[:1000]) || strings.Contains(out, "Bad Name!") {
		t.Errorf("the RPC log copies guest names that are not guest names (%d bytes of log)", len(out))

	}
	if !strings.Contains(out, `"guest":"g1"`) || !strings.Contains(out, `"guest":"no-such-guest"`) {
		t.Errorf("the RPC log lost the guest of calls naming a well-formed guest name")
	}
}

// syncBuffer is a bytes.Buffer safe for the server's concurrent log writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
