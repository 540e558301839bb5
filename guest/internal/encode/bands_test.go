package encode

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"testing"
)

// paint fills a w x h rectangle of img at x, y with one colour.
func paint(img *image.RGBA, x, y, w, h int, c [3]byte) {
	for yy := y; yy < y+h && yy < img.Rect.Dy(); yy++ {
		for xx := x; xx < x+w && xx < img.Rect.Dx(); xx++ {
			i := img.PixOffset(xx, yy)
			copy(img.Pix[i:i+3], c[:])
		}
	}
}

// encoders are the two formats through a cache and without one.
var encoders = []struct {
	name   string
	cached func(c *Cache, p Pixels) ([]byte, error)
	fresh  func(p Pixels) ([]byte, error)
	rows   int
}{
	{"png", func(c *Cache, p Pixels) ([]byte, error) { return c.PNG(p, Hint{}) }, PNG, pngBandRows},
	{"jpeg", func(c *Cache, p Pixels) ([]byte, error) { return c.JPEG(p, 80, Hint{}) },
		func(p Pixels) ([]byte, error) { return encodeJPEGRows(p, 80, nil, Hint{}) }, mcuSize},
}

// TestCacheMatchesFreshEncode changes a frame step by step (a small square, a band boundary, a whole
// repaint, the last short band, a new size, the other layout) and checks after each step that the encode
// through the cache is byte for byte the fresh encode of the same pixels, that it decodes, and that it
// re-encoded only the bands that changed.
func TestCacheMatchesFreshEncode(t *testing.T) {
	for _, enc := range encoders {
		if enc.name == "jpeg" && !stripedJPEG {
			continue
		}
		t.Run(enc.name, func(t *testing.T) {
			var c Cache
			img := testImage(200, 300, 1)
			r := enc.rows
			bands := (300 + r - 1) / r
			steps := []struct {
				name   string
				change func()
				reused int
			}{
				{"first frame", func() {}, 0},
				{"unchanged", func() {}, bands},
				{"square in band 1", func() { paint(img, 50, r+3, 8, 8, [3]byte{255, 0, 255}) }, bands - 1},
				{"across bands 0 and 1", func() { paint(img, 10, r-2, 4, 4, [3]byte{0, 255, 0}) }, bands - 2},
				{"one pixel in the last band", func() { paint(img, 199, 299, 1, 1, [3]byte{1, 2, 3}) }, bands - 1},
				{"whole repaint", func() { img = testImage(200, 300, 2) }, 0},
				{"new size", func() { img = testImage(200, 290, 2) }, 0},
			}
			for _, st := range steps {
				st.change()
				p := FromRGBA(img)
				got, err := enc.cached(&c, p)
				if err != nil {
					t.Fatalf("%s: %v", st.name, err)
				}
				want, err := enc.fresh(p)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s: cached encode (%d bytes) differs from a fresh one (%d bytes)", st.name, len(got), len(want))
				}
				if enc.name == "png" {
					m, err := png.Decode(bytes.NewReader(got))
					if err != nil {
						t.Fatalf("%s: decode: %v", st.name, err)
					}
					if !bytes.Equal(toRGBA(t, m).Pix, img.Pix) {
						t.Errorf("%s: decoded pixels differ from the source", st.name)
					}
				} else if _, err := jpeg.Decode(bytes.NewReader(got)); err != nil {
					t.Fatalf("%s: decode: %v", st.name, err)
				}
				reused, n := c.Reused()
				if st.name == "new size" {
					bands = (290 + r - 1) / r
				}
				if reused != st.reused || n != bands {
					t.Errorf("%s: reused %d of %d bands, want %d of %d", st.name, reused, n, st.reused, bands)
				}
			}
			// The same pixels in the other layout are a new stream: nothing is reused.
			if _, err := enc.cached(&c, toBGRX(img, 4)); err != nil {
				t.Fatal(err)
			}
			if reused, _ := c.Reused(); reused != 0 {
				t.Errorf("other layout: reused %d bands, want 0", reused)
			}
		})
	}
}

