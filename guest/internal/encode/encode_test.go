package encode

import (
	"bytes"
	"hash/adler32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testImage returns an opaque image with smooth areas, sharp text-like edges and noise, so every filter
// and deflate path is exercised.
func testImage(w, h int, seed uint64) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(seed, 7))
	for y := range h {
		for x := range w {
			i := img.PixOffset(x, y)
			switch {
			case (x/8+y/8)%5 == 0:
				img.Pix[i], img.Pix[i+1], img.Pix[i+2] = uint8(r.Uint32()), uint8(r.Uint32()), uint8(r.Uint32())
			case (x/3)%7 == 0:
				img.Pix[i], img.Pix[i+1], img.Pix[i+2] = 0, 0, 0
			default:
				img.Pix[i], img.Pix[i+1], img.Pix[i+2] = uint8(x), uint8(y), uint8(x+y)
			}
			img.Pix[i+3] = 255
		}
	}
	return img
}

func toRGBA(t *testing.T, m image.Image) *image.RGBA {
	t.Helper()
	b := m.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := range b.Dy() {
		for x := range b.Dx() {
			out.Set(x, y, color.RGBAModel.Convert(m.At(b.Min.X+x, b.Min.Y+y)))
		}
	}
	return out
}

func TestPNGDecodesBitExact(t *testing.T) {
	sizes := []struct{ w, h int }{
		{1, 1}, {3, 7}, {1, 300}, {300, 1}, {64, 64},
		{17, pngBandRows*runtime.NumCPU() + 1},   // a last band of one row
		{33, pngBandRows - 1}, {33, pngBandRows}, // one band
		{33, pngBandRows*3 + 2},
		{640, 401}, {1280, 800},
	}
	for _, sz := range sizes {
		src := testImage(sz.w, sz.h, uint64(sz.w*sz.h))
		data, err := PNG(FromRGBA(src))
		if err != nil {
			t.Fatalf("%dx%d: %v", sz.w, sz.h, err)
		}
		m, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%dx%d: decode: %v", sz.w, sz.h, err)
		}
		got := toRGBA(t, m)
		if !bytes.Equal(got.Pix, src.Pix) {
			t.Errorf("%dx%d: decoded pixels differ from the source", sz.w, sz.h)
		}
	}
}

func TestPNGSubImage(t *testing.T) {
	src := testImage(300, 200, 3)
	sub := src.SubImage(image.Rect(13, 21, 250, 190)).(*image.RGBA)
	data, err := PNG(FromRGBA(sub))
	if err != nil {
		t.Fatal(err)
	}
	m, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sub.Bounds().Size(), m.Bounds().Size()); diff != "" {
		t.Fatalf("size (-want +got):\n%s", diff)
	}
	for y := range sub.Bounds().Dy() {
		for x := range sub.Bounds().Dx() {
			if a, b := color.RGBAModel.Convert(m.At(x, y)), sub.At(13+x, 21+y); a != b {
				t.Fatalf("pixel %d,%d: got %v want %v", x, y, a, b)
			}
		}
	}
}

func TestEmptyImages(t *testing.T) {
	empty := image.NewRGBA(image.Rect(0, 0, 0, 5))
	if _, err := PNG(FromRGBA(empty)); err == nil {
		t.Error("PNG of an empty image: no error")
	}
	if _, err := JPEG(FromRGBA(empty), 80); err == nil {
		t.Error("JPEG of an empty image: no error")
	}
}

func TestAdler32Combine(t *testing.T) {
	data := make([]byte, 200000)
	for i := range data {
		data[i] = uint8(i*7 + i/300)
	}
	for _, cut := range []int{0, 1, 65520, 65521, 65522, 100000, 199999, 200000} {
		got := adler32Combine(adler32.Checksum(data[:cut]), adler32.Checksum(data[cut:]), len(data)-cut)
		if want := adler32.Checksum(data); got != want {
			t.Errorf("cut %d: got %08x want %08x", cut, got, want)
		}
	}
}

func TestJPEGCloseToSource(t *testing.T) {
	// Flat blocks of colour with a gradient: JPEG must keep them within a small error.
	src := image.NewRGBA(image.Rect(0, 0, 203, 117))
	for y := range 117 {
		for x := range 203 {
			c := color.RGBA{uint8(40 + x/2), uint8(200 - y), 90, 255}
			if x < 100 && y < 50 {
				c = color.RGBA{255, 0, 0, 255}
			}
			src.SetRGBA(x, y, c)
		}
	}
	for _, q := range []int{0, 50, 80, 100} {
		data, err := JPEG(FromRGBA(src), q)
		if err != nil {
			t.Fatalf("quality %d (%s): %v", q, JPEGEncoder, err)
		}
		m, err := jpeg.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("quality %d: decode: %v", q, err)
		}
		if diff := cmp.Diff(src.Bounds(), m.Bounds()); diff != "" {
			t.Fatalf("bounds (-want +got):\n%s", diff)
		}
		var sum, n float64
		for y := 2; y < 115; y++ {
			for x := 2; x < 201; x++ {
				a := src.RGBAAt(x, y)
				r, g, b, _ := m.At(x, y).RGBA()
				sum += absf(float64(a.R)-float64(r>>8)) + absf(float64(a.G)-float64(g>>8)) + absf(float64(a.B)-float64(b>>8))
				n += 3
			}
		}
		if mean := sum / n; mean > 6 {
			t.Errorf("quality %d: mean abs error %.2f > 6", q, mean)
		}
		r, g, b, _ := m.At(30, 20).RGBA()
		if r>>8 < 230 || g>>8 > 25 || b>>8 > 25 {
			t.Errorf("quality %d: red block decoded as %d,%d,%d", q, r>>8, g>>8, b>>8)
		}
	}
}

// TestBuildsWithAndWithoutCgo checks that both JPEG implementations compile, so a pure-Go agent stays
// buildable.
func TestBuildsWithAndWithoutCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package twice")
	}
	for _, cgo := range []string{"0", "1"} {
		cmd := exec.Command("go", "test", "-c", "-o", filepath.Join(t.TempDir(), "encode.test"), ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED="+cgo)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("CGO_ENABLED=%s: %v\n%s", cgo, err, out)
		}
	}
}

func absf(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

func BenchmarkPNG(b *testing.B) {
	img := testImage(1280, 800, 1)
	b.SetBytes(int64(len(img.Pix)))
	for b.Loop() {
		if _, err := PNG(FromRGBA(img)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPNGStdlib(b *testing.B) {
	img := testImage(1280, 800, 1)
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	b.SetBytes(int64(len(img.Pix)))
	for b.Loop() {
		var buf bytes.Buffer
		if err := enc.Encode(&buf, img); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJPEG(b *testing.B) {
	img := testImage(1280, 800, 1)
	b.SetBytes(int64(len(img.Pix)))
	for b.Loop() {
		if _, err := JPEG(FromRGBA(img), 80); err != nil {
			b.Fatal(err)
		}
	}
}
