package screen

import (
	"errors"
	"fmt"
	"image"
	"runtime"
	"sync"
	"unsafe"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/shm"
	"github.com/jezek/xgb/xproto"
	"golang.org/x/sys/unix"

	"glovebox.dev/guest/internal/encode"
	"glovebox.dev/guest/internal/x11/xconn"
)

// grabber reads root-window pixels into RGBA buffers, through one MIT-SHM segment the size of the screen, or
// through plain GetImage when the segment cannot be attached (a remote X server, another IPC namespace).
type grabber struct {
	conn *xgb.Conn
	root xproto.Window

	// mu serializes captures: they share the one segment, which holds only the latest image.
	mu     sync.Mutex
	seg    shm.Seg
	mem    []byte // attached segment; nil when capturing through GetImage
	reason string // why there is no segment
}

func newGrabber(conn *xgb.Conn, root xproto.Window, width, height int) *grabber {
	g := &grabber{conn: conn, root: root}
	if err := g.attach(width * height * 4); err != nil {
		g.reason = "MIT-SHM unavailable, capturing with GetImage (slower): " + err.Error()
	}
	return g
}

func (g *grabber) attach(size int) error {
	if err := xconn.Require(g.conn, xconn.Shm); err != nil {
		return err
	}
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, size, unix.IPC_CREAT|0o600)
	if err != nil {
		return fmt.Errorf("shmget: %w", err)
	}
	mem, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		unix.SysvShmCtl(id, unix.IPC_RMID, nil)
		return fmt.Errorf("shmat: %w", err)
	}
	seg, err := shm.NewSegId(g.conn)
	if err == nil {
		err = shm.AttachChecked(g.conn, seg, uint32(id), false).Check()
	}
	// Marked for removal now: the kernel frees it once both we and the X server have detached, even if the
	// agent dies.
	unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	if err != nil {
		unix.SysvShmDetach(mem)
		return fmt.Errorf("X server cannot attach the segment: %w", err)
	}
	g.seg, g.mem = seg, mem
	return nil
}

// degraded is why capture runs without shared memory, empty when it does not.
func (g *grabber) degraded() string { return g.reason }

func (g *grabber) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.mem != nil {
		shm.Detach(g.conn, g.seg)
		unix.SysvShmDetach(g.mem)
		g.mem = nil
	}
}

// capture reads the root-window rectangle r and calls fn with its pixels (BGRX, tightly packed) while the
// segment is held, so encoders read the X server's copy directly; fn must not keep them. reads, when not nil,
// is asked (with the segment held) which rows fn will read: only those are fetched, and fn is told which
// (Pixels.Rows). Should fn still need others (encode.ErrPartial), every row is fetched and fn called again.
func (g *grabber) capture(r image.Rectangle, reads func() ([]encode.Span, bool), fn func(encode.Pixels) error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	var spans []encode.Span
	if reads != nil && g.mem != nil {
		if s, all := reads(); !all {
			spans = s
		}
	}
	p, err := g.fetch(r, spans)
	if err != nil {
		return err
	}
	err = fn(p)
	if spans != nil && errors.Is(err, encode.ErrPartial) {
		if p, err = g.fetch(r, nil); err != nil {
			return err
		}
		err = fn(p)
	}
	return err
}

// fetch reads rows spans of r (every row when spans is nil) into the segment, with one request per span and
// one wait for them all, or all of r through GetImage without a segment; g.mu is held.
func (g *grabber) fetch(r image.Rectangle, spans []encode.Span) (encode.Pixels, error) {
	w, h := r.Dx(), r.Dy()
	p := encode.Pixels{Stride: 4 * w, Width: w, Height: h, Layout: encode.LayoutBGRX}
	if g.mem == nil {
		rep, err := xproto.GetImage(g.conn, xproto.ImageFormatZPixmap, xproto.Drawable(g.root), int16(r.Min.X), int16(r.Min.Y),
			uint16(w), uint16(h), 0xffffffff).Reply()
		if err != nil {
			return p, fmt.Errorf("get image: %w", err)
		}
		if len(rep.Data) < w*h*4 {
			return p, fmt.Errorf("get image: short reply (%d bytes for %dx%d)", len(rep.Data), w, h)
		}
		p.Pix = rep.Data
		return p, nil
	}
	p.Rows = spans
	if spans == nil {
		spans = []encode.Span{{Y0: 0, Y1: h}}
	}
	cookies := make([]shm.GetImageCookie, len(spans))
	for i, s := range spans {
		cookies[i] = shm.GetImage(g.conn, xproto.Drawable(g.root), int16(r.Min.X), int16(r.Min.Y+s.Y0), uint16(w), uint16(s.Y1-s.Y0),
			0xffffffff, xproto.ImageFormatZPixmap, g.seg, uint32(s.Y0*4*w))
	}
	var first error
	for _, c := range cookies {
		if _, err := c.Reply(); err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return p, fmt.Errorf("shm get image: %w", first)
	}
	p.Pix = g.mem[:w*h*4]
	return p, nil
}

// grab copies the root-window rectangle r into dst (same size as r), converting BGRX to opaque RGBA.
func (g *grabber) grab(r image.Rectangle, dst *image.RGBA) error {
	return g.capture(r, nil, func(p encode.Pixels) error {
		bgrxToRGBA(dst, p.Pix, p.Width, p.Height)
		return nil
	})
}

// minRowsPerWorker keeps small conversions on one goroutine.
const minRowsPerWorker = 128

// bgrxToRGBA converts tightly packed little-endian BGRX rows into dst, split over the CPUs.
func bgrxToRGBA(dst *image.RGBA, src []byte, w, h int) {
	n := runtime.NumCPU()
	if m := h / minRowsPerWorker; n > m {
		n = m
	}
	if n <= 1 {
		convertRows(dst, src, w, 0, h)
		return
	}
	var wg sync.WaitGroup
	for i := range n {
		y0, y1 := h*i/n, h*(i+1)/n
		wg.Add(1)
		go func() {
			defer wg.Done()
			convertRows(dst, src, w, y0, y1)
		}()
	}
	wg.Wait()
}

func convertRows(dst *image.RGBA, src []byte, w, y0, y1 int) {
	for y := y0; y < y1; y++ {
		s := words(src[y*w*4 : (y+1)*w*4])
		d := words(dst.Pix[y*dst.Stride : y*dst.Stride+w*4])
		d = d[:len(s)]
		for i, v := range s {
			// v is 0xXXRRGGBB; RGBA in memory is 0xAABBGGRR as a little-endian word.
			d[i] = 0xff000000 | (v&0xff)<<16 | v&0xff00 | (v>>16)&0xff
		}
	}
}

// words views a byte slice (length a multiple of 4) as native-endian 32-bit words; this package only runs
// on little-endian machines (checkFormat refuses MSB-first X servers, and the words are read as LSB first).
// Go allocates []byte backing arrays, and shmat maps pages, with at least 4-byte alignment.
func words(b []byte) []uint32 {
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4)
}
