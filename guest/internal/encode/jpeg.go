package encode

import "image"

// DefaultJPEGQuality is used when the caller asks for quality 0.
const DefaultJPEGQuality = 80

// JPEG encodes img as a baseline JPEG (4:2:0) at quality 1..100 (0 means DefaultJPEGQuality). Alpha is
// dropped.
func JPEG(img *image.RGBA, quality int) ([]byte, error) {
	b := img.Bounds()
	if b.Dx() <= 0 || b.Dy() <= 0 {
		return nil, errEmpty
	}
	if quality <= 0 {
		quality = DefaultJPEGQuality
	}
	if quality > 100 {
		quality = 100
	}
	return encodeJPEG(img, quality)
}
