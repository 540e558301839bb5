package screen

import (
	"image"
	"runtime"
	"sync"
)

// overlayCursor blends a premultiplied ARGB cursor image whose top-left corner is at (x, y) in dst.
func overlayCursor(dst *image.RGBA, argb []uint32, cw, ch, x, y int) {
	b := dst.Bounds()
	for cy := 0; cy < ch; cy++ {
		dy := y + cy
		if dy < b.Min.Y || dy >= b.Max.Y {
			continue
		}
		for cx := 0; cx < cw; cx++ {
			dx := x + cx
			if dx < b.Min.X || dx >= b.Max.X || cy*cw+cx >= len(argb) {
				continue
			}
			p := argb[cy*cw+cx]
			a := p >> 24
			if a == 0 {
				continue
			}
			i := dst.PixOffset(dx, dy)
			inv := 255 - a
			d := dst.Pix[i : i+3 : i+3]
			d[0] = uint8(min(255, (p>>16)&0xff+(uint32(d[0])*inv+127)/255))
			d[1] = uint8(min(255, (p>>8)&0xff+(uint32(d[1])*inv+127)/255))
			d[2] = uint8(min(255, p&0xff+(uint32(d[2])*inv+127)/255))
		}
	}
}

// scaledSize returns the size after shrinking w x h so its longer edge is at most maxEdge, and the scale
// (encoded pixels per screen pixel). It never scales up.
func scaledSize(w, h, maxEdge int) (int, int, float64) {
	long := max(w, h)
	if maxEdge <= 0 || long <= maxEdge {
		return w, h, 1
	}
	scale := float64(maxEdge) / float64(long)
	sw := max(1, int(float64(w)*scale+0.5))
	sh := max(1, int(float64(h)*scale+0.5))
	return sw, sh, scale
}

// downscale shrinks src into dst (smaller in both directions or equal) by averaging the box of source
// pixels each destination pixel covers, so text thins out smoothly rather than aliasing. Output rows are
// split over the CPUs.
func downscale(dst, src *image.RGBA) {
	sw, sh := src.Bounds().Dx(), src.Bounds().Dy()
	dw, dh := dst.Bounds().Dx(), dst.Bounds().Dy()
	// x0s[i]..x0s[i+1] is the source column range of destination column i.
	xs := make([]int, dw+1)
	for i := range xs {
		xs[i] = i * sw / dw
	}
	n := runtime.NumCPU()
	if n > dh {
		n = dh
	}
	var wg sync.WaitGroup
	for k := range n {
		y0, y1 := dh*k/n, dh*(k+1)/n
		wg.Add(1)
		go func() {
			defer wg.Done()
			acc := make([]uint32, sw*3)
			for dy := y0; dy < y1; dy++ {
				sy0, sy1 := dy*sh/dh, (dy+1)*sh/dh
				if sy1 <= sy0 {
					sy1 = sy0 + 1
				}
				clear(acc)
				for sy := sy0; sy < sy1; sy++ {
					row := src.Pix[src.PixOffset(src.Bounds().Min.X, src.Bounds().Min.Y+sy):]
					for sx := 0; sx < sw; sx++ {
						acc[3*sx] += uint32(row[4*sx])
						acc[3*sx+1] += uint32(row[4*sx+1])
						acc[3*sx+2] += uint32(row[4*sx+2])
					}
				}
				rows := uint32(sy1 - sy0)
				out := dst.Pix[dy*dst.Stride:]
				for dx := 0; dx < dw; dx++ {
					sx0, sx1 := xs[dx], xs[dx+1]
					if sx1 <= sx0 {
						sx1 = sx0 + 1
					}
					var r, g, b uint32
					for sx := sx0; sx < sx1; sx++ {
						r += acc[3*sx]
						g += acc[3*sx+1]
						b += acc[3*sx+2]
					}
					cnt := rows * uint32(sx1-sx0)
					out[4*dx] = uint8((r + cnt/2) / cnt)
					out[4*dx+1] = uint8((g + cnt/2) / cnt)
					out[4*dx+2] = uint8((b + cnt/2) / cnt)
					out[4*dx+3] = 255
				}
			}
		}()
	}
	wg.Wait()
}

// bufPool recycles pixel buffers: a 1280x800 frame is 4 MB, and allocating (zeroing) it each capture costs
// more than the capture itself.
var bufPool sync.Pool

func getRGBA(w, h int) *image.RGBA {
	need := w * h * 4
	if p, ok := bufPool.Get().(*[]byte); ok && cap(*p) >= need {
		return &image.RGBA{Pix: (*p)[:need], Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}
	}
	return image.NewRGBA(image.Rect(0, 0, w, h))
}

func putRGBA(img *image.RGBA) {
	p := img.Pix[:0]
	bufPool.Put(&p)
}
