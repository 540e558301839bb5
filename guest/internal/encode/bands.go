package encode

import (
	"bytes"
	"runtime"
	"sync"
	"sync/atomic"
)

// Images are cut into horizontal bands that are encoded independently, on every CPU, and joined: PNG bands
// are deflate segments ended by a sync flush, JPEG bands are MCU rows (mcuSize) between restart markers. A
// Cache keeps each band's encoded form with the pixels it came from, so the next frame re-encodes only the
// bands whose pixels changed: after a click or a few typed characters, most of a screen is byte for byte the
// same.

// parallelCompareBytes is how many bytes of pixels to compare make it worth waking another CPU for.
const parallelCompareBytes = 1 << 20

// pngBandRows is the height of a PNG band: small enough that a local change re-encodes little, large enough
// that a band's sync flush (5 bytes) and fresh deflate window cost little.
const pngBandRows = 16

// Cache keeps, for one stream of captures (same size, pixel layout, format and quality), the pixels of the
// previous frame and the encoded form of each of its bands. Its output is byte for byte what the same
// encode without a Cache produces. It holds a copy of the frame (4 bytes per pixel). The zero value is ready
// to use; a Cache used by a concurrent call is bypassed (that call encodes everything), never waited for.
type Cache struct {
	mu    sync.Mutex
	key   cacheKey
	prev  []byte // the previous frame, 4*width bytes per row
	parts []part
	// jpegHeader is the headers of the JPEG rows in parts.
	jpegHeader jpegHeader
	// tag is the Hint.Tag of the frame in prev, when tagged.
	tag    uint64
	tagged bool
	// reused counts the bands the last encode took from the cache.
	reused, bands int
}

// Hint tells a Cache which rows may differ from the frame it holds, so the others are reused without being
// compared. Changed(since, y0, y1) reports false only when rows y0..y1 are known to be the same as in the frame
// tagged since; Tag is the tag of the frame being encoded (the screen's damage sequence). The zero Hint knows
// nothing: every band is compared.
type Hint struct {
	Tag     uint64
	Changed func(since uint64, y0, y1 int) bool
}

// cacheKey is what must match for a band to be reused.
type cacheKey struct {
	jpeg    bool
	quality int
	w, h    int
	layout  Layout
}

// pngKey and jpegKey are the cache keys of a PNG and of a JPEG (quality already normalized) of a frame.
func pngKey(w, h int, layout Layout) cacheKey { return cacheKey{w: w, h: h, layout: layout} }

func jpegKey(quality, w, h int, layout Layout) cacheKey {
	return cacheKey{jpeg: true, quality: quality, w: w, h: h, layout: layout}
}

// part is one encoded band.
type part struct {
	data  []byte
	adler uint32 // PNG: Adler-32 of the band's filtered rows
	ok    bool   // data is the encoding of the band's rows in the cache's prev
}

// Reused reports how many of the bands of the last encode through c came from the cache, and how many bands
// there were.
func (c *Cache) Reused() (reused, bands int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reused, c.bands
}

// runFunc encodes the bands of rows y0..y1 of p, a run of consecutive bands, into dst (one part each).
type runFunc func(p Pixels, y0, y1 int, dst []part) error

