package files

import (
	"errors"
	"hash"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Next returns a drop's next chunk: the index of the file it names and its bytes, in pieces (the
// transport's buffers, written out without being joined first), valid until Next is called again; io.EOF
// after the last chunk.
type Next = func() (file int32, data [][]byte, err error)

// size is the number of bytes in the pieces.
func size(pieces [][]byte) int {
	n := 0
	for _, p := range pieces {
		n += len(p)
	}
	return n
}

// maxIovecs is how many pieces one writev takes (Linux: IOV_MAX).
const maxIovecs = 1024

// writePieces writes the pieces to f in order, with as few system calls as writev allows; the caller's
// slice is left as it was.
func writePieces(f *os.File, pieces [][]byte) error {
	own := false
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var werr error
	for len(pieces) > 0 {
		batch := pieces[:min(len(pieces), maxIovecs)]
		var n int
		if err := rc.Write(func(fd uintptr) bool {
			n, werr = unix.Writev(int(fd), batch)
			return true
		}); err != nil {
			return err
		}
		if errors.Is(werr, syscall.EINTR) {
			continue
		}
		if werr != nil {
			return &os.PathError{Op: "writev", Path: f.Name(), Err: werr}
		}
		// Drop what was written; a short write leaves part of a piece.
		for n > 0 && len(pieces) > 0 {
			if n >= len(pieces[0]) {
				n -= len(pieces[0])
				pieces = pieces[1:]
				continue
			}
			if !own {
				pieces, own = append([][]byte(nil), pieces...), true
			}
			pieces[0] = pieces[0][n:]
			n = 0
		}
	}
	return nil
}

// hashing hashes a chunk on a goroutine of its own while the receiver writes it.
type hashing struct {
	in   chan hashJob
	done chan struct{}
}

type hashJob struct {
	h    hash.Hash
	data [][]byte
}

func startHashing() *hashing {
	hs := &hashing{in: make(chan hashJob), done: make(chan struct{})}
	go func() {
		for j := range hs.in {
			for _, b := range j.data {
				j.h.Write(b)
			}
			hs.done <- struct{}{}
		}
	}()
	return hs
}

// hash starts hashing data into h; wait waits for it to end (data must stay valid until then).
func (hs *hashing) hash(h hash.Hash, data [][]byte) { hs.in <- hashJob{h, data} }

func (hs *hashing) wait() { <-hs.done }

// stop ends the goroutine (no hash may be in progress).
func (hs *hashing) stop() { close(hs.in) }
