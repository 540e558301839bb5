package screen

import (
	"bytes"
	"context"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"testing"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// TestTileColumns: a band's columns are the union of its damage since the watch's last tiles, 16-pixel
// aligned; a watch older than the record, or a band the record lost, gets the whole width.
func TestTileColumns(t *testing.T) {
	var c tileColumns
	c.mark(800, 100, 20, 130, 40) // bands 1 and 2
	c.mark(800, 400, 35, 410, 36) // band 2
	for _, tc := range []struct {
		band   int
		since  uint64
		x0, x1 int
	}{
		{1, 0, 96, 144},
		{2, 0, 96, 416},
		{0, 0, 0, 1280}, // not damaged in the record: whole rows
	} {
		if x0, x1 := c.columns(tc.band, tc.since, 1280); x0 != tc.x0 || x1 != tc.x1 {
			t.Errorf("band %d since %d: columns %d..%d, want %d..%d", tc.band, tc.since, x0, x1, tc.x0, tc.x1)
		}
	}
	c.reset(7)
	c.mark(800, 0, 20, 10, 21)
	if x0, x1 := c.columns(1, 7, 1280); x0 != 0 || x1 != 16 {
		t.Errorf("after reset: columns %d..%d, want 0..16", x0, x1)
	}
	if x0, x1 := c.columns(1, 5, 1280); x0 != 0 || x1 != 1280 {
		t.Errorf("a watch older than the record: columns %d..%d, want the whole width", x0, x1)
	}
	c.mark(800, 1270, 20, 1280, 21)
	if _, x1 := c.columns(1, 7, 1280); x1 != 1280 {
		t.Errorf("columns at the right edge end at %d, want 1280", x1)
	}
}

// TestCaptureTilesDecode: tiles of a real screen in every format decode to their rectangle's size.
func TestCaptureTilesDecode(t *testing.T) {
	s, _ := startScreen(t)
	ctx := context.Background()
	_, _, seq, err := s.Capture(ctx, &agentv1.ScreenshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range []agentv1.ImageFormat{agentv1.ImageFormat_IMAGE_FORMAT_PNG, agentv1.ImageFormat_IMAGE_FORMAT_JPEG, agentv1.ImageFormat_IMAGE_FORMAT_JPEG} {
		// Damage a rectangle away from the left edge.
		s.mu.Lock()
		s.seq++
		s.markLocked(100, 140)
		s.tiles.mark(s.height, 200, 100, 333, 140)
		s.mu.Unlock()
		q := int32(80)
		if f == agentv1.ImageFormat_IMAGE_FORMAT_PNG {
			q = 0
		}
		tiles, next, err := s.CaptureTiles(ctx, seq, f, q, i == 2)
		if err != nil {
			t.Fatal(err)
		}
		seq = next
		if len(tiles) == 0 {
			t.Fatalf("%v: no tiles for a damaged band", f)
		}
		for _, tl := range tiles {
			img, _, err := image.Decode(bytes.NewReader(tl.GetImage().GetData()))
			if err != nil {
				t.Fatalf("%v: tile %v does not decode: %v", f, tl.GetRect(), err)
			}
			if b := img.Bounds(); int32(b.Dx()) != tl.GetRect().GetWidth() || int32(b.Dy()) != tl.GetRect().GetHeight() {
				t.Fatalf("%v: tile %v decodes to %v", f, tl.GetRect(), b)
			}
		}
	}
}
