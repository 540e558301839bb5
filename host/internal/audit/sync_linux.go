package audit

import (
	"os"
	"syscall"
)

// datasync makes f's data durable. fdatasync skips the mtime update a full fsync would also write; the size
// change of an append is still flushed, as the data cannot be read back without it.
func datasync(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}