// encodeBands cuts p into bands of rows rows, finds those that differ from the cache (all of them without
// one), and encodes them with fn on every CPU: each band on its own, or with runs set, runs of consecutive
// changed bands split evenly over the CPUs. The parts returned belong to the cache when there is one (locked
// by the caller): use them before unlocking it. When p holds only some rows (p.Rows) and a band it must read
// lies outside them, it fails with ErrPartial before changing anything.
func encodeBands(p Pixels, rows int, c *Cache, key cacheKey, hint Hint, runs bool, fn runFunc) ([]part, error) {
	n := (p.Height + rows - 1) / rows
	band := func(i int) (int, int) { return i * rows, min((i+1)*rows, p.Height) }
	dirty, compare := c.plan(key, n, rows, p.Height, hint)
	if p.Rows != nil {
		for i := range n {
			if dirty[i] && !p.holds(band(i)) {
				return nil, ErrPartial
			}
		}
		for _, i := range compare {
			if !p.holds(band(i)) {
				return nil, ErrPartial
			}
		}
	}
	var parts []part
	if c != nil {
		if c.key != key || len(c.parts) != n {
			c.key = key
			c.parts = make([]part, n)
			if size := 4 * p.Width * p.Height; cap(c.prev) >= size {
				c.prev = c.prev[:size]
			} else {
				c.prev = make([]byte, size)
			}
		}
		parts = c.parts
	} else {
		parts = make([]part, n)
	}
	// The bands to compare with the cached frame, on every CPU when there are many (a goroutine woken on
	// another CPU costs more than comparing a few bands).
	same := func(k int) {
		y0, y1 := band(compare[k])
		dirty[compare[k]] = !c.same(p, y0, y1)
	}
	if len(compare)*rows*p.Width*4 >= parallelCompareBytes {
		parallel(len(compare), same)
	} else {
		for k := range compare {
			same(k)
		}
	}
	changed := 0
	for _, d := range dirty {
		if d {
			changed++
		}
	}
	per := 1
	if runs {
		per = max(1, (changed+runtime.NumCPU()-1)/runtime.NumCPU())
	}
	var todo [][2]int
	for i := 0; i < n; {
		if !dirty[i] {
			i++
			continue
		}
		j := i + 1
		for j < n && dirty[j] && j-i < per {
			j++
		}
		todo = append(todo, [2]int{i, j})
		i = j
	}
	errs := make([]error, len(todo))
	parallel(len(todo), func(r int) {
		i0, i1 := todo[r][0], todo[r][1]
		for i := i0; i < i1; i++ {
			parts[i].ok = false
		}
		y0, _ := band(i0)
		_, y1 := band(i1 - 1)
		if errs[r] = fn(p, y0, y1, parts[i0:i1]); errs[r] != nil || c == nil {
			return
		}
		c.keep(p, y0, y1)
		for i := i0; i < i1; i++ {
			parts[i].ok = true
		}
	})
	if c != nil {
		c.reused, c.bands = n-changed, n
		c.tag, c.tagged = hint.Tag, hint.Changed != nil
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return parts, nil
}

// plan says which of the n bands (of rows rows, of a frame height rows tall) an encode through c (locked, or
// nil) re-encodes without looking (dirty: no cache, another kind of frame, or no good cached part) and which
// it compares with the cached frame first (compare: those the hint does not rule out). The bands it reads
// from the frame are exactly these.
func (c *Cache) plan(key cacheKey, n, rows, height int, hint Hint) (dirty []bool, compare []int) {
	fresh := c == nil || c.key != key || len(c.parts) != n
	known := !fresh && c.tagged && hint.Changed != nil
	dirty = make([]bool, n)
	for i := range n {
		y0, y1 := i*rows, min((i+1)*rows, height)
		switch {
		case fresh || !c.parts[i].ok:
			dirty[i] = true
		case known && !hint.Changed(c.tag, y0, y1):
		default:
			compare = append(compare, i)
		}
	}
	return dirty, compare
}

// Reads returns the rows that the next encode through c of a width x height frame in layout, as PNG or as
// JPEG of quality, with hint, reads from its Pixels: only those need to hold the frame (Pixels.Rows), so a
// caller fetching pixels can fetch just them. all is true when it reads every row: no cache, another kind
// of frame than the cached one, a hint that rules out nothing, or c busy with a concurrent call.
func (c *Cache) Reads(jpeg bool, quality, width, height int, layout Layout, hint Hint) (spans []Span, all bool) {
	if c == nil || width <= 0 || height <= 0 || (jpeg && !stripedJPEG) || !c.mu.TryLock() {
		return nil, true
	}
	defer c.mu.Unlock()
	var key cacheKey
	rows := pngBandRows
	if jpeg {
		key, rows = jpegKey(jpegQuality(quality), width, height, layout), mcuSize
	} else {
		key = pngKey(width, height, layout)
	}
	n := (height + rows - 1) / rows
	dirty, compare := c.plan(key, n, rows, height, hint)
	for _, i := range compare {
		dirty[i] = true
	}
	spans = []Span{}
	for i := 0; i < n; i++ {
		if !dirty[i] {
			continue
		}
		j := i + 1
		for j < n && dirty[j] {
			j++
		}
		spans = append(spans, Span{Y0: i * rows, Y1: min(j*rows, height)})
		i = j
	}
	if len(spans) == 1 && spans[0] == (Span{0, height}) {
		return nil, true
	}
	return spans, false
}

// parallel calls fn(0..n-1) on every CPU, the calling goroutine included, and returns when all are done.
func parallel(n int, fn func(i int)) {
	var next atomic.Int32
	work := func() {
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			fn(i)
		}
	}
	var wg sync.WaitGroup
	for range min(runtime.NumCPU(), n) - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
}

// same reports whether rows y0..y1 of p equal the cached frame's.
func (c *Cache) same(p Pixels, y0, y1 int) bool {
	w := 4 * p.Width
	for y := y0; y < y1; y++ {
		if !bytes.Equal(p.row(y), c.prev[y*w:(y+1)*w]) {
			return false
		}
	}
	return true
}

// keep copies rows y0..y1 of p into the cached frame.
func (c *Cache) keep(p Pixels, y0, y1 int) {
	w := 4 * p.Width
	for y := y0; y < y1; y++ {
		copy(c.prev[y*w:(y+1)*w], p.row(y))
	}
}

// PNG encodes p as PNG (see PNG) through the cache.
func (c *Cache) PNG(p Pixels, hint Hint) ([]byte, error) {
	if !p.valid() {
		return nil, errEmpty
	}
	if c == nil || !c.mu.TryLock() {
		return PNG(p)
	}
	defer c.mu.Unlock()
	return encodePNG(p, c, hint)
}

// JPEG encodes p as JPEG (see JPEG) through the cache.
func (c *Cache) JPEG(p Pixels, quality int, hint Hint) ([]byte, error) {
	if !p.valid() {
		return nil, errEmpty
	}
	quality = jpegQuality(quality)
	if c == nil || !stripedJPEG || !c.mu.TryLock() {
		return encodeJPEG(p, quality)
	}
	defer c.mu.Unlock()
	return encodeJPEGRows(p, quality, c, hint)
}
