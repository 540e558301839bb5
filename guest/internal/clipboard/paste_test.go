package clipboard

import (
	"context"
	"testing"
	"time"

	"glovebox.dev/guest/internal/clipboard/cliptest"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// A paste saves what xclip offered (text and a PNG) and restores both; the pasted text is what a reader
// gets while press runs.
func TestPasteRestoresTextAndImage(t *testing.T) {
	d, c, _ := start(t)
	ctx := context.Background()
	cliptest.Own(t, d, "clipboard", []byte("user text"), "")
	var during []byte
	resp, err := c.Paste(ctx, "pasted", func(context.Context) error {
		var err error
		during, err = cliptest.Out(d, "clipboard", "")
		return err
	}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if string(during) != "pasted" || !resp.GetRequested() || resp.GetRestore() != agentv1.ClipboardRestore_CLIPBOARD_RESTORE_RESTORED {
		t.Errorf("during the paste xclip read %q; response %v; want %q, requested, RESTORED", during, resp, "pasted")
	}
	if got, _ := cliptest.Out(d, "clipboard", ""); string(got) != "user text" {
		t.Errorf("after the paste xclip reads %q, want the user's text", got)
	}

	img := noisePNG(t, 300, 200)
	cliptest.Own(t, d, "clipboard", img, "image/png")
	if _, err := c.Paste(ctx, "pasted", func(context.Context) error { return nil }, 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if got, _ := cliptest.Out(d, "clipboard", "image/png"); string(got) != string(img) {
		t.Errorf("after the paste the PNG is %d bytes, want the user's %d", len(got), len(img))
	}
}

// A clipboard another client takes during the paste is kept as that client set it.
func TestPasteKeepsChangedClipboard(t *testing.T) {
	d, c, _ := start(t)
	cliptest.Own(t, d, "clipboard", []byte("before"), "")
	resp, err := c.Paste(context.Background(), "pasted", func(context.Context) error {
		cliptest.Own(t, d, "clipboard", []byte("changed meanwhile"), "")
		return nil
	}, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetRestore() != agentv1.ClipboardRestore_CLIPBOARD_RESTORE_KEPT {
		t.Errorf("restore %v, want KEPT", resp.GetRestore())
	}
	if got, _ := cliptest.Out(d, "clipboard", ""); string(got) != "changed meanwhile" {
		t.Errorf("xclip reads %q, want the change kept", got)
	}
}
