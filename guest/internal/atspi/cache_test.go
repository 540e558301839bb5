package atspi

import (
	"context"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
)

// TestCacheItemsAsGodbus reads the test app's cache both ways: taken apart by hand from the fast connection's
// answer (cacheItemsOf, which must take that shape) and stored by godbus from the bus's answer; the items agree.
func TestCacheItemsAsGodbus(t *testing.T) {
	e := newEnv(t, Options{})
	a := e.startTestApp(t, "cacheapp")
	ctx := context.Background()
	app, err := e.b.app(ctx, AppID(a.pid))
	if err != nil {
		t.Fatal(err)
	}
	e.b.connectPeer(ctx, app.bus)
	if e.b.fast(app.bus) == nil {
		t.Fatal("no fast connection to the test app")
	}
	var fast *dbus.Call
	p := e.b.newPipe(ctx)
	p.do(app.bus, cachePath, "org.a11y.atspi.Cache.GetItems", nil, func(c *dbus.Call) { fast = c })
	p.wait()
	if fast.Err != nil {
		t.Fatal(fast.Err)
	}
	byHand, ok := cacheItemsOf(fast.Body)
	if !ok || len(byHand) == 0 {
		t.Fatalf("cacheItemsOf did not take the fast connection's answer apart (%d items, ok %v)", len(byHand), ok)
	}
	var stored []cacheItem
	if err := e.b.call(ctx, app.bus, cachePath, "org.a11y.atspi.Cache.GetItems").Store(&stored); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(stored, byHand); d != "" {
		t.Errorf("items by hand differ from godbus's (-godbus +by hand):\n%s", d)
	}
	m, err := e.b.cacheItems(ctx, app.bus)
	if err != nil || len(m) != len(stored) {
		t.Errorf("cacheItems: %d items, %v; want %d", len(m), err, len(stored))
	}
}
