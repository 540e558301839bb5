package xconn

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jezek/xgb/xproto"

	"glovebox.dev/shared/testenv/desktop"
)

// TestRawBurst sends a burst of XTEST events through a Raw connection and checks their effect through a
// separate xgb connection: the pointer moved and a key is down, then up after the next burst. A request the
// server refuses is reported by Sync, and the connection keeps working.
func TestRawBurst(t *testing.T) {
	d := desktop.Start(t, desktop.Options{NoWindowManager: true})
	obs, err := Open(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(obs.Close)
	if err := Require(obs, XTest); err != nil {
		t.Fatal(err)
	}
	root := uint32(xproto.Setup(obs).DefaultScreen(obs).Root)
	major := obs.Extensions[XTest]
	raw, err := OpenRaw(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })

	keyDown := func(code byte) bool {
		km, err := xproto.QueryKeymap(obs).Reply()
		if err != nil {
			t.Fatal(err)
		}
		return km.Keys[code/8]&(1<<(code%8)) != 0
	}
	const keycode = 38 // 'a' on the default keymap; any keycode will do
	raw.FakeInput(major, xproto.MotionNotify, 0, root, 10, 10)
	raw.FakeInput(major, xproto.MotionNotify, 0, root, 123, 45)
	raw.FakeInput(major, xproto.KeyPress, keycode, root, 0, 0)
	if raw.Pending() != 3 {
		t.Errorf("Pending = %d, want 3", raw.Pending())
	}
	if keyDown(keycode) {
		t.Fatal("the key is down before Sync sent the burst")
	}
	x, y, _, err := raw.Sync(root)
	if err != nil {
		t.Fatal(err)
	}
	p, err := xproto.QueryPointer(obs, xproto.Window(root)).Reply()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([4]int16{123, 45, 123, 45}, [4]int16{x, y, p.RootX, p.RootY}); diff != "" {
		t.Errorf("pointer (Sync's answer, then another client's) (-want +got):\n%s", diff)
	}
	if !keyDown(keycode) {
		t.Error("the key is not down after Sync")
	}

	raw.FakeInput(major, 99, 0, root, 0, 0) // not an event type: refused
	want := fmt.Sprintf("for request %d.2 ", major)
	if _, _, _, err := raw.Sync(root); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Sync after a bad request = %v, want an x error %s", err, want)
	}
	raw.FakeInput(major, xproto.KeyRelease, keycode, root, 0, 0)
	if _, _, _, err := raw.Sync(root); err != nil {
		t.Fatalf("Sync after the error: %v", err)
	}
	if keyDown(keycode) {
		t.Error("the key is still down after its release was synced")
	}
}

func TestParseDisplay(t *testing.T) {
	for _, tc := range []struct{ in, network, addr, number string }{
		{":0", "unix", "/tmp/.X11-unix/X0", "0"},
		{":12.1", "unix", "/tmp/.X11-unix/X12", "12"},
		{"unix:3", "unix", "/tmp/.X11-unix/X3", "3"},
		{"127.0.0.1:2", "tcp", "127.0.0.1:6002", "2"},
	} {
		network, addr, _, number, err := parseDisplay(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff([]string{tc.network, tc.addr, tc.number}, []string{network, addr, number}); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.in, diff)
		}
	}
	for _, bad := range []string{"", "0", ":", ":x", ":-1", "host"} {
		if _, _, _, _, err := parseDisplay(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestAuthority reads an X authority file written the way xauth writes it.
func TestAuthority(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	entry := func(family uint16, addr, num, name string, data []byte) []byte {
		b := binary.BigEndian.AppendUint16(nil, family)
		for _, f := range [][]byte{[]byte(addr), []byte(num), []byte(name), data} {
			b = binary.BigEndian.AppendUint16(b, uint16(len(f)))
			b = append(b, f...)
		}
		return b
	}
	cookie := []byte("0123456789abcdef")
	var file []byte
	file = append(file, entry(256, "otherhost", "5", "MIT-MAGIC-COOKIE-1", []byte("wrong host......"))...)
	file = append(file, entry(256, host, "4", "MIT-MAGIC-COOKIE-1", []byte("wrong display..."))...)
	file = append(file, entry(256, host, "5", "XDM-AUTHORIZATION-1", []byte("other scheme"))...)
	file = append(file, entry(256, host, "5", "MIT-MAGIC-COOKIE-1", cookie)...)
	path := filepath.Join(t.TempDir(), "Xauthority")
	if err := os.WriteFile(path, file, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XAUTHORITY", path)
	name, data := authority("", "5")
	if name != "MIT-MAGIC-COOKIE-1" || string(data) != string(cookie) {
		t.Errorf("display 5: %q %q, want the cookie", name, data)
	}
	if name, data := authority("", "7"); name != "" || data != nil {
		t.Errorf("display 7: %q %q, want nothing", name, data)
	}
	// A truncated file gives nothing rather than garbage.
	if err := os.WriteFile(path, file[:len(file)-3], 0o600); err != nil {
		t.Fatal(err)
	}
	if name, _ := authority("", "5"); name != "" {
		t.Errorf("truncated file: %q, want nothing", name)
	}
}