// TestCacheQualityIsPartOfTheKey checks a JPEG of another quality is not built from the first one's bands.
func TestCacheQualityIsPartOfTheKey(t *testing.T) {
	if !stripedJPEG {
		t.Skip("this build encodes JPEG with image/jpeg, without stripes or a cache") // not a missing component
	}
	var c Cache
	p := FromRGBA(testImage(160, 200, 3))
	if _, err := c.JPEG(p, 80, Hint{}); err != nil {
		t.Fatal(err)
	}
	got, err := c.JPEG(p, 30, Hint{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := encodeJPEGRows(p, 30, nil, Hint{})
	if !bytes.Equal(got, want) {
		t.Error("quality 30 through a cache filled at quality 80 differs from a fresh quality 30 encode")
	}
	if reused, _ := c.Reused(); reused != 0 {
		t.Errorf("reused %d bands across qualities", reused)
	}
}

// BenchmarkCache encodes 1280x800 frames through a cache: "small" alternates two frames that differ in one
// 8x8 square (a caret, a hover), "full" alternates two different frames (every band changes).
func BenchmarkCache(b *testing.B) {
	a := testImage(1280, 800, 1)
	small := image.NewRGBA(a.Rect)
	copy(small.Pix, a.Pix)
	paint(small, 600, 400, 8, 8, [3]byte{255, 0, 255})
	full := testImage(1280, 800, 2)
	for _, enc := range encoders {
		for _, tc := range []struct {
			name  string
			other *image.RGBA
		}{{"small", small}, {"full", full}} {
			b.Run(fmt.Sprintf("%s-%s", enc.name, tc.name), func(b *testing.B) {
				var c Cache
				frames := []Pixels{FromRGBA(a), FromRGBA(tc.other)}
				i := 0
				for b.Loop() {
					if _, err := enc.cached(&c, frames[i%2]); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}

// TestCacheHint checks how a Cache uses a Hint: it asks with the tag of the frame it holds, trusts a band the
// hint rules out without comparing it (shown by a hint that lies), and compares everything when the frame it
// holds came without a hint.
func TestCacheHint(t *testing.T) {
	for _, enc := range encoders {
		if enc.name == "jpeg" && !stripedJPEG {
			continue
		}
		t.Run(enc.name, func(t *testing.T) {
			img := testImage(64, 96, 1)
			encode := func(c *Cache, h Hint) []byte {
				t.Helper()
				var b []byte
				var err error
				if enc.name == "png" {
					b, err = c.PNG(FromRGBA(img), h)
				} else {
					b, err = c.JPEG(FromRGBA(img), 80, h)
				}
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			var sinces []uint64
			// firstBand says the first band changed, and nothing else.
			firstBand := func(since uint64, y0, y1 int) bool { sinces = append(sinces, since); return y0 < enc.rows }
			nothing := func(since uint64, y0, y1 int) bool { return false }

			var c Cache
			encode(&c, Hint{Tag: 7, Changed: firstBand}) // first frame: every band encoded, tag 7 kept
			if len(sinces) != 0 {
				t.Errorf("the hint was asked %v with nothing cached", sinces)
			}
			paint(img, 0, 0, 4, 4, [3]byte{9, 9, 9})
			got := encode(&c, Hint{Tag: 9, Changed: firstBand})
			if want, _ := enc.fresh(FromRGBA(img)); !bytes.Equal(got, want) {
				t.Error("a change inside the hinted band: output differs from a fresh encode")
			}
			if len(sinces) == 0 || sinces[0] != 7 {
				t.Errorf("the hint was asked since %v, want 7 (the cached frame's tag)", sinces)
			}
			if reused, n := c.Reused(); reused != n-1 {
				t.Errorf("reused %d of %d bands, want all but the first", reused, n)
			}

			// A change the hint rules out is not looked for: the band comes from the cache.
			before := encode(&c, Hint{Tag: 10, Changed: nothing})
			paint(img, 0, 90, 4, 4, [3]byte{200, 0, 0})
			if got := encode(&c, Hint{Tag: 11, Changed: nothing}); !bytes.Equal(got, before) {
				t.Error("a band the hint ruled out was encoded again")
			}
			// After a frame without a hint the cache's frame has no tag: everything is compared.
			paint(img, 0, 0, 4, 4, [3]byte{1, 1, 1})
			encode(&c, Hint{})
			paint(img, 0, 90, 4, 4, [3]byte{0, 200, 0})
			got = encode(&c, Hint{Tag: 12, Changed: nothing})
			if want, _ := enc.fresh(FromRGBA(img)); !bytes.Equal(got, want) {
				t.Error("an untagged cache trusted the hint")
			}
		})
	}
}

// TestCacheReads checks Cache.Reads against what the encode then reads: with every row outside the spans it
// returns overwritten by garbage, the encode through the cache is byte for byte the fresh encode of the real
// frame; Pixels lacking a band the encode needs fail with ErrPartial and leave the cache as it was.
func TestCacheReads(t *testing.T) {
	for _, enc := range encoders {
		if enc.name == "jpeg" && !stripedJPEG {
			continue
		}
		t.Run(enc.name, func(t *testing.T) {
			const w, h = 96, 200 // the last band is short for both band heights
			jpg := enc.name == "jpeg"
			img := testImage(w, h, 1)
			var c Cache
			tag := uint64(1)
			var damaged []int // rows painted since the last encode
			hint := func() Hint {
				d := damaged
				return Hint{Tag: tag, Changed: func(since uint64, y0, y1 int) bool {
					for _, y := range d {
						if y0 <= y && y < y1 {
							return true
						}
					}
					return false
				}}
			}
			// encode asks Reads, hands the encode a copy of the frame with garbage outside the spans, and checks
			// the result against a fresh encode of the real frame.
			encode := func(step string, hn Hint, wantAll bool, wantRows int) {
				t.Helper()
				spans, all := c.Reads(jpg, 80, w, h, LayoutRGBA, hn)
				if all != wantAll {
					t.Fatalf("%s: Reads all = %v, want %v (spans %v)", step, all, wantAll, spans)
				}
				rows := 0
				for _, s := range spans {
					rows += s.Y1 - s.Y0
				}
				if !all && rows != wantRows {
					t.Errorf("%s: Reads asked for %d rows (%v), want %d", step, rows, spans, wantRows)
				}
				p := FromRGBA(img)
				if !all {
					partial := image.NewRGBA(img.Rect)
					for i := range partial.Pix {
						partial.Pix[i] = byte(i * 7)
					}
					for _, s := range spans {
						copy(partial.Pix[s.Y0*partial.Stride:s.Y1*partial.Stride], img.Pix[s.Y0*img.Stride:s.Y1*img.Stride])
					}
					p = FromRGBA(partial)
					p.Rows = spans
				}
				var got []byte
				var err error
				if jpg {
					got, err = c.JPEG(p, 80, hn)
				} else {
					got, err = c.PNG(p, hn)
				}
				if err != nil {
					t.Fatalf("%s: %v", step, err)
				}
				if want, _ := enc.fresh(FromRGBA(img)); !bytes.Equal(got, want) {
					t.Errorf("%s: encode from the rows Reads asked for differs from a fresh encode", step)
				}
				tag++
				damaged = nil
			}
			encode("first frame", hint(), true, 0)
			encode("unchanged", hint(), false, 0)
			paint(img, 10, 20, 4, 4, [3]byte{200, 0, 0})
			damaged = []int{20, 23}
			encode("one band", hint(), false, enc.rows)
			paint(img, 0, 0, 2, 2, [3]byte{0, 200, 0})
			paint(img, 0, h-1, 2, 1, [3]byte{0, 0, 200})
			damaged = []int{0, h - 1}
			lastBand := h - (h-1)/enc.rows*enc.rows
			encode("first and last bands", hint(), false, enc.rows+lastBand)
			encode("no hint: every band compared", Hint{}, true, 0)
			encode("a hint after a frame without one: every band compared", hint(), true, 0)

			// A band the encode needs that the pixels lack: ErrPartial, and the cache still answers as before.
			paint(img, 30, 50, 3, 3, [3]byte{7, 7, 7})
			damaged = []int{50}
			h1 := hint()
			p := FromRGBA(img)
			p.Rows = []Span{{0, enc.rows}}
			var err error
			if jpg {
				_, err = c.JPEG(p, 80, h1)
			} else {
				_, err = c.PNG(p, h1)
			}
			if !errors.Is(err, ErrPartial) {
				t.Fatalf("encode without the damaged band: err = %v, want ErrPartial", err)
			}
			band := 50 / enc.rows * enc.rows
			encode("after ErrPartial", h1, false, min(band+enc.rows, h)-band)

			// Another kind of frame than the cached one: every row.
			if _, all := c.Reads(!jpg, 80, w, h, LayoutRGBA, hint()); !all {
				t.Error("Reads for the other format did not ask for every row")
			}
			if _, all := c.Reads(jpg, 80, w, h, LayoutBGRX, hint()); !all {
				t.Error("Reads for the other layout did not ask for every row")
			}
		})
	}
}
