package screen

import (
	"context"
	"fmt"
	"image"

	"github.com/jezek/xgb/xfixes"

	"glovebox.dev/guest/internal/encode"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// frameKey is everything that makes two captures of an unchanged screen produce the same bytes.
type frameKey struct {
	region  image.Rectangle
	format  agentv1.ImageFormat
	quality int32
	maxEdge int32
	cursor  bool
}

// frame is the last encoded image for a frameKey.
type frame struct {
	img *agentv1.Image
	seq uint64
	// The cursor drawn into it (pointer moves and cursor changes cause no damage).
	curX, curY int16
	curSerial  uint32
	// enc keeps the pixels and encoded bands behind img, so the next capture with the same options
	// re-encodes only the bands that changed. It is made on the second capture with these options.
	enc *encode.Cache
}

// Region returns the root-window rectangle opts select: the region if set, else the display, else the whole
// screen. It fails with errdefs.ErrInvalidArgument for an unknown display or a region outside it.
func (s *Screen) Region(opts *agentv1.ScreenshotOptions) (image.Rectangle, error) {
	bounds := image.Rect(0, 0, s.width, s.height)
	if id := opts.GetDisplayId(); id != "" {
		found := false
		for _, d := range s.displays {
			if d.Id == id {
				b := d.Bounds
				bounds, found = image.Rect(int(b.X), int(b.Y), int(b.X+b.Width), int(b.Y+b.Height)), true
				break
			}
		}
		if !found {
			return image.Rectangle{}, fmt.Errorf("display %q: %w", id, errdefs.ErrInvalidArgument)
		}
	}
	if rg := opts.GetRegion(); rg != nil {
		r := image.Rect(int(rg.X), int(rg.Y), int(rg.X)+int(rg.Width), int(rg.Y)+int(rg.Height))
		if r.Empty() || !r.In(bounds) {
			return image.Rectangle{}, fmt.Errorf("region %v outside %v: %w", r, bounds, errdefs.ErrInvalidArgument)
		}
		return r, nil
	}
	return bounds, nil
}

// Capture captures and encodes one frame. When nothing was damaged since the last capture with the same
// options (and, with the cursor drawn, the cursor neither moved nor changed), it returns that frame again with
// unchanged true. The returned Image is shared with the cache: callers must not modify it.
func (s *Screen) Capture(ctx context.Context, opts *agentv1.ScreenshotOptions) (*agentv1.Image, bool, uint64, error) {
	r, err := s.Region(opts)
	if err != nil {
		return nil, false, 0, err
	}
	key := frameKey{region: r, format: opts.GetFormat(), quality: opts.GetQuality(), maxEdge: opts.GetMaxEdge(),
		cursor: opts.GetIncludeCursor()}
	if key.format == agentv1.ImageFormat_IMAGE_FORMAT_UNSPECIFIED {
		key.format = agentv1.ImageFormat_IMAGE_FORMAT_PNG
	}
	var cookie xfixes.GetCursorImageCookie
	if key.cursor {
		cookie = xfixes.GetCursorImage(s.conn) // in flight while we sync
	}
	seq, err := s.Seq(ctx)
	if err != nil {
		return nil, false, 0, fmt.Errorf("screen: %w: %w", err, errdefs.ErrUnavailable)
	}
	var cur *xfixes.GetCursorImageReply
	if key.cursor {
		if cur, err = cookie.Reply(); err != nil {
			return nil, false, 0, fmt.Errorf("cursor image: %w", err)
		}
	}
	s.mu.Lock()
	f := s.frames[key]
	s.mu.Unlock()
	if f != nil && f.seq == seq && (cur == nil || (cur.X == f.curX && cur.Y == f.curY && cur.CursorSerial == f.curSerial)) {
		return f.img, true, seq, nil
	}

	var enc *encode.Cache
	if f != nil {
		if enc = f.enc; enc == nil {
			enc = new(encode.Cache)
		}
	}
	img, err := s.render(r, key, cur, enc, seq)
	if err != nil {
		return nil, false, 0, err
	}
	f = &frame{img: img, seq: seq, enc: enc}
	if cur != nil {
		f.curX, f.curY, f.curSerial = cur.X, cur.Y, cur.CursorSerial
	}
	s.mu.Lock()
	if len(s.frames) >= maxCachedFrames {
		for k := range s.frames { // evict any one; the cache only saves re-encoding
			delete(s.frames, k)
			break
		}
	}
	s.frames[key] = f
	s.mu.Unlock()
	return img, false, seq, nil
}

// render grabs r, draws the cursor, scales and encodes (through enc when not nil). Without cursor and
// scaling, the encoder reads the captured pixels where the X server put them (the shared memory segment),
// with no conversion or copy, and the damage recorded since the cached frame's seq tells enc which bands to
// look at. seq is the frame sequence read before the grab.
func (s *Screen) render(r image.Rectangle, key frameKey, cur *xfixes.GetCursorImageReply, enc *encode.Cache, seq uint64) (*agentv1.Image, error) {
	w, h, scale := scaledSize(r.Dx(), r.Dy(), int(key.maxEdge))
	var data []byte
	// The damage hint is for the pixels as captured: with a cursor drawn in or scaling, the cache compares.
	var hint encode.Hint
	if enc != nil && cur == nil && scale == 1 {
		hint = encode.Hint{Tag: seq, Changed: s.changedSince(r)}
	}
	encodeFrame := func(p encode.Pixels) error {
		var err error
		if key.format == agentv1.ImageFormat_IMAGE_FORMAT_JPEG {
			data, err = enc.JPEG(p, int(key.quality), hint)
		} else {
			data, err = enc.PNG(p, hint)
		}
		if err != nil {
			return fmt.Errorf("encode: %w", err)
		}
		return nil
	}
	if cur == nil && scale == 1 {
		// With a damage hint, only the rows the encoder will read are fetched: after a small change, one or
		// two bands instead of the whole screen (a 4 MB copy by the X server for 1280x800).
		var reads func() ([]encode.Span, bool)
		if hint.Changed != nil {
			jpeg := key.format == agentv1.ImageFormat_IMAGE_FORMAT_JPEG
			reads = func() ([]encode.Span, bool) {
				return enc.Reads(jpeg, int(key.quality), r.Dx(), r.Dy(), encode.LayoutBGRX, hint)
			}
		}
		if err := s.grab.capture(r, reads, encodeFrame); err != nil {
			return nil, err
		}
	} else {
		px := getRGBA(r.Dx(), r.Dy())
		defer putRGBA(px)
		if err := s.grab.grab(r, px); err != nil {
			return nil, err
		}
		if cur != nil {
			overlayCursor(px, cur.CursorImage, int(cur.Width), int(cur.Height),
				int(cur.X)-int(cur.Xhot)-r.Min.X, int(cur.Y)-int(cur.Yhot)-r.Min.Y)
		}
		out := px
		if scale != 1 {
			out = getRGBA(w, h)
			defer putRGBA(out)
			downscale(out, px)
		}
		if err := encodeFrame(encode.FromRGBA(out)); err != nil {
			return nil, err
		}
	}
	return &agentv1.Image{
		Format: key.format,
		Width:  int32(w),
		Height: int32(h),
		Scale:  scale,
		Region: &agentv1.Rect{X: int32(r.Min.X), Y: int32(r.Min.Y), Width: int32(r.Dx()), Height: int32(r.Dy())},
		Data:   data,
	}, nil
}
