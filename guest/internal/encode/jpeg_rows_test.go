//go:build cgo

package encode

import (
	"bytes"
	"fmt"
	"image/jpeg"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"glovebox.dev/shared/testenv"
)

// TestJPEGRowsJoin encodes images in runs of MCU rows cut in several ways (one run, even splits, single
// rows, uneven runs, more than eight rows so the restart markers wrap), from both layouts, and checks that the
// joined result is byte for byte what one libjpeg call writes for the whole image, and that image/jpeg and
// ImageMagick decode it.
func TestJPEGRowsJoin(t *testing.T) {
	for _, tc := range []struct {
		w, h int
		runs []int // MCU rows per run, in order; the last run takes the rest
	}{
		{203, 300, []int{19}},
		{640, 1300, []int{40, 41}},
		{1280, 800, []int{1, 1, 1, 10, 2}},
		{97, 2050, []int{3, 100, 7}},
		{16, 16, []int{1}},
		{17, 17, []int{1}},
	} {
		src := testImage(tc.w, tc.h, 5)
		for _, p := range []Pixels{FromRGBA(src), toBGRX(src, 8)} {
			name := fmt.Sprintf("%dx%d/runs %v/layout %d", tc.w, tc.h, tc.runs, p.Layout)
			rows := (p.Height + mcuSize - 1) / mcuSize
			var header jpegHeader
			var segs [][]byte
			for i, r := 0, 0; r < rows; i++ {
				n := rows - r
				if i < len(tc.runs) {
					n = min(tc.runs[i], n)
				}
				sub := p
				sub.Pix = p.Pix[r*mcuSize*p.Stride:]
				sub.Height = min(n*mcuSize, p.Height-r*mcuSize)
				b, err := encodeStripe(sub, 80)
				if err != nil {
					t.Fatal(err)
				}
				h, s, err := splitRows(b, n)
				if err != nil {
					t.Fatalf("%s: run at row %d: %v", name, r, err)
				}
				header, segs = h, append(segs, s...)
				r += n
			}
			data := joinRows(header, p.Height, segs)
			whole, err := encodeStripe(p, 80)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(data, whole) {
				t.Errorf("%s: joined rows (%d bytes) differ from one encode (%d bytes)", name, len(data), len(whole))
			}
			checkJPEG(t, name, data, whole)
		}
	}
	// And through the public entry point with the machine's CPUs.
	src := testImage(1280, 800, 9)
	data, err := JPEG(toBGRX(src, 0), 80)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := encodeStripe(FromRGBA(src), 80)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, whole) {
		t.Error("JPEG 1280x800: differs from one encode of the whole image")
	}
	checkJPEG(t, "JPEG 1280x800", data, whole)
}

// checkJPEG checks a joined JPEG against the same image encoded in one piece: image/jpeg and ImageMagick
// (libjpeg) must decode both to identical pixels. ImageMagick's identify and convert also refuse a broken
// restart marker sequence (-regard-warnings).
func checkJPEG(t *testing.T, name string, data, whole []byte) {
	t.Helper()
	m, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: image/jpeg: %v", name, err)
	}
	ref, err := jpeg.Decode(bytes.NewReader(whole))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ref.Bounds(), m.Bounds()); diff != "" {
		t.Fatalf("%s: bounds (-want +got):\n%s", name, diff)
	}
	if !bytes.Equal(toRGBA(t, m).Pix, toRGBA(t, ref).Pix) {
		t.Errorf("%s: image/jpeg decodes the spliced stripes differently from one piece", name)
	}
	testenv.NeedCommands(t, "identify", "convert")
	dir := t.TempDir()
	f, g := filepath.Join(dir, "spliced.jpg"), filepath.Join(dir, "whole.jpg")
	if err := os.WriteFile(f, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(g, whole, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("identify", "-regard-warnings", "-format", "%wx%h %[jpeg:sampling-factor]", f).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: identify: %v: %s", name, err, out)
	}
	want := fmt.Sprintf("%dx%d 2x2,1x1,1x1", ref.Bounds().Dx(), ref.Bounds().Dy())
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("%s: identify says %q, want %q", name, got, want)
	}
	a, err := exec.Command("convert", "-regard-warnings", f, "rgb:-").Output()
	if err != nil {
		t.Fatalf("%s: convert: %v", name, err)
	}
	b, err := exec.Command("convert", "-regard-warnings", g, "rgb:-").Output()
	if err != nil {
		t.Fatalf("%s: convert: %v", name, err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("%s: ImageMagick decodes the spliced stripes differently from one piece", name)
	}
}
