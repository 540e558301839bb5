package screen

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"

	"github.com/jezek/xgb/xfixes"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// CaptureTiles encodes the parts of the screen damaged since the frame sequence since: one tile per run of
// damaged 16-row bands, as wide as the columns damaged in them, encoded as format (PNG or JPEG at quality). It
// returns the sequence the tiles are current at, to pass as since next time. Nothing is cached: tiles change with every call, and the
// frame cache's entries are for whole captures. A band damaged and repaired to the same pixels is sent again;
// the viewer draws the same pixels.
func (s *Screen) CaptureTiles(ctx context.Context, since uint64, format agentv1.ImageFormat, quality int32, pngWhenSmaller bool) ([]*agentv1.ScreenTile, uint64, error) {
	// Catch up with the X server first, so every change it finished is in the damage record read below.
	if _, err := s.Seq(ctx); err != nil {
		return nil, 0, fmt.Errorf("screen: %w: %w", err, errdefs.ErrUnavailable)
	}
	if format == agentv1.ImageFormat_IMAGE_FORMAT_UNSPECIFIED {
		format = agentv1.ImageFormat_IMAGE_FORMAT_PNG
	}
	tryPNG := pngWhenSmaller && format == agentv1.ImageFormat_IMAGE_FORMAT_JPEG
	var tiles []*agentv1.ScreenTile
	runs, seq := s.damagedRuns(since)
	for _, r := range runs {
		key := frameKey{region: r, format: format, quality: quality}
		if tryPNG {
			key.format, key.quality = agentv1.ImageFormat_IMAGE_FORMAT_PNG, 0
		}
		img, err := s.render(r, key, nil, nil, seq)
		if err != nil {
			return nil, 0, err
		}
		// Text and UI compress losslessly to a few bits a pixel (a page of terminal text is ~6x smaller as PNG
		// than as JPEG); a photo or a video frame does not, and goes as JPEG.
		if tryPNG && len(img.GetData()) > r.Dx()*r.Dy()/pngBitsPerPixelLimit {
			key.format, key.quality = format, quality
			if img, err = s.render(r, key, nil, nil, seq); err != nil {
				return nil, 0, err
			}
		}
		tiles = append(tiles, &agentv1.ScreenTile{Rect: img.GetRegion(), Image: img})
	}
	return tiles, seq, nil
}

// pngBitsPerPixelLimit: with png_when_smaller, a tile whose PNG takes more than 1/pngBitsPerPixelLimit bytes a
// pixel (two bits) is sent as JPEG instead.
const pngBitsPerPixelLimit = 4

// damagedRuns returns the rectangles of the runs of bands damaged after since: full-width rows, narrowed to
// the columns damaged in them when those were tracked since since (the caller's last tiles), and the seq
// they are current at (everything damaged up to it is in them). It starts a new column record there.
func (s *Screen) damagedRuns(since uint64) ([]image.Rectangle, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var runs []image.Rectangle
	for b, bseq := range s.bandSeq {
		if bseq <= since {
			continue
		}
		x0, x1 := s.tiles.columns(b, since, s.width)
		y0, y1 := b*bandRows, min((b+1)*bandRows, s.height)
		if n := len(runs); n > 0 && runs[n-1].Max.Y == y0 {
			runs[n-1].Max.Y = y1
			runs[n-1].Min.X, runs[n-1].Max.X = min(runs[n-1].Min.X, x0), max(runs[n-1].Max.X, x1)
			continue
		}
		runs = append(runs, image.Rect(x0, y0, x1, y1))
	}
	s.tiles.reset(s.seq)
	return runs, s.seq
}

// tileColumns records, per band, the union of the columns damaged since the record was last reset, so a tile
// covers only the part of its rows that changed (a window's repaint, not the whole screen's width). The record
// is exact for the watch that reads it; another watch whose tiles are older than the last reset gets whole rows.
type tileColumns struct {
	x0, x1 []int
	// from is the seq the record starts after: damage with a higher seq is in it.
	from uint64
}

// mark adds a damaged rectangle; s.mu is held.
func (c *tileColumns) mark(height, x0, y0, x1, y1 int) {
	n := (height + bandRows - 1) / bandRows
	if c.x0 == nil {
		c.x0, c.x1 = make([]int, n), make([]int, n)
		for i := range c.x0 {
			c.x0[i] = -1
		}
	}
	for b := max(y0, 0) / bandRows; b <= (min(y1, height)-1)/bandRows && b < n; b++ {
		if c.x0[b] < 0 {
			c.x0[b], c.x1[b] = x0, x1
			continue
		}
		c.x0[b], c.x1[b] = min(c.x0[b], x0), max(c.x1[b], x1)
	}
}

// columns returns the columns [x0, x1) of band b to send to a watch whose last tiles were at since: the
// damaged ones, 16-pixel aligned, when the record covers everything after since, else the whole width.
func (c *tileColumns) columns(b int, since uint64, width int) (int, int) {
	if c.x0 == nil || since < c.from || c.x0[b] < 0 {
		return 0, width
	}
	x0, x1 := c.x0[b]/16*16, min((c.x1[b]+15)/16*16, width)
	if x1 <= x0 {
		return 0, width
	}
	return max(x0, 0), x1
}

// reset starts a new record after seq.
func (c *tileColumns) reset(seq uint64) {
	for i := range c.x0 {
		c.x0[i] = -1
	}
	c.from = seq
}

// CursorShape returns the cursor's image as PNG with its hotspot, and its serial (which changes with the
// shape), so a viewer can draw the pointer itself.
func (s *Screen) CursorShape(ctx context.Context) (*agentv1.CursorShape, uint32, error) {
	cur, err := xfixes.GetCursorImage(s.conn).Reply()
	if err != nil {
		return nil, 0, fmt.Errorf("cursor image: %w: %w", err, errdefs.ErrUnavailable)
	}
	w, h := int(cur.Width), int(cur.Height)
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i, p := range cur.CursorImage {
		if i >= w*h {
			break
		}
		// Premultiplied ARGB to straight RGBA.
		a := p >> 24
		px := img.Pix[i*4 : i*4+4 : i*4+4]
		if a != 0 {
			px[0] = uint8(min(255, ((p>>16)&0xff)*255/a))
			px[1] = uint8(min(255, ((p>>8)&0xff)*255/a))
			px[2] = uint8(min(255, (p&0xff)*255/a))
		}
		px[3] = uint8(a)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, 0, fmt.Errorf("cursor image: %w", err)
	}
	return &agentv1.CursorShape{
		Image: &agentv1.Image{Format: agentv1.ImageFormat_IMAGE_FORMAT_PNG, Width: int32(w), Height: int32(h), Scale: 1, Data: buf.Bytes()},
		HotX:  int32(cur.Xhot), HotY: int32(cur.Yhot),
	}, cur.CursorSerial, nil
}
