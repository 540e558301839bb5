package atspi

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
)

// TestFastCodec checks fastConn's codec against godbus's: a call it encodes decodes in godbus to the same
// headers and arguments, and an answer godbus encodes (in both byte orders) decodes to the body godbus's own
// decoder gives, so dbus.Call.Store treats both alike.
func TestFastCodec(t *testing.T) {
	t.Run("call", func(t *testing.T) {
		for _, args := range [][]any{nil, {"org.a11y.atspi.Accessible", "Name"}, {int32(0), int32(-1)}, {uint32(0)}, {true, "x"}} {
			raw, err := encodeCall(7, ":1.5", "/org/a11y/atspi/accessible/12", "org.a11y.atspi.Text", "GetText", args)
			if err != nil {
				t.Fatal(err)
			}
			m, err := dbus.DecodeMessage(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("%v: godbus cannot decode: %v", args, err)
			}
			got := map[string]any{"path": m.Headers[dbus.FieldPath].Value(), "iface": m.Headers[dbus.FieldInterface].Value(),
				"member": m.Headers[dbus.FieldMember].Value(), "dest": m.Headers[dbus.FieldDestination].Value(), "body": m.Body}
			want := map[string]any{"path": dbus.ObjectPath("/org/a11y/atspi/accessible/12"), "iface": "org.a11y.atspi.Text",
				"member": "GetText", "dest": ":1.5", "body": args}
			if len(args) == 0 {
				want["body"] = []any(nil)
			}
			if d := cmp.Diff(want, got, cmp.Comparer(func(a, b dbus.Signature) bool { return a.String() == b.String() })); d != "" {
				t.Errorf("%v (-want +got):\n%s", args, d)
			}
		}
		if _, err := encodeCall(1, "d", "/", "i", "m", []any{1.5}); err == nil {
			t.Error("a float64 argument was encoded")
		}
	})
	type extents struct{ X, Y, W, H int32 }
	bodies := []struct {
		name string
		body []any
	}{
		{"none", nil},
		{"role", []any{uint32(31)}},
		{"states", []any{[]uint32{1 << 25, 3}}},
		{"no states", []any{[]uint32{}}},
		{"interfaces", []any{[]string{"org.a11y.atspi.Accessible", "org.a11y.atspi.Text"}}},
		{"name", []any{dbus.MakeVariant("Order now")}},
		{"child count", []any{dbus.MakeVariant(int32(5))}},
		{"value", []any{dbus.MakeVariant(0.25)}},
		{"parent", []any{dbus.MakeVariant(objRef{":1.2", "/org/a11y/atspi/accessible/root"})}},
		{"text", []any{"ünïcode \ufffc text"}},
		{"extents", []any{extents{1, -2, 300, 40}}},
		{"actions", []any{[]struct{ A, B, C string }{{"click", "", ""}, {"press", "d", "k"}}}},
		{"no actions", []any{[]struct{ A, B, C string }{}}},
		{"children", []any{[]objRef{{":1.2", "/a"}, {":1.2", "/b"}}}},
		{"mixed", []any{byte(3), true, int32(-4), "s", dbus.ObjectPath("/p"), 2.5}},
		{"slow path", []any{map[string]string{"k": "v"}, uint64(9), []int16{1}}},
	}
	for _, tc := range bodies {
		for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
			t.Run(tc.name+"/"+order.String(), func(t *testing.T) {
				m := &dbus.Message{Type: dbus.TypeMethodReply, Headers: map[dbus.HeaderField]dbus.Variant{
					dbus.FieldReplySerial: dbus.MakeVariant(uint32(42)), dbus.FieldSender: dbus.MakeVariant(":1.2")}, Body: tc.body}
				if len(tc.body) > 0 {
					m.Headers[dbus.FieldSignature] = dbus.MakeVariant(dbus.SignatureOf(tc.body...))
				}
				var buf bytes.Buffer
				if err := m.EncodeTo(&buf, order); err != nil {
					t.Fatal(err)
				}
				raw := buf.Bytes()
				want, err := dbus.DecodeMessage(bytes.NewReader(raw))
				if err != nil {
					t.Fatal(err)
				}
				replyTo, _, body, err := parseReply(raw, order, int(order.Uint32(raw[12:])))
				if err != nil || replyTo != 42 {
					t.Fatalf("parseReply: serial %d, %v", replyTo, err)
				}
				if d := cmp.Diff(want.Body, body, cmp.Comparer(func(a, b dbus.Variant) bool { return a.String() == b.String() })); d != "" {
					t.Errorf("body (-godbus +fast):\n%s", d)
				}
			})
		}
	}
	t.Run("error", func(t *testing.T) {
		m := &dbus.Message{Type: dbus.TypeError, Headers: map[dbus.HeaderField]dbus.Variant{
			dbus.FieldReplySerial: dbus.MakeVariant(uint32(3)), dbus.FieldErrorName: dbus.MakeVariant("org.freedesktop.DBus.Error.UnknownObject"),
			dbus.FieldSignature: dbus.MakeVariant(dbus.SignatureOf("gone"))}, Body: []any{"gone"}}
		var buf bytes.Buffer
		if err := m.EncodeTo(&buf, binary.LittleEndian); err != nil {
			t.Fatal(err)
		}
		raw := buf.Bytes()
		replyTo, name, body, err := parseReply(raw, binary.LittleEndian, int(binary.LittleEndian.Uint32(raw[12:])))
		if d := cmp.Diff([]any{uint32(3), "org.freedesktop.DBus.Error.UnknownObject", []any{"gone"}}, []any{replyTo, name, body}); d != "" || err != nil {
			t.Errorf("%v (-want +got):\n%s", err, d)
		}
	})
	t.Run("truncated", func(t *testing.T) {
		m := &dbus.Message{Type: dbus.TypeMethodReply, Headers: map[dbus.HeaderField]dbus.Variant{
			dbus.FieldReplySerial: dbus.MakeVariant(uint32(5)), dbus.FieldSignature: dbus.MakeVariant(dbus.SignatureOf("abc"))}, Body: []any{"abc"}}
		var buf bytes.Buffer
		if err := m.EncodeTo(&buf, binary.LittleEndian); err != nil {
			t.Fatal(err)
		}
		raw := buf.Bytes()
		for n := 16; n < len(raw); n++ {
			// No panic on any prefix; an answer cut inside its body fails rather than decoding garbage.
			_, _, _, err := parseReply(raw[:n], binary.LittleEndian, int(binary.LittleEndian.Uint32(raw[12:])))
			if err == nil {
				t.Errorf("prefix of %d of %d bytes decoded", n, len(raw))
			}
		}
	})
}
