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
// damaged 16-row bands, full width, encoded as format (PNG or JPEG at quality). It returns the sequence the
// tiles are current at, to pass as since next time. Nothing is cached: tiles change with every call, and the
// frame cache's entries are for whole captures. A band damaged and repaired to the same pixels is sent again;
// the viewer draws the same pixels.
func (s *Screen) CaptureTiles(ctx context.Context, since uint64, format agentv1.ImageFormat, quality int32) ([]*agentv1.ScreenTile, uint64, error) {
	// The sequence first: damage after it is also after the returned seq, so the next call sees it again.
	seq, err := s.Seq(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("screen: %w: %w", err, errdefs.ErrUnavailable)
	}
	if format == agentv1.ImageFormat_IMAGE_FORMAT_UNSPECIFIED {
		format = agentv1.ImageFormat_IMAGE_FORMAT_PNG
	}
	key := frameKey{format: format, quality: quality}
	var tiles []*agentv1.ScreenTile
	for _, run := range s.damagedRuns(since) {
		r := image.Rect(0, run[0], s.width, run[1])
		key.region = r
		img, err := s.render(r, key, nil, nil, seq)
		if err != nil {
			return nil, 0, err
		}
		tiles = append(tiles, &agentv1.ScreenTile{Rect: img.GetRegion(), Image: img})
	}
	return tiles, seq, nil
}

// damagedRuns returns the row ranges [y0, y1) of the runs of bands damaged after since.
func (s *Screen) damagedRuns(since uint64) [][2]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var runs [][2]int
	for b, seq := range s.bandSeq {
		if seq <= since {
			continue
		}
		y0, y1 := b*bandRows, min((b+1)*bandRows, s.height)
		if n := len(runs); n > 0 && runs[n-1][1] == y0 {
			runs[n-1][1] = y1
			continue
		}
		runs = append(runs, [2]int{y0, y1})
	}
	return runs
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
