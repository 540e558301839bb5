package encode

// DefaultJPEGQuality is used when the caller asks for quality 0.
const DefaultJPEGQuality = 80

// JPEG encodes p as a baseline JPEG (YCbCr 4:2:0) at quality 1..100 (0 means DefaultJPEGQuality).
func JPEG(p Pixels, quality int) ([]byte, error) {
	if !p.valid() {
		return nil, errEmpty
	}
	return encodeJPEG(p, jpegQuality(quality))
}

// jpegQuality maps a requested quality to 1..100 (0: DefaultJPEGQuality).
func jpegQuality(q int) int {
	if q <= 0 {
		return DefaultJPEGQuality
	}
	return min(q, 100)
}
