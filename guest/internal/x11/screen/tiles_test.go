package screen

import "testing"

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
