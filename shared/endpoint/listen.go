package endpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/mdlayher/vsock"
	"google.golang.org/grpc"

	"glovebox.dev/shared/errdefs"
)

// DefaultUnixMode is the mode of a unix socket when ListenOptions.UnixMode is 0: only the owner connects.
const DefaultUnixMode os.FileMode = 0o600

// ListenOptions are the access checks of Listen. The zero value is the strict default.
type ListenOptions struct {
	// AllowCIDs are the vsock peers accepted; empty means only HostCID. Others are closed on accept and
	// logged.
	AllowCIDs []uint32
	// AllowNonLoopback lets a tcp endpoint bind addresses other than loopback (0.0.0.0, a LAN address).
	AllowNonLoopback bool
	// UnixMode is the permission of a unix socket; 0 means DefaultUnixMode.
	UnixMode os.FileMode
	// Logger receives refused peers; nil discards.
	Logger *slog.Logger
}

// unsupported is the error of Listen or Dial on an endpoint that is only one side of a VM transport.
func unsupported(e Endpoint, op, why string) error {
	return fmt.Errorf("%s %s: %w: %s", op, e, errdefs.ErrUnsupportedAction, why)
}

// Listen listens on e with the checks of o: a vsock listener accepts only the allowed CIDs, a tcp endpoint
// whose host resolves to any non-loopback address is refused unless allowed, and a unix socket is created
// with the mode (never visible with a looser one), replacing only a stale socket nobody listens on.
func Listen(ctx context.Context, e Endpoint, o ListenOptions) (net.Listener, error) {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	switch e.Scheme {
	case SchemeVsock:
		l, err := vsock.ListenContextID(e.CID, e.Port, nil)
		if err != nil {
			return nil, fmt.Errorf("listen %s: %w", e, err)
		}
		allow := o.AllowCIDs
		if len(allow) == 0 {
			allow = []uint32{HostCID}
		}
		return newCIDFilter(l, allow, log), nil
	case SchemeTCP:
		return listenTCP(ctx, e, o.AllowNonLoopback)
	case SchemeUnix:
		mode := o.UnixMode
		if mode == 0 {
			mode = DefaultUnixMode
		}
		return listenUnix(e.Path, mode)
	case SchemeSerial:
		return listenSerial(e, log)
	case SchemeSerialUnix:
		return nil, unsupported(e, "listen", "serial+unix is the host end (dial QEMU's chardev socket); the guest listens on serial:///dev/virtio-ports/NAME")
	case SchemeHVSock:
		return nil, unsupported(e, "listen", "hvsock is the host end of hybrid vsock; the guest listens on vsock://:PORT")
	}
	return nil, fmt.Errorf("listen %q: unknown scheme", e.Scheme)
}

// cidFilter accepts vsock connections only from allowed peer CIDs.
type cidFilter struct {
	net.Listener
	allow []uint32
	log   *slog.Logger
}

func newCIDFilter(l net.Listener, allow []uint32, log *slog.Logger) net.Listener {
	return &cidFilter{Listener: l, allow: slices.Clone(allow), log: log}
}

// Accept returns the next connection from an allowed CID, closing (and logging) the others.
func (f *cidFilter) Accept() (net.Conn, error) {
	for {
		c, err := f.Listener.Accept()
		if err != nil {
			return nil, err
		}
		a, ok := c.RemoteAddr().(*vsock.Addr)
		if ok && slices.Contains(f.allow, a.ContextID) {
			return c, nil
		}
		cid := "unknown"
		if ok {
			cid = strconv.FormatUint(uint64(a.ContextID), 10)
		}
		f.log.Warn("refused vsock peer cid="+cid, "cid", cid, "allowed", f.allow)
		c.Close()
	}
}

// listenTCP checks every address the host resolves to and binds the first checked one (IPv4 first), so a
// second resolution cannot swap in an address that was not checked.
func listenTCP(ctx context.Context, e Endpoint, allowNonLoopback bool) (net.Listener, error) {
	host := e.Host
	if !allowNonLoopback {
		ips, err := net.DefaultResolver.LookupIPAddr(ctx, e.Host)
		if err != nil {
			return nil, fmt.Errorf("listen %s: %w", e, err)
		}
		if len(ips) == 0 {
			return nil, fmt.Errorf("listen %s: host has no address", e)
		}
		for _, ip := range ips {
			if !ip.IP.IsLoopback() {
				return nil, fmt.Errorf("listen %s: %s is not a loopback address; allow non-loopback listening to use it: %w",
					e, ip.IP, errdefs.ErrPermissionDenied)
			}
		}
		slices.SortStableFunc(ips, func(a, b net.IPAddr) int {
			return cmpBool(a.IP.To4() == nil, b.IP.To4() == nil)
		})
		host = ips[0].String()
	}
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", net.JoinHostPort(host, strconv.FormatUint(uint64(e.Port), 10)))
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", e, err)
	}
	return l, nil
}

// listenUnix creates the socket inside a fresh 0700 directory beside p, sets its mode, and links it to p, so
// it is never reachable with the process umask's looser mode.
func listenUnix(p string, mode os.FileMode) (net.Listener, error) {
	if err := removeStale(p); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(filepath.Dir(p), ".gb")
	if err != nil {
		return nil, fmt.Errorf("listen unix %s: %w", p, err)
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "s")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: tmp, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen unix %s: %w", p, err)
	}
	// The listener would unlink tmp on Close; the socket lives at p, which unixListener.Close removes.
	l.SetUnlinkOnClose(false)
	if err := os.Chmod(tmp, mode); err != nil {
		l.Close()
		return nil, fmt.Errorf("listen unix %s: %w", p, err)
	}
	if err := place(tmp, p); err != nil {
		l.Close()
		return nil, fmt.Errorf("listen unix %s: %w", p, err)
	}
	fi, err := os.Lstat(p)
	if err != nil {
		l.Close()
		return nil, fmt.Errorf("listen unix %s: %w", p, err)
	}
	return &unixListener{UnixListener: l, path: p, fi: fi}, nil
}

