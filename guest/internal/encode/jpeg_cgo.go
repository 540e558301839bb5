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

// gb_encode compresses an RGBX buffer. On success it returns 0 and *out/*outlen hold a malloc'd buffer the
// caller frees; on failure it returns -1 and msg holds libjpeg's message.
static int gb_encode(const unsigned char *pix, int width, int height, int stride, int quality,
                     unsigned char **out, unsigned long *outlen, char *msg, size_t msglen) {
	struct jpeg_compress_struct cinfo;
	struct gb_err jerr;
	*out = NULL;
	*outlen = 0;
	cinfo.err = jpeg_std_error(&jerr.pub);
	jerr.pub.error_exit = gb_error_exit;
	jerr.pub.output_message = gb_output_message;
	if (setjmp(jerr.jmp)) {
		snprintf(msg, msglen, "%s", jerr.msg);
		jpeg_destroy_compress(&cinfo);
		if (*out) { free(*out); *out = NULL; }
		return -1;
	}
	jpeg_create_compress(&cinfo);
	jpeg_mem_dest(&cinfo, out, outlen);
	cinfo.image_width = width;
	cinfo.image_height = height;
	cinfo.input_components = 4;
	cinfo.in_color_space = JCS_EXT_RGBX;
	jpeg_set_defaults(&cinfo);
	jpeg_set_quality(&cinfo, quality, TRUE);
	cinfo.dct_method = JDCT_ISLOW;
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
	"image"
	"unsafe"
)

// JPEGEncoder names the JPEG implementation compiled in.
const JPEGEncoder = "libjpeg-turbo"

func encodeJPEG(img *image.RGBA, quality int) ([]byte, error) {
	b := img.Bounds()
	off := img.PixOffset(b.Min.X, b.Min.Y)
	var out *C.uchar
	var outLen C.ulong
	var msg [200]C.char
	// The pixels are passed without copying: cgo pins Go memory for the call, and libjpeg keeps no pointer.
	rc := C.gb_encode((*C.uchar)(unsafe.Pointer(&img.Pix[off])), C.int(b.Dx()), C.int(b.Dy()), C.int(img.Stride),
		C.int(quality), &out, &outLen, &msg[0], C.size_t(len(msg)))
	if rc != 0 {
		return nil, fmt.Errorf("libjpeg: %s", C.GoString(&msg[0]))
	}
	defer C.free(unsafe.Pointer(out))
	return C.GoBytes(unsafe.Pointer(out), C.int(outLen)), nil
}
