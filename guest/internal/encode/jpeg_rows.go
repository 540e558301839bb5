package encode

import (
	"bytes"
	"encoding/binary"
	"errors"
)

// mcuSize is the side of a 4:2:0 MCU in pixels: JPEG bands are one MCU row tall.
const mcuSize = 16

func mcusPerRow(width int) int { return (width + mcuSize - 1) / mcuSize }

// A JPEG is encoded with a restart marker after every MCU row (libjpeg's restart_in_rows = 1). At a restart
// the decoder resets the DC predictions and starts byte aligned, and the encoder pads the row's last byte with
// 1 bits before the marker, so each MCU row's entropy-coded bytes depend on its own pixels only. Any run of
// rows can therefore be encoded on its own (as an image of just those rows), cut at its markers into one
// segment per MCU row, and the segments of every run joined in order with RST0..RST7 between them: the result
// is byte for byte what one encoder writes for the whole image. The headers (quantisation and Huffman tables,
// the restart interval, the frame size) are the same for every run but for the frame height.

var errNotBaseline = errors.New("not a baseline JPEG of the expected shape")

// jpegHeader is the headers of an encoder output: SOI up to and including the SOS segment, and where the
// SOF0 segment starts in it.
type jpegHeader struct {
	b   []byte
	sof int
}

// splitRows cuts one encoder output into its headers and the entropy-coded bytes of each MCU row (markers
// removed); it expects rows segments.
func splitRows(b []byte, rows int) (header jpegHeader, segs [][]byte, err error) {
	if len(b) < 4 || b[0] != 0xff || b[1] != 0xd8 || b[len(b)-2] != 0xff || b[len(b)-1] != 0xd9 {
		return header, nil, errNotBaseline
	}
	sof, data := -1, -1
	for i := 2; i+4 <= len(b) && data < 0; {
		if b[i] != 0xff {
			return header, nil, errNotBaseline
		}
		m := b[i+1]
		n := int(binary.BigEndian.Uint16(b[i+2:]))
		if n < 2 || i+2+n > len(b) {
			return header, nil, errNotBaseline
		}
		switch m {
		case 0xc0:
			if n < 8 {
				return header, nil, errNotBaseline
			}
			sof = i
		case 0xc1, 0xc2, 0xc3: // other frame types
			return header, nil, errNotBaseline
		case 0xda:
			if sof < 0 {
				return header, nil, errNotBaseline
			}
			data = i + 2 + n
		}
		i += 2 + n
	}
	if data < 0 {
		return header, nil, errNotBaseline
	}
	ecs := b[data : len(b)-2]
	segs = make([][]byte, 0, rows)
	start := 0
	// In entropy-coded data a 0xff byte is followed by 0x00 (stuffing) or a marker; IndexByte skips the bytes
	// between (a tenth of a full frame's encode time when scanned one by one).
	for i := 0; ; i++ {
		j := bytes.IndexByte(ecs[i:], 0xff)
		if j < 0 || i+j+1 >= len(ecs) {
			break
		}
		i += j
		if m := ecs[i+1]; m >= 0xd0 && m <= 0xd7 {
			segs = append(segs, ecs[start:i])
			start = i + 2
			i++
		}
	}
	segs = append(segs, ecs[start:])
	if len(segs) != rows {
		return header, nil, errNotBaseline
	}
	return jpegHeader{b: b[:data], sof: sof}, segs, nil
}

// joinRows writes one JPEG of the given height from the headers of any run of its rows and the segments of
// every MCU row in order.
func joinRows(header jpegHeader, height int, segs [][]byte) []byte {
	size := len(header.b) + 2
	for _, s := range segs {
		size += len(s) + 2
	}
	out := make([]byte, 0, size)
	out = append(out, header.b...)
	// SOF0: marker, length, precision, then the height.
	binary.BigEndian.PutUint16(out[header.sof+5:], uint16(height))
	for i, s := range segs {
		if i > 0 {
			out = append(out, 0xff, byte(0xd0+(i-1)%8))
		}
		out = append(out, s...)
	}
	return append(out, 0xff, 0xd9)
}
