//go:build linux

package endpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// hostPollInterval is how often a guest port with no host connected is polled for the host's return: the
// port reports POLLHUP (and reads of 0) for as long as the host is away, so there is no event to wait for
// without SIGIO, whose process-wide handler a library must not install.
const hostPollInterval = 10 * time.Millisecond

// openPort opens the guest end of a virtio-serial port. A /dev/virtio-ports/NAME path that does not exist
// (no udev to make the link) is looked up by name in /sys/class/virtio-ports.
func openPort(p string) (serialPort, error) {
	dev, err := resolvePort(p)
	if err != nil {
		return nil, err
	}
	// O_NONBLOCK puts the fd in Go's poller, so deadlines can interrupt a blocked read or write.
	f, err := os.OpenFile(dev, os.O_RDWR|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	return &devPort{File: f}, nil
}

// resolvePort returns the device for p: p itself when it exists, else /dev/vportNpM whose sysfs name is
// the last element of p.
func resolvePort(p string) (string, error) {
	if _, err := os.Stat(p); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return p, err
	}
	if filepath.Dir(p) != "/dev/virtio-ports" {
		return "", fmt.Errorf("%s: %w", p, fs.ErrNotExist)
	}
	want := filepath.Base(p)
	names, _ := filepath.Glob("/sys/class/virtio-ports/*/name")
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil || strings.TrimSpace(string(b)) != want {
			continue
		}
		dev := "/dev/" + filepath.Base(filepath.Dir(n))
		if _, err := os.Stat(dev); err != nil {
			return "", fmt.Errorf("port %s is %s: %w", want, dev, err)
		}
		return dev, nil
	}
	return "", fmt.Errorf("no virtio-serial port named %q (none in /sys/class/virtio-ports): %w", want, fs.ErrNotExist)
}

// devPort is an open virtio-serial character device.
type devPort struct {
	*os.File
}

// hostConnected polls the port without blocking: POLLHUP means no host is connected.
func (d *devPort) hostConnected() (bool, error) {
	rc, err := d.SyscallConn()
	if err != nil {
		return false, err
	}
	var (
		revents int16
		perr    error
	)
	err = rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN | unix.POLLOUT}}
		for {
			_, perr = unix.Poll(fds, 0)
			if !errors.Is(perr, unix.EINTR) {
				break
			}
		}
		revents = fds[0].Revents
	})
	if err == nil {
		err = perr
	}
	if err != nil {
		return false, err
	}
	if revents&(unix.POLLERR|unix.POLLNVAL) != 0 {
		return false, fmt.Errorf("poll %s: revents %#x", d.Name(), revents)
	}
	return revents&unix.POLLHUP == 0, nil
}

// waitHost returns once a host is connected, or when done is closed.
func (d *devPort) waitHost(done <-chan struct{}) error {
	t := time.NewTicker(hostPollInterval)
	defer t.Stop()
	for {
		ok, err := d.hostConnected()
		if err != nil || ok {
			return err
		}
		select {
		case <-done:
			return net.ErrClosed
		case <-t.C:
		}
	}
}

// writeNow writes p without waiting: the bytes go out only if the port can take them at once.
func (d *devPort) writeNow(p []byte) {
	rc, err := d.SyscallConn()
	if err != nil {
		return
	}
	rc.Write(func(fd uintptr) bool {
		unix.Write(int(fd), p)
		return true
	})
}
