package encode

import (
	"bytes"
	"image"
	"image/png"
	"testing"
)

// toBGRX lays img out as an X server does (B, G, R, garbage), with padding at the end of each row so the
// stride differs from the width.
func toBGRX(img *image.RGBA, pad int) Pixels {
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	stride := 4*w + pad
	pix := make([]byte, stride*h)
	for y := range h {
		for x := range w {
			s := img.Pix[y*img.Stride+4*x:]
			d := pix[y*stride+4*x:]
			d[0], d[1], d[2], d[3] = s[2], s[1], s[0], uint8(x*7+y) // the unused byte is not alpha
		}
	}
	return Pixels{Pix: pix, Stride: stride, Width: w, Height: h, Layout: LayoutBGRX}
}

func TestPNGFromBGRXBitExact(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{1, 1}, {5, 3}, {300, 2}, {640, 401}, {1280, 800}} {
		src := testImage(sz.w, sz.h, uint64(sz.w+sz.h))
		data, err := PNG(toBGRX(src, 12))
		if err != nil {
			t.Fatalf("%dx%d: %v", sz.w, sz.h, err)
		}
		m, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%dx%d: decode: %v", sz.w, sz.h, err)
		}
		if !bytes.Equal(toRGBA(t, m).Pix, src.Pix) {
			t.Errorf("%dx%d: decoded pixels differ from the source", sz.w, sz.h)
		}
	}
}

func TestStripeRows(t *testing.T) {
	tests := []struct {
		w, h, n, want int
	}{
		{1280, 800, 2, 400},
		{1280, 800, 1, 800},   // one worker: no split
		{1280, 200, 2, 200},   // too small to split
		{1280, 801, 2, 416},   // rounded up to the MCU height
		{1920, 1080, 4, 272},  // 1080/4 = 270 -> 272
		{1280, 4000, 2, 2000}, // fits the restart interval (80 MCUs * 125 rows)
		{32767, 2000, 2, 496}, // 2048 MCUs per row: at most 31 MCU rows per interval
	}
	for _, tc := range tests {
		got := stripeRows(tc.w, tc.h, tc.n)
		if got != tc.want {
			t.Errorf("stripeRows(%d, %d, %d) = %d, want %d", tc.w, tc.h, tc.n, got, tc.want)
		}
		if got != tc.h && (got%mcuSize != 0 || mcusPerRow(tc.w)*got/mcuSize > maxRestartInterval) {
			t.Errorf("stripeRows(%d, %d, %d) = %d: not a valid stripe height", tc.w, tc.h, tc.n, got)
		}
	}
}

func TestScanJPEGRefusesGarbage(t *testing.T) {
	for _, b := range [][]byte{nil, {0xff, 0xd8}, {0xff, 0xd8, 0xff, 0xd9}, []byte("not a jpeg at all"),
		{0xff, 0xd8, 0xff, 0xc0, 0, 1, 0xff, 0xd9}, {0xff, 0xd8, 0xff, 0xda, 0, 2, 0xff, 0xd9}} {
		if _, err := scanJPEG(b); err == nil {
			t.Errorf("scanJPEG(%x): no error", b)
		}
	}
}
