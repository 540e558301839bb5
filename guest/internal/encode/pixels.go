package encode

import (
	"errors"
	"image"
	"unsafe"
)

// Layout is the order of the four bytes of a pixel in memory.
type Layout uint8

const (
	// LayoutRGBA is image.RGBA's order: red, green, blue, alpha.
	LayoutRGBA Layout = iota
	// LayoutBGRX is an X ZPixmap of depth 24 or 32 on a little-endian server: blue, green, red, unused.
	LayoutBGRX
)

// Pixels is a view of 32-bit pixels, such as the X server's shared memory segment, which the encoders read
// without converting or copying it first. Alpha (or the unused byte) is ignored: screen pixels are opaque.
type Pixels struct {
	Pix           []byte // row y starts at Pix[y*Stride]
	Stride        int
	Width, Height int
	Layout        Layout
	// Rows, when not nil, are the only rows that hold the frame (those Cache.Reads asked for); the others
	// may hold anything and are never read: an encode that needs one fails with ErrPartial.
	Rows []Span
}

// Span is rows Y0 up to Y1 (excluded) of a frame.
type Span struct{ Y0, Y1 int }

// ErrPartial says an encode needed rows its Pixels do not hold (outside Pixels.Rows): fetch every row and
// encode again.
var ErrPartial = errors.New("encode: the pixels lack rows the encode reads")

// holds reports whether rows y0..y1 are all in p.Rows (or p holds every row).
func (p Pixels) holds(y0, y1 int) bool {
	if p.Rows == nil {
		return true
	}
	for _, s := range p.Rows {
		if s.Y0 <= y0 && y1 <= s.Y1 {
			return true
		}
	}
	return false
}

// FromRGBA views img as Pixels.
func FromRGBA(img *image.RGBA) Pixels {
	b := img.Bounds()
	if b.Empty() {
		return Pixels{}
	}
	return Pixels{Pix: img.Pix[img.PixOffset(b.Min.X, b.Min.Y):], Stride: img.Stride, Width: b.Dx(), Height: b.Dy(),
		Layout: LayoutRGBA}
}

// valid reports whether p has pixels and holds every row it claims.
func (p Pixels) valid() bool {
	return p.Width > 0 && p.Height > 0 && p.Stride >= 4*p.Width &&
		len(p.Pix) >= (p.Height-1)*p.Stride+4*p.Width
}

// row returns row y, 4*Width bytes.
func (p Pixels) row(y int) []byte { return p.Pix[y*p.Stride : y*p.Stride+4*p.Width] }

// toRGBA copies p into a new image.RGBA (for the encoders that only take image.Image).
func (p Pixels) toRGBA() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, p.Width, p.Height))
	for y := range p.Height {
		s, d := words(p.row(y)), words(img.Pix[y*img.Stride:y*img.Stride+4*p.Width])
		for i, v := range s {
			if p.Layout == LayoutBGRX {
				// v is 0xXXRRGGBB; RGBA in memory is 0xAABBGGRR as a little-endian word.
				v = v&0xff<<16 | v&0xff00 | v>>16&0xff
			}
			d[i] = v | 0xff000000
		}
	}
	return img
}

// words views a byte slice (length a multiple of 4) as native-endian 32-bit words. The pixel code assumes a
// little-endian machine (the screen package refuses others). Go's []byte backing arrays and shmat'd pages
// are at least 4-byte aligned, and rows start at multiples of 4.
func words(b []byte) []uint32 {
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4)
}
