//go:build !cgo

package encode

import (
	"bytes"
	"image/jpeg"
)

// JPEGEncoder names the JPEG implementation compiled in.
const JPEGEncoder = "image/jpeg"

// stripedJPEG says whether JPEGs are encoded in stripes (which a Cache can reuse); image/jpeg cannot.
const stripedJPEG = false

// encodeJPEGRows is never called without stripes.
func encodeJPEGRows(p Pixels, quality int, _ *Cache, _ Hint) ([]byte, error) {
	return encodeJPEG(p, quality)
}

func encodeJPEG(p Pixels, quality int) ([]byte, error) {
	if !p.holds(0, p.Height) {
		return nil, ErrPartial
	}
	var buf bytes.Buffer
	buf.Grow(p.Width * p.Height / 4)
	if err := jpeg.Encode(&buf, p.toRGBA(), &jpeg.Options{Quality: quality}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
