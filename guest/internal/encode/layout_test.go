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

func TestSplitRowsRefusesGarbage(t *testing.T) {
	for _, b := range [][]byte{nil, {0xff, 0xd8}, {0xff, 0xd8, 0xff, 0xd9}, []byte("not a jpeg at all"),
		{0xff, 0xd8, 0xff, 0xc0, 0, 1, 0xff, 0xd9}, {0xff, 0xd8, 0xff, 0xda, 0, 2, 0xff, 0xd9}} {
		if _, _, err := splitRows(b, 1); err == nil {
			t.Errorf("splitRows(%x): no error", b)
		}
	}
}