// place gives the socket tmp its final name p without replacing a file another listener created at p since
// removeStale looked (two starting at once would otherwise both succeed, one on a socket nobody reaches): a
// hard link fails when p exists. A file system without hard links gets a rename, which replaces.
func place(tmp, p string) error {
	err := os.Link(tmp, p)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrExist):
		return errors.New("another listener created it meanwhile")
	}
	return os.Rename(tmp, p)
}

// removeStale removes p when it is a socket nobody listens on; it refuses any other existing file.
func removeStale(p string) error {
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("listen unix %s: %w", p, err)
	case fi.Mode().Type() != fs.ModeSocket:
		return fmt.Errorf("listen unix %s: refusing to replace a file that is not a socket (%s)", p, fi.Mode().Type())
	}
	c, err := net.DialTimeout("unix", p, time.Second)
	if err == nil {
		c.Close()
		return fmt.Errorf("listen unix %s: another process listens on it", p)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("listen unix %s: checking the existing socket: %w", p, err)
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("listen unix %s: removing the stale socket: %w", p, err)
	}
	return nil
}

// unixListener removes its socket file on Close, unless another listener has replaced it meanwhile.
type unixListener struct {
	*net.UnixListener
	path string
	fi   os.FileInfo
	once sync.Once
}

// Addr is the final socket path (the listener itself was bound under a temporary name).
func (l *unixListener) Addr() net.Addr { return &net.UnixAddr{Name: l.path, Net: "unix"} }

// Close stops listening and removes the socket file if it is still the one this listener created.
func (l *unixListener) Close() error {
	err := l.UnixListener.Close()
	l.once.Do(func() {
		if fi, serr := os.Lstat(l.path); serr == nil && os.SameFile(fi, l.fi) {
			os.Remove(l.path)
		}
	})
	return err
}

// Dial connects to e. vsock needs an explicit CID.
func Dial(ctx context.Context, e Endpoint) (net.Conn, error) {
	switch e.Scheme {
	case SchemeVsock:
		if e.CID == AnyCID {
			return nil, fmt.Errorf("dial %s: name the peer CID (vsock://CID:PORT)", e)
		}
		c, err := vsock.DialContext(ctx, e.CID, e.Port, nil)
		if err != nil {
			return nil, fmt.Errorf("dial %s: %w", e, err)
		}
		return c, nil
	case SchemeUnix:
		var d net.Dialer
		c, err := d.DialContext(ctx, "unix", e.Path)
		if err != nil {
			return nil, fmt.Errorf("dial %s: %w", e, err)
		}
		return c, nil
	case SchemeTCP:
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(e.Host, strconv.FormatUint(uint64(e.Port), 10)))
		if err != nil {
			return nil, fmt.Errorf("dial %s: %w", e, err)
		}
		return c, nil
	case SchemeSerialUnix:
		return dialSerialUnix(ctx, e)
	case SchemeHVSock:
		return dialHVSock(ctx, e)
	case SchemeSerial:
		return nil, unsupported(e, "dial", "serial:// is the guest end of a virtio-serial port; the host dials serial+unix:///path/to/chardev.sock")
	}
	return nil, fmt.Errorf("dial %q: unknown scheme", e.Scheme)
}

// GRPCTarget returns what grpc.NewClient needs to reach e: a passthrough target (its authority is the tcp
// host:port, "localhost" for the other schemes) and a context dialer that calls Dial. The caller adds the
// transport credentials (insecure over unix and vsock, mTLS over tcp).
func GRPCTarget(e Endpoint) (target string, opts []grpc.DialOption) {
	authority := "localhost"
	if e.Scheme == SchemeTCP {
		authority = net.JoinHostPort(e.Host, strconv.FormatUint(uint64(e.Port), 10))
	}
	dial := func(ctx context.Context, _ string) (net.Conn, error) { return Dial(ctx, e) }
	return "passthrough:///" + authority, []grpc.DialOption{grpc.WithContextDialer(dial)}
}

// WindowBytes is the HTTP/2 flow-control window, per stream and per connection, a client of the agent or the
// broker should ask for: grpc-go starts at 64 KiB and its estimator barely grows that over a unix socket or
// vsock, so a 300 KB screenshot waits for several window updates, each a round trip that wakes both
// processes (about 0.4 ms of a 1 ms screenshot on an idle 2-core VM). With this window it arrives in one go.
const WindowBytes = 8 << 20

// IOBufferBytes is the transport's read and write buffer (grpc-go: 32 KiB): a 1 MiB message then costs a few
// system calls per hop instead of 32.
const IOBufferBytes = 256 << 10

// WindowOptions are the grpc-go dial options for WindowBytes.
func WindowOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithInitialWindowSize(WindowBytes), grpc.WithInitialConnWindowSize(WindowBytes),
		grpc.WithReadBufferSize(IOBufferBytes), grpc.WithWriteBufferSize(IOBufferBytes)}
}

// ServerWindowOptions are WindowOptions for the receiving side of a server: the window a server grants its
// clients for what they send (a file drop streams 1 MiB messages; with grpc-go's 64 KiB start every few
// hundred KB wait for a window update).
func ServerWindowOptions() []grpc.ServerOption {
	return []grpc.ServerOption{grpc.InitialWindowSize(WindowBytes), grpc.InitialConnWindowSize(WindowBytes),
		grpc.ReadBufferSize(IOBufferBytes), grpc.WriteBufferSize(IOBufferBytes)}
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}
