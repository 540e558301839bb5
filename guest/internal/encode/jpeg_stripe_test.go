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

// TestJPEGStripedDecodes encodes images split into many stripes (up to more than eight, so the restart
// markers wrap), from both layouts, and checks the result with image/jpeg and with ImageMagick.
func TestJPEGStripedDecodes(t *testing.T) {
	for _, tc := range []struct{ w, h, workers int }{{203, 300, 2}, {640, 1300, 9}, {1280, 800, 2}, {97, 2050, 16}} {
		src := testImage(tc.w, tc.h, 5)
		for _, p := range []Pixels{FromRGBA(src), toBGRX(src, 8)} {
			name := fmt.Sprintf("%dx%d/%d stripes/layout %d", tc.w, tc.h, tc.workers, p.Layout)
			rows := stripeRows(p.Width, p.Height, tc.workers)
			var parts [][]byte
			for y := 0; y < p.Height; y += rows {
				sub := p
				sub.Pix = p.Pix[y*p.Stride:]
				sub.Height = min(rows, p.Height-y)
				b, err := encodeStripe(sub, 80)
				if err != nil {
					t.Fatal(err)
				}
				parts = append(parts, b)
			}
			data, err := splice(parts, p.Height, mcusPerRow(p.Width)*rows/mcuSize)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			whole, err := encodeStripe(p, 80)
			if err != nil {
				t.Fatal(err)
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
	checkJPEG(t, "JPEG 1280x800", data, whole)
}

// checkJPEG checks a spliced JPEG against the same image encoded in one piece: the DCT coefficients are the
// same (stripes are cut at MCU rows, chroma is subsampled within each 2x2 block), so image/jpeg and
// ImageMagick (libjpeg) must decode both to identical pixels. ImageMagick's identify and convert also refuse
// a broken restart marker sequence (-regard-warnings).
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
