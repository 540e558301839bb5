package clipboard

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"slices"
	"testing"

	"glovebox.dev/guest/internal/clipboard/cliptest"
)

// noisePNG encodes a w x h image of noise: a few MB, so it travels by INCR.
func noisePNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = byte(r.Uint32())
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func smallJPEG(t testing.TB) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for i := range 64 {
		img.Set(i, i%48, color.RGBA{R: 200, A: 255})
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// An image written through the clipboard is read byte-exact by xclip (PNG through INCR, JPEG in one
// property); one that xclip owns is read back exactly, and its targets are listed.
func TestImageClipboardAgainstXclip(t *testing.T) {
	d, c, logs := start(t)
	ctx := context.Background()
	big := noisePNG(t, 1280, 800)
	for _, img := range []struct {
		mime string
		data []byte
	}{{"image/png", big}, {"image/jpeg", smallJPEG(t)}} {
		if err := c.WriteData(ctx, clip, img.mime, img.data); err != nil {
			t.Fatalf("write %s: %v", img.mime, err)
		}
		got, err := cliptest.Out(d, "clipboard", img.mime)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, img.data) {
			t.Errorf("xclip read %d bytes of %s, want the %d written", len(got), img.mime, len(img.data))
		}
		if text, _ := cliptest.Out(d, "clipboard", "UTF8_STRING"); len(text) != 0 {
			t.Errorf("an image offer answered UTF8_STRING with %d bytes", len(text))
		}
	}
	if logs.count("clipboard: INCR transfer started") == 0 {
		t.Errorf("the %d-byte PNG did not go through INCR", len(big))
	}

	cliptest.Own(t, d, "clipboard", big, "image/png")
	got, owned, offered, err := c.ReadData(ctx, clip, "image/png")
	if err != nil || !owned || !offered || !bytes.Equal(got, big) {
		t.Errorf("read xclip's PNG: %d bytes, owned %v, offered %v, %v; want the %d bytes", len(got), owned, offered, err, len(big))
	}
	_, owned, offered, err = c.ReadData(ctx, clip, "image/jpeg")
	if err != nil || !owned || offered {
		t.Errorf("read xclip's PNG as JPEG: owned %v offered %v %v; want owned, not offered", owned, offered, err)
	}
	names, owned, err := c.Targets(ctx, clip)
	if err != nil || !owned || !slices.Contains(names, "image/png") || !slices.Contains(names, "TARGETS") {
		t.Errorf("targets of xclip's PNG: %q owned %v %v", names, owned, err)
	}
}

// A uri-list written through the clipboard is read by xclip as text/uri-list and as text; Offer serves the
// file-manager targets together.
func TestURIListClipboard(t *testing.T) {
	d, c, _ := start(t)
	ctx := context.Background()
	list := []byte("file:///home/u/a%20b.txt\r\n")
	if err := c.WriteData(ctx, clip, "text/uri-list", list); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"text/uri-list", "UTF8_STRING"} {
		if got, err := cliptest.Out(d, "clipboard", target); err != nil || !bytes.Equal(got, list) {
			t.Errorf("xclip -t %s: %q %v; want %q", target, got, err, list)
		}
	}
	if err := c.Offer(ctx, "/home/u/a b.txt", map[string][]byte{"x-special/gnome-copied-files": []byte("copy\nfile:///home/u/a%20b.txt"),
		"text/uri-list": list}); err != nil {
		t.Fatal(err)
	}
	if got, err := cliptest.Out(d, "clipboard", "x-special/gnome-copied-files"); err != nil || string(got) != "copy\nfile:///home/u/a%20b.txt" {
		t.Errorf("gnome-copied-files: %q %v", got, err)
	}
	if got, err := cliptest.Out(d, "clipboard", ""); err != nil || string(got) != "/home/u/a b.txt" {
		t.Errorf("text: %q %v", got, err)
	}
	names, _, err := c.Targets(ctx, clip)
	if err != nil || !slices.Contains(names, "x-special/gnome-copied-files") || !slices.Contains(names, "UTF8_STRING") {
		t.Errorf("own targets: %q %v", names, err)
	}
}
