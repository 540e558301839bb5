// Package endpoint parses endpoint URIs (vsock://CID:PORT, unix:///path, tcp://host:port, and, parse only
// until the VM transport lands, serial:///dev/virtio-ports/NAME and hvsock:///path/v.sock:PORT) and
// listens on or dials them with the access checks the design asks for.
package endpoint

import (
	"context"
	"log/slog"
	"net"
	"os"

	"google.golang.org/grpc"
)

// Endpoint is a parsed endpoint URI.
type Endpoint struct {
	// Scheme is one of "vsock", "unix", "tcp", "serial", "hvsock".
	Scheme string
	// Path for unix, serial and hvsock.
	Path string
	// Host and Port for tcp; Port for vsock and hvsock.
	Host string
	Port uint32
	// CID for vsock; AnyCID when the URI names none or "any".
	CID uint32
}

// ListenOptions are the access checks of Listen.
type ListenOptions struct {
	AllowCIDs        []uint32
	AllowNonLoopback bool
	UnixMode         os.FileMode
	Logger           *slog.Logger
}

// Parse parses an endpoint URI.
func Parse(uri string) (Endpoint, error) { return Endpoint{}, nil }

// String formats e as a URI Parse accepts.
func (e Endpoint) String() string { return "" }

// Listen listens on e.
func Listen(ctx context.Context, e Endpoint, o ListenOptions) (net.Listener, error) { return nil, nil }

// Dial connects to e.
func Dial(ctx context.Context, e Endpoint) (net.Conn, error) { return nil, nil }

// GRPCTarget returns a grpc.NewClient target and the dial options that reach e.
func GRPCTarget(e Endpoint) (target string, opts []grpc.DialOption) { return "", nil }
