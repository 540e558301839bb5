package clipboard

import (
	"context"
	"testing"

	"glovebox.dev/guest/internal/clipboard/cliptest"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv/desktop"
)

// BenchmarkRead converts a 64-byte selection owned by xclip, without gRPC.
func BenchmarkRead(b *testing.B) {
	d := desktop.Start(b, desktop.Options{NoWindowManager: true})
	c, err := Open(d.Display, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	text := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	o := cliptest.Own(b, d, "clipboard", []byte(text), "")
	defer o.Stop()
	for b.Loop() {
		r, err := c.Read(context.Background(), agentv1.Selection_SELECTION_CLIPBOARD)
		if err != nil || r.GetText() != text {
			b.Fatalf("Read = %q, %v", r.GetText(), err)
		}
	}
}

// BenchmarkWrite takes ownership of a selection with a 64-byte text, without gRPC.
func BenchmarkWrite(b *testing.B) {
	d := desktop.Start(b, desktop.Options{NoWindowManager: true})
	c, err := Open(d.Display, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	for b.Loop() {
		if err := c.Write(context.Background(), agentv1.Selection_SELECTION_CLIPBOARD, "0123456789abcdef"); err != nil {
			b.Fatal(err)
		}
	}
}
