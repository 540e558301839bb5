package atspi

import (
	"context"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

// Peer-to-peer connections. at-spi2-atk (GTK 3, Chromium, Firefox) serves its tree on a private socket too, named
// by Application.GetApplicationBusAddress, and libatspi (so pyatspi) talks to an app there rather than through the
// accessibility bus daemon. A call then crosses one socket instead of two and the daemon does not compete for the
// CPU: on gtk3-widget-factory a pipelined call costs about half as long (GetRole 55 -> 30 us, screen GetExtents
// 135 -> 75 us). An app without the address (Qt, an older bridge), or one that cannot be reached there, is spoken
// to through the bus as before.

// peer returns the connection for calls to an app's bus name: its peer-to-peer connection while that is up, else
// the bus.
func (b *Backend) peer(dest string) *dbus.Conn {
	b.mu.Lock()
	defer b.mu.Unlock()
	if c := b.peers[dest]; c != nil {
		if c.Connected() {
			return c
		}
		delete(b.peers, dest) // the app went away; calls through the bus tell how (ServiceUnknown)
	}
	return b.conn
}

// connectPeer opens the peer-to-peer connection to the app on bus name dest when it offers one and none is open.
// Failing leaves calls on the bus: the peer connection is an optimization, never a requirement.
func (b *Backend) connectPeer(ctx context.Context, dest string) {
	b.mu.Lock()
	c, tried := b.peers[dest]
	if !tried {
		b.peers[dest] = nil // one attempt per app; concurrent snapshots do not race to connect
	}
	b.mu.Unlock()
	if tried && (c == nil || c.Connected()) {
		return
	}
	var addr string
	if err := b.call(ctx, dest, rootPath, ifApplication+".GetApplicationBusAddress").Store(&addr); err != nil || addr == "" {
		return
	}
	// Only a local socket: the address comes from the app, and the agent must not be sent to dial elsewhere.
	if !strings.HasPrefix(addr, "unix:") {
		b.log.Debug("application bus address not a unix socket; using the bus", "app", dest)
		return
	}
	// An app that answered the address and then hung (a busy main loop) accepts the connection but never
	// authenticates it: connecting gets one call's time, like any call to the app.
	ctx, cancel := context.WithTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	var conn *dbus.Conn
	bc, isUnix, err := dialUnix(ctx, addr)
	switch {
	case err == nil && isUnix:
		deadline, _ := ctx.Deadline()
		_ = bc.c.SetDeadline(deadline)
		conn, err = dbus.NewConn(bc)
		if err != nil {
			bc.Close()
		}
	case err == nil:
		conn, err = dbus.Dial(addr, dbus.WithContext(ctx))
	}
	if err == nil {
		// A peer connection has no bus daemon: authenticate (EXTERNAL, by uid), no Hello.
		if err = conn.Auth(nil); err != nil {
			conn.Close()
		}
	}
	if err == nil && isUnix {
		_ = bc.c.SetDeadline(time.Time{})
	}
	if err != nil {
		b.log.Debug("peer connection failed; using the bus", "app", dest, "error", err)
		return
	}
	fast, err := dialFast(ctx, addr)
	if err != nil {
		b.log.Debug("fast peer connection failed; snapshots use godbus", "app", dest, "error", err)
	}
	b.mu.Lock()
	if old := b.peers[dest]; old != nil {
		old.Close()
	}
	b.peers[dest] = conn
	if old := b.fasts[dest]; old != nil {
		old.Close()
	}
	if fast != nil {
		b.fasts[dest] = fast
	}
	b.mu.Unlock()
}

// fast returns the app's fastConn while it works, else nil.
func (b *Backend) fast(dest string) *fastConn {
	b.mu.Lock()
	defer b.mu.Unlock()
	f := b.fasts[dest]
	if f != nil && !f.alive() {
		delete(b.fasts, dest)
		f = nil
	}
	return f
}

// closePeers closes every peer connection.
func (b *Backend) closePeers() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for dest, c := range b.peers {
		if c != nil {
			c.Close()
		}
		delete(b.peers, dest)
	}
	for dest, f := range b.fasts {
		f.Close()
		delete(b.fasts, dest)
	}
}
