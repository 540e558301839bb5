//go:build !cgo

package encode

import (
	"bytes"
	"image"
	"image/jpeg"
)

// JPEGEncoder names the JPEG implementation compiled in.
const JPEGEncoder = "image/jpeg"

func encodeJPEG(img *image.RGBA, quality int) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(img.Bounds().Dx() * img.Bounds().Dy() / 4)
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
