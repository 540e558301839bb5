package encode

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// mcuSize is the side of a 4:2:0 MCU in pixels: stripes are cut at multiples of it.
const mcuSize = 16

// minStripeRows keeps small images in one piece: a stripe costs a libjpeg setup and a restart marker.
const minStripeRows = 128

// maxRestartInterval is the largest MCU count a DRI segment can hold.
const maxRestartInterval = 0xffff

func mcusPerRow(width int) int { return (width + mcuSize - 1) / mcuSize }

// stripeRows returns the height of the stripes an image is cut into for n workers: a multiple of the MCU
// height whose MCU count fits a restart interval, at least minStripeRows, or the whole height when the
// image is too small to split.
func stripeRows(width, height, n int) int {
	if n < 2 || height < 2*minStripeRows {
		return height
	}
	rows := (height + n - 1) / n
	rows = (rows + mcuSize - 1) / mcuSize * mcuSize
	rows = max(rows, minStripeRows/mcuSize*mcuSize)
	if limit := maxRestartInterval / mcusPerRow(width) * mcuSize; rows > limit {
		rows = limit
	}
	if rows < mcuSize || rows >= height {
		return height
	}
	return rows
}

// splice joins JPEGs of horizontal stripes of one image (same width, same quality, standard Huffman tables,
// every stripe but the last interval MCUs in size) into one baseline JPEG with restart markers: the first
// stripe's headers with the full height and a DRI segment of interval MCUs, then each stripe's
// entropy-coded data, separated by RST0..RST7 in turn, then EOI. That is exactly the stream one encoder
// would write with that restart interval: at a restart marker the decoder resets the DC predictions and
// starts byte aligned, as each stripe's encoder did at its start, and each stripe's encoder padded its last
// byte with 1 bits, as an encoder does before a marker.
func splice(parts [][]byte, height, interval int) ([]byte, error) {
	if interval <= 0 || interval > maxRestartInterval {
		return nil, fmt.Errorf("jpeg splice: restart interval %d", interval)
	}
	type span struct{ sof, sos, data int }
	spans := make([]span, len(parts))
	size := 6 + 2*len(parts)
	for i, p := range parts {
		s, err := scanJPEG(p)
		if err != nil {
			return nil, fmt.Errorf("jpeg stripe %d: %w", i, err)
		}
		spans[i] = span{s.sof, s.sos, s.data}
		size += len(p)
	}
	first, s0 := parts[0], spans[0]
	out := make([]byte, 0, size)
	out = append(out, first[:s0.sos]...)
	// SOF0: marker, length, precision, then the height.
	binary.BigEndian.PutUint16(out[s0.sof+5:], uint16(height))
	out = append(out, 0xff, 0xdd, 0, 4, byte(interval>>8), byte(interval))
	out = append(out, first[s0.sos:s0.data]...)
	for i, p := range parts {
		if i > 0 {
			out = append(out, 0xff, byte(0xd0+(i-1)%8))
		}
		out = append(out, p[spans[i].data:len(p)-2]...)
	}
	return append(out, 0xff, 0xd9), nil
}

// jpegLayout locates the segments splice needs in one encoder output.
type jpegLayout struct {
	sof  int // offset of the SOF0 marker
	sos  int // offset of the SOS marker
	data int // first byte of entropy-coded data, after the SOS segment
}

var errNotBaseline = errors.New("not a baseline JPEG of the expected shape")

// scanJPEG walks the marker segments of a JPEG from SOI to SOS and checks it ends with EOI.
func scanJPEG(b []byte) (jpegLayout, error) {
	var l jpegLayout
	if len(b) < 4 || b[0] != 0xff || b[1] != 0xd8 || b[len(b)-2] != 0xff || b[len(b)-1] != 0xd9 {
		return l, errNotBaseline
	}
	l.sof = -1
	for i := 2; i+4 <= len(b); {
		if b[i] != 0xff {
			return l, errNotBaseline
		}
		m := b[i+1]
		n := int(binary.BigEndian.Uint16(b[i+2:]))
		if n < 2 || i+2+n > len(b) {
			return l, errNotBaseline
		}
		switch m {
		case 0xc0:
			if n < 8 {
				return l, errNotBaseline
			}
			l.sof = i
		case 0xc1, 0xc2, 0xc3, 0xdd: // other frame types, or a restart interval of its own
			return l, errNotBaseline
		case 0xda:
			if l.sof < 0 {
				return l, errNotBaseline
			}
			l.sos, l.data = i, i+2+n
			return l, nil
		}
		i += 2 + n
	}
	return l, errNotBaseline
}
