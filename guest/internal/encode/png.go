// Package encode turns RGBA screen buffers into PNG and JPEG bytes quickly: PNG with one fixed row filter
// and level-1 deflate split over every CPU, JPEG through libjpeg-turbo when cgo is available (image/jpeg
// otherwise).
package encode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/adler32"
	"hash/crc32"
	"image"
	"runtime"
	"sync"

	"github.com/klauspost/compress/flate"
)

// minRowsPerSegment keeps small images in one deflate segment: splitting costs a sync flush (5 bytes) and a
// goroutine per segment, which only pays off on larger images.
const minRowsPerSegment = 64

// pngSignature starts every PNG file.
var pngSignature = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}

// errEmpty is returned for images without pixels, which neither format can hold.
var errEmpty = errors.New("image has no pixels")

// segment is the compressed form of a run of rows, independent of the other segments.
type segment struct {
	buf    bytes.Buffer
	raw    []byte // filtered rows, reused
	adler  uint32
	rawLen int
	err    error
}

var segmentPool = sync.Pool{New: func() any { return new(segment) }}

var flatePool = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

// PNG encodes img as an 8-bit RGB PNG (alpha is dropped: screen pixels are opaque). Rows are filtered with
// the Up filter, split into one segment per CPU and each segment deflated independently at level 1 and ended
// with a sync flush, so the concatenation is one valid zlib stream whose Adler-32 is combined from the
// segments'. The result decodes bit-exact with image/png.
func PNG(img *image.RGBA) ([]byte, error) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= 0 || h <= 0 {
		return nil, errEmpty
	}
	n := runtime.NumCPU()
	if max := h / minRowsPerSegment; n > max {
		n = max
	}
	if n < 1 {
		n = 1
	}
	segs := make([]*segment, n)
	var wg sync.WaitGroup
	for i := range n {
		y0, y1 := h*i/n, h*(i+1)/n
		s := segmentPool.Get().(*segment)
		segs[i] = s
		last := i == n-1
		if n == 1 {
			s.deflate(img, y0, y1, last)
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.deflate(img, y0, y1, last)
		}()
	}
	wg.Wait()
	defer func() {
		for _, s := range segs {
			segmentPool.Put(s)
		}
	}()

	size := 0
	for _, s := range segs {
		if s.err != nil {
			return nil, s.err
		}
		size += s.buf.Len()
	}
	out := make([]byte, 0, len(pngSignature)+25+12+2+size+4+12)
	out = append(out, pngSignature...)
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8] = 8  // bit depth
	ihdr[9] = 2  // color type: truecolor
	ihdr[10] = 0 // compression: deflate
	ihdr[11] = 0 // filter method 0
	ihdr[12] = 0 // no interlace
	out = appendChunk(out, "IHDR", ihdr[:])

	// IDAT: zlib header (deflate, 32K window, fastest), the segments, the combined Adler-32.
	idatLen := 2 + size + 4
	out = binary.BigEndian.AppendUint32(out, uint32(idatLen))
	start := len(out)
	out = append(out, "IDAT"...)
	out = append(out, 0x78, 0x01)
	adler := uint32(1)
	for _, s := range segs {
		out = append(out, s.buf.Bytes()...)
		adler = adler32Combine(adler, s.adler, s.rawLen)
	}
	out = binary.BigEndian.AppendUint32(out, adler)
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
	out = appendChunk(out, "IEND", nil)
	return out, nil
}

func appendChunk(out []byte, typ string, data []byte) []byte {
	out = binary.BigEndian.AppendUint32(out, uint32(len(data)))
	start := len(out)
	out = append(out, typ...)
	out = append(out, data...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
}

// deflate filters rows y0..y1 (relative to the image bounds) and compresses them. A segment that is not the
// last ends with a sync flush (byte aligned, not final); the last one closes the deflate stream.
func (s *segment) deflate(img *image.RGBA, y0, y1 int, last bool) {
	s.buf.Reset()
	s.err = nil
	b := img.Bounds()
	w := b.Dx()
	rowLen := 1 + 3*w
	s.rawLen = rowLen * (y1 - y0)
	if cap(s.raw) < s.rawLen {
		s.raw = make([]byte, s.rawLen)
	}
	raw := s.raw[:s.rawLen]
	for y := y0; y < y1; y++ {
		base := img.PixOffset(b.Min.X, b.Min.Y+y)
		cur := img.Pix[base : base+4*w]
		var prev []byte
		if y > 0 {
			pb := base - img.Stride
			prev = img.Pix[pb : pb+4*w]
		}
		filterUp(raw[(y-y0)*rowLen:(y-y0+1)*rowLen], cur, prev)
	}
	s.adler = adler32.Checksum(raw)
	fw := flatePool.Get().(*flate.Writer)
	defer flatePool.Put(fw)
	fw.Reset(&s.buf)
	if _, err := fw.Write(raw); err != nil {
		s.err = err
		return
	}
	if last {
		s.err = fw.Close()
	} else {
		s.err = fw.Flush()
	}
}

// filterUp writes one filtered row: the filter type byte, then each RGB byte minus the byte above it (the
// Up filter; the first row of the image has no row above and is written with filter None). It drops alpha.
func filterUp(dst, cur, prev []byte) {
	w := len(cur) / 4
	dst = dst[:1+3*w]
	if prev == nil {
		dst[0] = 0
		d := dst[1:]
		for x := 0; x < w; x++ {
			c := cur[4*x : 4*x+3 : 4*x+3]
			d[3*x], d[3*x+1], d[3*x+2] = c[0], c[1], c[2]
		}
		return
	}
	dst[0] = 2
	d := dst[1:]
	prev = prev[:len(cur)]
	for x := 0; x < w; x++ {
		c := cur[4*x : 4*x+3 : 4*x+3]
		p := prev[4*x : 4*x+3 : 4*x+3]
		d[3*x], d[3*x+1], d[3*x+2] = c[0]-p[0], c[1]-p[1], c[2]-p[2]
	}
}

// adler32Combine returns the Adler-32 of A||B from adler(A), adler(B) and len(B), as zlib's
// adler32_combine does.
func adler32Combine(a1, a2 uint32, len2 int) uint32 {
	const base = 65521
	rem := uint64(len2 % base)
	sum1 := uint64(a1 & 0xffff)
	sum2 := (rem * sum1) % base
	sum1 += uint64(a2&0xffff) + base - 1
	sum2 += uint64(a1>>16) + uint64(a2>>16) + base - rem
	if sum1 >= base {
		sum1 -= base
	}
	if sum1 >= base {
		sum1 -= base
	}
	if sum2 >= base<<1 {
		sum2 -= base << 1
	}
	if sum2 >= base {
		sum2 -= base
	}
	return uint32(sum2<<16 | sum1)
}
