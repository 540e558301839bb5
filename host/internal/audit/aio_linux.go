//go:build linux && (amd64 || arm64)

package audit

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Linux AIO ABI (linux/aio_abi.h) as laid out on 64-bit little-endian machines.
const (
	iocbCmdFdsync = 3 // IOCB_CMD_FDSYNC
	iocbFlagResfd = 1 // IOCB_FLAG_RESFD: signal completion on aio_resfd
	aioRing       = 256
)

type iocb struct {
	data      uint64
	key       uint32
	rwFlags   uint32
	opcode    uint16
	reqprio   int16
	fildes    uint32
	buf       uint64
	nbytes    uint64
	offset    int64
	reserved2 uint64
	flags     uint32
	resfd     uint32
}

type ioEvent struct {
	data uint64
	obj  uint64
	res  int64
	res2 int64
}

// aioSyncer runs fdatasync through Linux AIO (IOCB_CMD_FDSYNC): io_submit hands the sync to a kernel worker
// and returns at once, and the completion is signalled on an eventfd that the Go netpoller waits on. A writer
// waiting for its fsync then parks like a goroutine waiting for a socket. A plain fdatasync is a blocking
// system call that keeps its P (scheduler slot) until sysmon takes it back, which it often does not do for
// the whole call: with GOMAXPROCS=2 and several guests fsyncing, the execution trace of the broker's
// throughput benchmark showed about 1.2 of the 2 Ps sitting in fdatasync while runnable goroutines waited.
type aioSyncer struct {
	ctx uintptr
	efd *os.File
	fd  int

	mu      sync.Mutex
	next    uint64
	waiting map[uint64]chan error
	closed  bool
	done    chan struct{}
}

// aioReq is one submission, on the heap for the duration of io_submit.
type aioReq struct {
	cb  iocb
	ptr [1]*iocb
}

// newSyncer returns the AIO syncer, or nil when the kernel does not offer AIO fsync (the writers then call
// fdatasync themselves).
func newSyncer() syncer {
	var ctx uintptr
	if _, _, e := unix.Syscall(unix.SYS_IO_SETUP, aioRing, uintptr(unsafe.Pointer(&ctx)), 0); e != 0 {
		return nil
	}
	fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Syscall(unix.SYS_IO_DESTROY, ctx, 0, 0)
		return nil
	}
	s := &aioSyncer{ctx: ctx, fd: fd, efd: os.NewFile(uintptr(fd), "audit-aio-eventfd"),
		waiting: map[uint64]chan error{}, done: make(chan struct{})}
	go s.reap()
	return s
}

// datasync makes f's data durable, waiting for the kernel worker without holding a P. It falls back to a
// plain fdatasync when the submission is refused (ring full, a file system without fsync for AIO).
func (s *aioSyncer) datasync(f *os.File) error {
	ch := make(chan error, 1)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return datasync(f)
	}
	s.next++
	id := s.next
	s.waiting[id] = ch
	s.mu.Unlock()
	r := &aioReq{cb: iocb{data: id, opcode: iocbCmdFdsync, fildes: uint32(f.Fd()), flags: iocbFlagResfd, resfd: uint32(s.fd)}}
	r.ptr[0] = &r.cb
	for {
		_, _, e := unix.Syscall(unix.SYS_IO_SUBMIT, s.ctx, 1, uintptr(unsafe.Pointer(&r.ptr[0])))
		if e == unix.EINTR {
			continue
		}
		runtime.KeepAlive(r)
		if e != 0 {
			s.mu.Lock()
			delete(s.waiting, id)
			s.mu.Unlock()
			return datasync(f)
		}
		break
	}
	err := <-ch
	runtime.KeepAlive(f) // its descriptor must stay open until the sync completed
	if errors.Is(err, unix.EINVAL) {
		// The file system took the submission but cannot sync through AIO: sync the plain way.
		return datasync(f)
	}
	return err
}

// reap waits for the eventfd and hands each completion to its waiter.
func (s *aioSyncer) reap() {
	defer close(s.done)
	var buf [8]byte
	events := make([]ioEvent, 64)
	var zero unix.Timespec
	for {
		if _, err := s.efd.Read(buf[:]); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				continue
			}
			return
		}
		for {
			n, _, e := unix.Syscall6(unix.SYS_IO_GETEVENTS, s.ctx, 0, uintptr(len(events)),
				uintptr(unsafe.Pointer(&events[0])), uintptr(unsafe.Pointer(&zero)), 0)
			if e == unix.EINTR {
				continue
			}
			if e != 0 || n == 0 {
				break
			}
			s.mu.Lock()
			for _, ev := range events[:n] {
				if ch := s.waiting[ev.data]; ch != nil {
					delete(s.waiting, ev.data)
					var err error
					if ev.res < 0 {
						err = fmt.Errorf("fdatasync: %w", unix.Errno(-ev.res))
					}
					ch <- err
				}
			}
			s.mu.Unlock()
		}
	}
}

// close stops the reaper once no sync is in flight (the writers have stopped) and frees the AIO context.
func (s *aioSyncer) close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	s.efd.Close()
	<-s.done
	// io_destroy waits for anything still in flight; the waiters of such (none, when the writers stopped
	// first) get an error rather than hanging.
	unix.Syscall(unix.SYS_IO_DESTROY, s.ctx, 0, 0)
	s.mu.Lock()
	for id, ch := range s.waiting {
		delete(s.waiting, id)
		ch <- fmt.Errorf("fdatasync: %w", ErrClosed)
	}
	s.mu.Unlock()
}
