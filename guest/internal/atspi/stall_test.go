package atspi

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// silentApp is an application on the accessibility bus (this test process) whose peer-to-peer address is a
// socket that accepts connections and never says a word: an app whose main loop hung right after it answered.
type silentApp struct{ addr string }

// GetApplicationBusAddress names the silent socket.
func (a silentApp) GetApplicationBusAddress() (string, *dbus.Error) { return a.addr, nil }

// TestSnapshotSilentPeerIsBounded snapshots an app whose peer-to-peer socket accepts but never authenticates:
// the snapshot ends within its deadline instead of waiting for the app forever.
func TestSnapshotSilentPeerIsBounded(t *testing.T) {
	e := newEnv(t, Options{CallTimeout: 500 * time.Millisecond, SnapshotTimeout: 2 * time.Second})
	sock := filepath.Join(t.TempDir(), "peer.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		var held []net.Conn
		for {
			c, err := l.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	defer func() { l.Close(); <-accepted }()

	sc, err := dbus.Connect(e.s.Address)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	var addr string
	if err := sc.Object("org.a11y.Bus", "/org/a11y/bus").Call("org.a11y.Bus.GetAddress", 0).Store(&addr); err != nil {
		t.Fatal(err)
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Export(silentApp{addr: "unix:path=" + sock}, rootPath, ifApplication); err != nil {
		t.Fatal(err)
	}
	var parent objRef
	if err := conn.Object(registryName, rootPath).Call("org.a11y.atspi.Socket.Embed", 0, objRef{conn.Names()[0], rootPath}).Store(&parent); err != nil {
		t.Fatalf("embed: %v", err)
	}
	e.waitOnBus(t, int32(os.Getpid()))

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		_, err := e.b.SnapshotApp(ctx, &agentv1.SnapshotAppRequest{AppId: AppID(int32(os.Getpid()))})
		done <- err
	}()
	select {
	case err := <-done:
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("snapshot took %v (%v), its deadline is 2s", d, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("snapshot still running after 10s; its deadline is 2s")
	}
}
