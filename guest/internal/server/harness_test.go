package server

import (
	"glovebox.dev/shared/endpoint"
	"net"
	"path/filepath"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// dialServices serves s on a unix socket in a temporary directory, the way glovebox-agent does, and returns
// a client connection to it. Everything is stopped when the test ends.
func dialServices(t testing.TB, s *Services) *grpc.ClientConn {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "agent.sock")
	lis, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer(s.ServerOptions()...)
	s.Register(g)
	go g.Serve(lis)
	t.Cleanup(g.Stop)
	// Dialled as the broker dials its guests.
	opts := append(endpoint.WindowOptions(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessageBytes), grpc.MaxCallSendMsgSize(MaxMessageBytes)))
	conn, err := grpc.NewClient("unix://"+sock, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// violatedFields returns the fields named by the BadRequest detail of an INVALID_ARGUMENT error, and reports
// any other error.
func violatedFields(t *testing.T, err error) []string {
	t.Helper()
	st, _ := status.FromError(err)
	if st.Code() != codes.InvalidArgument {
		t.Errorf("code %v (%v), want InvalidArgument", st.Code(), err)
		return nil
	}
	var out []string
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			for _, v := range br.GetFieldViolations() {
				out = append(out, v.GetField())
			}
		}
	}
	return out
}

// rawCodec sends and receives pre-encoded message bytes, to put on the wire what a generated client refuses to.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error)      { return v.([]byte), nil }
func (rawCodec) Unmarshal(data []byte, v any) error { *(v.(*[]byte)) = data; return nil }
func (rawCodec) Name() string                       { return "proto" }
