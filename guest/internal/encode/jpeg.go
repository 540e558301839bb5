package encode

// DefaultJPEGQuality is used when the caller asks for quality 0.
const DefaultJPEGQuality = 80

// JPEG encodes p as a baseline JPEG (YCbCr 4:2:0) at quality 1..100 (0 means DefaultJPEGQuality).
func JPEG(p Pixels, quality int) ([]byte, error) {
	if !p.valid() {
		return nil, errEmpty
	}
	if quality <= 0 {
		quality = DefaultJPEGQuality
	}
	if quality > 100 {
		quality = 100
	}
	return encodeJPEG(p, quality)
}
