package broker_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/a11ybus"
	"glovebox.dev/shared/testenv/chromium"
	"glovebox.dev/shared/testenv/desktop"
	"glovebox.dev/tests/internal/agenttest"
)

// BenchmarkObserve measures the one-call observation (a 4 KiB snapshot of an app's window, a PNG screenshot, the
// pointer and the focused element) straight from the agent and through the broker, for gtk3-widget-factory and
// for Chromium's window showing the benchmarks' page (its AT-SPI tree). Targets: p50 under 30 ms (GTK) and
// 100 ms (Chromium) through the broker. sizes-chromium reports the window's snapshot in bytes whole
// (max_nodes 20000, no budget) and as the 4 KiB page the observation answers.
func BenchmarkObserve(b *testing.B) {
	testenv.NeedCommands(b, "Xvfb", "openbox", "gtk3-widget-factory")
	chromium.Need(b)
	d := desktop.Start(b, desktop.Options{})
	s := a11ybus.Start(b, d)
	a := agenttest.Start(b, agenttest.Options{Desktop: d, Env: []string{"DBUS_SESSION_BUS_ADDRESS=" + s.Address}})
	br := startBroker(b, map[string]string{"vm1": "unix://" + a.Socket})
	page := chromium.BenchPage()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, page) }))
	b.Cleanup(srv.Close)
	start := func(name string, args ...string) int32 {
		c := s.Command(name, args...)
		if err := s.StartProgram(b, c); err != nil {
			b.Fatalf("start %s: %v", name, err)
		}
		return int32(c.Process.Pid)
	}
	gtk := start("gtk3-widget-factory")
	chrome := start("chromium", "--force-renderer-accessibility", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
		"--user-data-dir="+b.TempDir(), "--window-size=1200,760", srv.URL)
	conn := a.DialUnix(b)
	a11y, observe := agentv1.NewAccessibilityServiceClient(conn), agentv1.NewObserveServiceClient(conn)
	computer := brokerv1.NewComputerServiceClient(br.Conn)
	sid := br.session(b, "vm1")
	ctx := context.Background()
	appID := func(pid int32) string { return "app:" + strconv.Itoa(int(pid)) }
	full := func(pid int32) *agentv1.Snapshot {
		r, err := a11y.SnapshotApp(ctx, &agentv1.SnapshotAppRequest{AppId: appID(pid), Options: &agentv1.SnapshotOptions{MaxNodes: 20000}})
		if err != nil {
			return nil
		}
		return r.GetSnapshot()
	}
	// Wait for both trees to be whole: the factory's first page, the page's last field.
	for _, w := range []struct {
		pid  int32
		done func(*agentv1.Snapshot) bool
	}{{gtk, func(s *agentv1.Snapshot) bool { return len(s.GetElements()) > 200 }},
		{chrome, func(s *agentv1.Snapshot) bool { return strings.Contains(s.GetText(), `"Field 86"`) }}} {
		deadline := time.Now().Add(60 * time.Second)
		for s := full(w.pid); !w.done(s); s = full(w.pid) {
			if time.Now().After(deadline) {
				b.Fatalf("%s never showed its tree", appID(w.pid))
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
	req := func(pid int32) *agentv1.ObserveRequest {
		return &agentv1.ObserveRequest{Target: &agentv1.Target{Kind: &agentv1.Target_App{App: &agentv1.AppTarget{AppId: appID(pid)}}},
			Snapshot: &agentv1.SnapshotOptions{MaxBytes: 4096}}
	}
	check := func(r *agentv1.ObserveResponse) {
		if n := proto.Size(r.GetSnapshot()); n == 0 || n > 4096 || len(r.GetImage().GetData()) == 0 {
			b.Fatalf("observation: snapshot %d bytes (%s), image %d bytes", n, r.GetSnapshotUnavailableReason(), len(r.GetImage().GetData()))
		}
	}
	cases := []struct {
		name string
		run  func() error
	}{}
	for _, app := range []struct {
		name string
		pid  int32
	}{{"gtk-4k", gtk}, {"chromium-4k", chrome}} {
		cases = append(cases, struct {
			name string
			run  func() error
		}{"direct-" + app.name, func() error {
			r, err := observe.Observe(ctx, req(app.pid))
			if err == nil {
				check(r)
			}
			return err
		}}, struct {
			name string
			run  func() error
		}{"broker-" + app.name, func() error {
			r, err := computer.Observe(ctx, &brokerv1.ObserveRequest{SessionId: sid, Request: req(app.pid)})
			if err == nil {
				check(r.GetResponse())
			}
			return err
		}})
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			for b.Loop() {
				t0 := time.Now()
				if err := c.run(); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		})
	}
	b.Run("sizes-chromium", func(b *testing.B) {
		var whole, paged int
		for b.Loop() {
			r, err := a11y.SnapshotWindow(ctx, &agentv1.SnapshotWindowRequest{AppId: appID(chrome), WindowId: windowOf(b, a11y, appID(chrome)),
				Options: &agentv1.SnapshotOptions{MaxNodes: 20000}})
			if err != nil {
				b.Fatal(err)
			}
			whole = proto.Size(r.GetSnapshot())
			o, err := observe.Observe(ctx, req(chrome))
			if err != nil {
				b.Fatal(err)
			}
			paged = proto.Size(o.GetSnapshot())
		}
		b.ReportMetric(float64(whole), "whole-bytes")
		b.ReportMetric(float64(paged), "page-bytes")
	})
}

// windowOf is the first window of an app.
func windowOf(b *testing.B, a11y agentv1.AccessibilityServiceClient, id string) string {
	r, err := a11y.GetApp(context.Background(), &agentv1.GetAppRequest{AppId: id})
	if err != nil || len(r.GetApp().GetWindows()) == 0 {
		b.Fatalf("GetApp %s: %v", id, err)
	}
	return r.GetApp().GetWindows()[0].GetWindowId()
}
