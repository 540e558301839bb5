package encode

import (
	"bytes"
	"runtime"
	"sync"
	"sync/atomic"
)

// Images are cut into horizontal bands that are encoded independently, on every CPU, and joined: PNG bands
// are deflate segments ended by a sync flush, JPEG bands are stripes joined with restart markers. A Cache
// keeps each band's encoded form with the pixels it came from, so the next frame re-encodes only the bands
// whose pixels changed: after a click or a few typed characters, most of a screen is byte for byte the same.
const (
	// pngBandRows is the height of a PNG band: small enough that a local change re-encodes little, large
	// enough that a band's sync flush (5 bytes) and fresh deflate window cost nothing measurable.
	pngBandRows = 32
	// jpegBandRows is the height of a JPEG stripe when a Cache is kept: a multiple of the MCU height. Each
	// stripe costs a libjpeg setup, so it is larger than a PNG band.
	jpegBandRows = 64
)

// Cache keeps, for one stream of captures (same size, pixel layout, format and quality), the pixels of the
// previous frame and the encoded form of each of its bands. Its output is byte for byte what the same
// encode without a Cache produces. It holds a copy of the frame (4 bytes per pixel). The zero value is ready
// to use; a Cache used by a concurrent call is bypassed (that call encodes everything), never waited for.
type Cache struct {
	mu    sync.Mutex
	key   cacheKey
	prev  []byte // the previous frame, 4*width bytes per row
	parts []part
	// reused counts the bands the last encode took from the cache.
	reused, bands int
}

// cacheKey is what must match for a band to be reused.
type cacheKey struct {
	jpeg    bool
	quality int
	w, h    int
	layout  Layout
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

// bandFunc encodes rows y0..y1 of p into dst.
type bandFunc func(p Pixels, y0, y1 int, dst *part) error

// encodeBands cuts p into bands of rows rows and encodes each with fn, on every CPU. With a cache (locked by
// the caller) a band whose rows equal the cached frame's keeps its cached encoding. The parts returned belong
// to the cache when there is one: use them before unlocking it.
func encodeBands(p Pixels, rows int, c *Cache, key cacheKey, fn bandFunc) ([]part, error) {
	n := (p.Height + rows - 1) / rows
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
	errs := make([]error, n)
	var reused atomic.Int32
	var next atomic.Int32
	work := func() {
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			y0, y1 := i*rows, min((i+1)*rows, p.Height)
			if c != nil && parts[i].ok && c.same(p, y0, y1) {
				reused.Add(1)
				continue
			}
			parts[i].ok = false
			if errs[i] = fn(p, y0, y1, &parts[i]); errs[i] != nil {
				continue
			}
			if c != nil {
				c.keep(p, y0, y1)
				parts[i].ok = true
			}
		}
	}
	workers := min(runtime.NumCPU(), n)
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
	if c != nil {
		c.reused, c.bands = int(reused.Load()), n
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return parts, nil
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
func (c *Cache) PNG(p Pixels) ([]byte, error) {
	if !p.valid() {
		return nil, errEmpty
	}
	if c == nil || !c.mu.TryLock() {
		return PNG(p)
	}
	defer c.mu.Unlock()
	return encodePNG(p, c)
}

// JPEG encodes p as JPEG (see JPEG) through the cache.
func (c *Cache) JPEG(p Pixels, quality int) ([]byte, error) {
	if !p.valid() {
		return nil, errEmpty
	}
	quality = jpegQuality(quality)
	if c == nil || !stripedJPEG || !c.mu.TryLock() {
		return encodeJPEG(p, quality)
	}
	defer c.mu.Unlock()
	return encodeJPEGBands(p, quality, c)
}
