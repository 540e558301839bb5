// Package endpoint parses endpoint URIs and listens on or dials them with the access checks of the design:
// vsock://CID:PORT (only allowed peer CIDs, by default the host), unix:///path (mode 0600, never clobbering
// a file), tcp://host:port (loopback only unless allowed), and the VM transports without vsock:
// serial:///dev/virtio-ports/NAME (Listen, in the guest: a virtio-serial port), serial+unix:///path (Dial,
// on the host: QEMU's chardev unix socket for that port, with the serial handshake of serialproto.go) and
// hvsock:///path/v.sock:PORT (Dial, on the host: Firecracker / Cloud Hypervisor hybrid vsock).
package endpoint

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// Schemes of endpoint URIs.
const (
	SchemeVsock  = "vsock"
	SchemeUnix   = "unix"
	SchemeTCP    = "tcp"
	SchemeSerial = "serial"
	SchemeHVSock = "hvsock"
	// SchemeSerialUnix is the host end of a virtio-serial port: QEMU's chardev unix socket
	// (-chardev socket,path=...,server=on,wait=off), dialed with the serial handshake.
	SchemeSerialUnix = "serial+unix"
)

// Well-known vsock context ids.
const (
	// AnyCID (VMADDR_CID_ANY) listens on every local CID: vsock://:PORT, vsock://any:PORT, vsock://-1:PORT.
	AnyCID uint32 = 0xFFFFFFFF
	// HostCID is the host seen from a guest; the only peer a guest agent accepts by default.
	HostCID uint32 = 2
)

// maxVsockPort excludes VMADDR_PORT_ANY (0xFFFFFFFF), which is not a port one can name.
const maxVsockPort = 0xFFFFFFFE

// Endpoint is a parsed endpoint URI. Which fields are set depends on Scheme.
type Endpoint struct {
	// Scheme is one of the Scheme constants.
	Scheme string
	// CID is the vsock context id (AnyCID when the URI names none).
	CID uint32
	// Host is the tcp host: an IP address or a name.
	Host string
	// Port is the vsock port (1..2^32-2), the tcp port (0..65535, 0 = any free port when listening) or the
	// hvsock port.
	Port uint32
	// Path is the socket path (unix), the device (serial) or the hybrid vsock socket (hvsock); absolute.
	Path string
}

// Parse parses an endpoint URI. Its errors name what is wrong and show the accepted forms.
func Parse(uri string) (Endpoint, error) {
	scheme, rest, ok := strings.Cut(uri, "://")
	if !ok {
		return Endpoint{}, fmt.Errorf("endpoint %q: want scheme://address (vsock://CID:PORT, unix:///path, tcp://host:port)", uri)
	}
	var (
		e   Endpoint
		err error
	)
	switch scheme {
	case SchemeVsock:
		e, err = parseVsock(rest)
	case SchemeUnix, SchemeSerial, SchemeSerialUnix:
		e, err = parsePath(scheme, rest)
	case SchemeTCP:
		e, err = parseTCP(rest)
	case SchemeHVSock:
		e, err = parseHVSock(rest)
	default:
		err = fmt.Errorf("unknown scheme %q (want vsock, unix, tcp, serial, serial+unix or hvsock)", scheme)
	}
	if err != nil {
		return Endpoint{}, fmt.Errorf("endpoint %q: %w", uri, err)
	}
	return e, nil
}

func parseVsock(rest string) (Endpoint, error) {
	cid, port, ok := strings.Cut(rest, ":")
	if !ok || strings.ContainsAny(rest, "/?#@") || strings.Count(rest, ":") != 1 {
		return Endpoint{}, errors.New("want vsock://CID:PORT or vsock://:PORT")
	}
	e := Endpoint{Scheme: SchemeVsock, CID: AnyCID}
	switch cid {
	case "", "any", "-1":
	default:
		n, err := strconv.ParseUint(cid, 10, 32)
		if err != nil || uint32(n) == AnyCID {
			return Endpoint{}, fmt.Errorf("bad CID %q: want a number below 4294967295, any or -1", cid)
		}
		e.CID = uint32(n)
	}
	p, err := strconv.ParseUint(port, 10, 32)
	if err != nil || p == 0 || p > maxVsockPort {
		return Endpoint{}, fmt.Errorf("bad port %q: want 1..%d", port, uint32(maxVsockPort))
	}
	e.Port = uint32(p)
	return e, nil
}

// parsePath takes the part after "scheme://": an absolute, clean path ("unix:///run/x.sock").
func parsePath(scheme, rest string) (Endpoint, error) {
	if !strings.HasPrefix(rest, "/") {
		return Endpoint{}, fmt.Errorf("want an absolute path: %s:///path (three slashes)", scheme)
	}
	if err := cleanPath(rest); err != nil {
		return Endpoint{}, err
	}
	return Endpoint{Scheme: scheme, Path: rest}, nil
}

func cleanPath(p string) error {
	switch {
	case strings.ContainsAny(p, "\x00?#"):
		return fmt.Errorf("path %q holds NUL, '?' or '#'", p)
	case path.Clean(p) != p || p == "/":
		return fmt.Errorf("path %q is not a clean file path", p)
	}
	return nil
}

func parseTCP(rest string) (Endpoint, error) {
	if strings.ContainsAny(rest, "/?#@") {
		return Endpoint{}, errors.New("want tcp://host:port with no path, query or user")
	}
	host, port, err := net.SplitHostPort(rest)
	if err != nil {
		return Endpoint{}, fmt.Errorf("want tcp://host:port: %w", err)
	}
	if host == "" {
		return Endpoint{}, errors.New("no host: name one (127.0.0.1, localhost, [::1], or 0.0.0.0 where non-loopback is allowed)")
	}
	if u, err := url.Parse("tcp://" + rest); err != nil || u.Hostname() != host {
		return Endpoint{}, fmt.Errorf("bad host %q", host)
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return Endpoint{}, fmt.Errorf("bad port %q: want 0..65535", port)
	}
	return Endpoint{Scheme: SchemeTCP, Host: host, Port: uint32(p)}, nil
}

// parseHVSock takes "/path/v.sock:PORT": the hybrid vsock unix socket of Firecracker or Cloud Hypervisor
// and the guest port to CONNECT to.
func parseHVSock(rest string) (Endpoint, error) {
	i := strings.LastIndexByte(rest, ':')
	if i < 0 || !strings.HasPrefix(rest, "/") {
		return Endpoint{}, errors.New("want hvsock:///path/to/v.sock:PORT")
	}
	p, err := strconv.ParseUint(rest[i+1:], 10, 32)
	if err != nil || p == 0 || p > maxVsockPort {
		return Endpoint{}, fmt.Errorf("bad port %q: want 1..%d", rest[i+1:], uint32(maxVsockPort))
	}
	if err := cleanPath(rest[:i]); err != nil {
		return Endpoint{}, err
	}
	return Endpoint{Scheme: SchemeHVSock, Path: rest[:i], Port: uint32(p)}, nil
}

// String formats e as the URI Parse reads back to e.
func (e Endpoint) String() string {
	switch e.Scheme {
	case SchemeVsock:
		if e.CID == AnyCID {
			return fmt.Sprintf("vsock://:%d", e.Port)
		}
		return fmt.Sprintf("vsock://%d:%d", e.CID, e.Port)
	case SchemeTCP:
		return "tcp://" + net.JoinHostPort(e.Host, strconv.FormatUint(uint64(e.Port), 10))
	case SchemeHVSock:
		return fmt.Sprintf("hvsock://%s:%d", e.Path, e.Port)
	default:
		return e.Scheme + "://" + e.Path
	}
}
