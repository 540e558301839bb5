package atspi

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// peerCalls is how many calls one benchmark operation pipelines, peerInFlight how many are outstanding at once
// (DefaultInFlight, as a snapshot).
const (
	peerCalls    = 1000
	peerInFlight = DefaultInFlight
)

// peerTarget starts the test app on a fresh accessibility session and answers its bus name and its peer-to-peer
// address (Application.GetApplicationBusAddress), where a snapshot's calls go.
func peerTarget(b *testing.B) (dest, addr string) {
	b.Helper()
	e := newEnv(b, Options{})
	a := e.startTestApp(b, "benchapp")
	ref, err := e.b.app(context.Background(), AppID(a.pid))
	if err != nil {
		b.Fatal(err)
	}
	if err := e.b.conn.Object(ref.bus, rootPath).Call(ifApplication+".GetApplicationBusAddress", 0).Store(&addr); err != nil || addr == "" {
		b.Fatalf("the app offers no peer-to-peer address: %v", err)
	}
	return ref.bus, addr
}

// cpuTime is the process's CPU time so far (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measure runs op per iteration and reports, beside the time, this process's CPU per call (cpu-us/call): the
// agent's share, which is what these fast paths cut (the app's own answer time is the same for both).
func measure(b *testing.B, op func()) {
	start, n := cpuTime(), 0
	for b.Loop() {
		op()
		n++
	}
	b.ReportMetric(float64((cpuTime()-start).Microseconds())/float64(n*peerCalls), "cpu-us/call")
}

// pipelineGodbus makes peerCalls GetRole calls through c, at most peerInFlight outstanding.
func pipelineGodbus(b *testing.B, c *dbus.Conn, dest string) {
	ch := make(chan *dbus.Call, peerInFlight)
	obj := c.Object(dest, rootPath)
	sent, got := 0, 0
	for got < peerCalls {
		for sent < peerCalls && sent-got < peerInFlight {
			obj.Go(ifAccessible+".GetRole", 0, ch)
			sent++
		}
		call := <-ch
		var role uint32
		if err := call.Store(&role); err != nil {
			b.Fatal(err)
		}
		got++
	}
}

// authed returns a godbus peer connection on transport (nil: godbus's own) to addr, authenticated as a peer
// (no Hello), closed when the benchmark ends.
func authed(b *testing.B, addr string, ownTransport bool) *dbus.Conn {
	b.Helper()
	var c *dbus.Conn
	var err error
	if ownTransport {
		c, err = dbus.Dial(addr)
	} else {
		var bc *bufConn
		if bc, _, err = dialUnix(context.Background(), addr); err == nil {
			c, err = dbus.NewConn(bc)
		}
	}
	if err == nil {
		err = c.Auth(nil)
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}

// BenchmarkFastConn: fastConn (our codec and dispatch, fastconn.go) against godbus on the same transport
// (bufConn), 1000 pipelined GetRole calls to a GTK app per operation, as a snapshot makes them.
func BenchmarkFastConn(b *testing.B) {
	dest, addr := peerTarget(b)
	b.Run("glovebox-getrole", func(b *testing.B) {
		f, err := dialFast(context.Background(), addr)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		measure(b, func() {
			done := make(chan *dbus.Call, peerInFlight)
			sent, got := 0, 0
			for got < peerCalls {
				for sent < peerCalls && sent-got < peerInFlight {
					if err := f.call(context.Background(), 5*time.Second, dest, rootPath, ifAccessible+".GetRole", nil, func(c *dbus.Call) { done <- c }); err != nil {
						b.Fatal(err)
					}
					sent++
				}
				call := <-done
				var role uint32
				if err := call.Store(&role); err != nil {
					b.Fatal(err)
				}
				got++
			}
		})
	})
	b.Run("godbus-getrole", func(b *testing.B) {
		c := authed(b, addr, false)
		measure(b, func() { pipelineGodbus(b, c, dest) })
	})
}

// BenchmarkBufConn: godbus on bufConn (buffered reads, coalesced writes, bufconn.go) against godbus on its own
// unix transport, the same 1000 pipelined GetRole calls per operation.
func BenchmarkBufConn(b *testing.B) {
	dest, addr := peerTarget(b)
	b.Run("glovebox-getrole", func(b *testing.B) {
		c := authed(b, addr, false)
		measure(b, func() { pipelineGodbus(b, c, dest) })
	})
	b.Run("godbus-getrole", func(b *testing.B) {
		c := authed(b, addr, true)
		measure(b, func() { pipelineGodbus(b, c, dest) })
	})
}
