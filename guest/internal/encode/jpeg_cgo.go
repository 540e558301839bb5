//go:build cgo

package encode

/*
#cgo LDFLAGS: -ljpeg
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <jpeglib.h>

struct gb_err {
	struct jpeg_error_mgr pub;
	jmp_buf jmp;
	char msg[JMSG_LENGTH_MAX];
};

static void gb_error_exit(j_common_ptr cinfo) {
	struct gb_err *e = (struct gb_err *)cinfo->err;
	(*cinfo->err->format_message)(cinfo, e->msg);
	longjmp(e->jmp, 1);
}

static void gb_output_message(j_common_ptr cinfo) {}

// gb_encode compresses 32-bit pixels (bgrx: B,G,R,X in memory, else R,G,B,X) as a baseline YCbCr 4:2:0 JPEG
// with the standard Huffman tables, so every stripe of one image uses the same tables. *out may hold a
// malloc'd buffer of *outlen bytes to start with. On success it returns 0 and *out/*outlen hold a malloc'd
// buffer the caller frees (libjpeg replaces a buffer that is too small by a bigger one of its own and does not
// free the first); on failure it returns -1 and msg holds libjpeg's message.
static int gb_encode(const unsigned char *pix, int width, int height, int stride, int quality, int bgrx,
                     unsigned char **out, unsigned long *outlen, char *msg, size_t msglen) {
	// A restart marker after every MCU row: see splice.go.
	struct jpeg_compress_struct cinfo;
	struct gb_err jerr;
	cinfo.err = jpeg_std_error(&jerr.pub);
	jerr.pub.error_exit = gb_error_exit;
	jerr.pub.output_message = gb_output_message;
	if (setjmp(jerr.jmp)) {
		snprintf(msg, msglen, "%s", jerr.msg);
		jpeg_destroy_compress(&cinfo);
		return -1;
	}
	jpeg_create_compress(&cinfo);
	jpeg_mem_dest(&cinfo, out, outlen);
	cinfo.image_width = width;
	cinfo.image_height = height;
	cinfo.input_components = 4;
	cinfo.in_color_space = bgrx ? JCS_EXT_BGRX : JCS_EXT_RGBX;
	jpeg_set_defaults(&cinfo);
	jpeg_set_quality(&cinfo, quality, TRUE);
	// jpeg_set_defaults already picks 2x2 luma sampling (4:2:0) and no entropy optimisation; said again
	// because splicing stripes depends on both.
	cinfo.comp_info[0].h_samp_factor = 2;
	cinfo.comp_info[0].v_samp_factor = 2;
	cinfo.optimize_coding = FALSE;
	cinfo.dct_method = JDCT_ISLOW;
	cinfo.restart_in_rows = 1;
	jpeg_start_compress(&cinfo, TRUE);
	while (cinfo.next_scanline < cinfo.image_height) {
		JSAMPROW rows[16];
		int n = 0;
		while (n < 16 && cinfo.next_scanline + n < cinfo.image_height) {
			rows[n] = (JSAMPROW)(pix + (size_t)(cinfo.next_scanline + n) * stride);
			n++;
		}
		jpeg_write_scanlines(&cinfo, rows, n);
	}
	jpeg_finish_compress(&cinfo);
	jpeg_destroy_compress(&cinfo);
	return 0;
}
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"
)

// JPEGEncoder names the JPEG implementation compiled in.
const JPEGEncoder = "libjpeg-turbo"

// stripedJPEG says whether JPEGs are encoded in bands (which a Cache can reuse).
const stripedJPEG = true

// encodeJPEG encodes p in runs of MCU rows on every CPU and joins them (see splice.go).
func encodeJPEG(p Pixels, quality int) ([]byte, error) {
	return encodeJPEGRows(p, quality, nil, Hint{})
}

// encodeJPEGRows encodes the MCU rows of p that changed since the frame in c (every row without a cache), in
// runs split evenly over the CPUs, and joins every row's entropy-coded bytes.
func encodeJPEGRows(p Pixels, quality int, c *Cache, hint Hint) ([]byte, error) {
	key := jpegKey(quality, p.Width, p.Height, p.Layout)
	var header jpegHeader
	if c != nil && c.key == key {
		header = c.jpegHeader
	}
	var mu sync.Mutex
	parts, err := encodeBands(p, mcuSize, c, key, hint, true, func(p Pixels, y0, y1 int, dst []part) error {
		sub := p
		sub.Pix = p.Pix[y0*p.Stride:]
		sub.Height = y1 - y0
		b, err := encodeStripe(sub, quality)
		if err != nil {
			return err
		}
		h, segs, err := splitRows(b, len(dst))
		if err != nil {
			return fmt.Errorf("jpeg rows %d..%d: %w", y0, y1, err)
		}
		for i := range dst {
			dst[i].data = segs[i]
		}
		mu.Lock()
		header = h
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	if c != nil {
		c.jpegHeader = header
	}
	segs := make([][]byte, len(parts))
	for i := range parts {
		segs[i] = parts[i].data
	}
	return joinRows(header, p.Height, segs), nil
}

// encodeStripe encodes p as one JPEG with libjpeg-turbo.
func encodeStripe(p Pixels, quality int) ([]byte, error) {
	// Start with a buffer that fits most screen content, so libjpeg rarely grows it.
	size := C.ulong(p.Width*p.Height/2 + 4096)
	out := (*C.uchar)(C.malloc(C.size_t(size)))
	var msg [200]C.char
	bgrx := C.int(0)
	if p.Layout == LayoutBGRX {
		bgrx = 1
	}
	// The pixels are passed without copying: cgo pins Go memory for the call (shared memory is not Go
	// memory), and libjpeg keeps no pointer.
	first := out
	rc := C.gb_encode((*C.uchar)(unsafe.Pointer(&p.Pix[0])), C.int(p.Width), C.int(p.Height), C.int(p.Stride),
		C.int(quality), bgrx, &out, &size, &msg[0], C.size_t(len(msg)))
	defer C.free(unsafe.Pointer(first))
	if out != first {
		defer C.free(unsafe.Pointer(out))
	}
	if rc != 0 {
		return nil, fmt.Errorf("libjpeg: %s", C.GoString(&msg[0]))
	}
	return C.GoBytes(unsafe.Pointer(out), C.int(size)), nil
}
