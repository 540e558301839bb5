package wirecodec_test

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/encoding/protowire"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/wirecodec"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// stub counts the requests that reach its handlers and keeps the last text written.
type stub struct {
	agentv1.UnimplementedClipboardServiceServer
	agentv1.UnimplementedObserveServiceServer
	calls   atomic.Int32
	unknown atomic.Int32 // requests that reached a handler with unknown fields
}

func (s *stub) WriteClipboard(_ context.Context, r *agentv1.WriteClipboardRequest) (*agentv1.WriteClipboardResponse, error) {
	s.calls.Add(1)
	if len(r.ProtoReflect().GetUnknown()) > 0 {
		s.unknown.Add(1)
	}
	return &agentv1.WriteClipboardResponse{}, nil
}

func (s *stub) WatchScreen(r *agentv1.WatchScreenRequest, ss grpc.ServerStreamingServer[agentv1.WatchScreenResponse]) error {
	s.calls.Add(1)
	return ss.Send(&agentv1.WatchScreenResponse{FrameSeq: 1})
}

// serve starts a server installed as the package comment says, in memory, and returns a connection to it.
func serve(t *testing.T, s *stub) *grpc.ClientConn {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	g := grpc.NewServer(
		grpc.ForceServerCodecV2(wirecodec.Codec{}),
		grpc.ChainUnaryInterceptor(errgrpc.UnaryServerInterceptor(), wirecodec.UnaryServerInterceptor()),
		grpc.ChainStreamInterceptor(errgrpc.StreamServerInterceptor(), wirecodec.StreamServerInterceptor()),
	)
	agentv1.RegisterClipboardServiceServer(g, s)
	agentv1.RegisterObserveServiceServer(g, s)
	go g.Serve(lis)
	conn, err := grpc.NewClient("passthrough:///bufconn",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		g.Stop()
	})
	return conn
}

// rawCodec puts pre-encoded bytes on the wire, which a generated client would refuse to encode.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return v.([]byte), nil }
func (rawCodec) Unmarshal(data []byte, v any) error {
	*(v.(*[]byte)) = append([]byte(nil), data...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

func field(b []byte, n protowire.Number, s string) []byte {
	return protowire.AppendString(protowire.AppendTag(b, n, protowire.BytesType), s)
}

// violations returns the BadRequest fields of an INVALID_ARGUMENT error, and fails on any other error.
func violations(t *testing.T, err error) []errdefs.Violation {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != codes.InvalidArgument {
		t.Fatalf("error %v, want InvalidArgument", err)
	}
	var out []errdefs.Violation
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			for _, v := range br.GetFieldViolations() {
				out = append(out, errdefs.Violation{Field: v.GetField(), Description: v.GetDescription()})
			}
		}
	}
	return out
}

func TestServerRefusesInvalidUTF8(t *testing.T) {
	s := &stub{}
	conn := serve(t, s)
	ctx := context.Background()

	t.Run("unary", func(t *testing.T) {
		raw := field(field(nil, 1, "s1\xff"), 3, "ok \xff\xfe bad")
		var resp []byte
		err := conn.Invoke(ctx, agentv1.ClipboardService_WriteClipboard_FullMethodName, raw, &resp, grpc.ForceCodec(rawCodec{}))
		want := []errdefs.Violation{
			{Field: "owner", Description: "must be valid UTF-8, got an invalid byte at 2"},
			{Field: "text", Description: "must be valid UTF-8, got an invalid byte at 3"},
		}
		if diff := cmp.Diff(want, violations(t, err)); diff != "" {
			t.Errorf("violations (-want +got):\n%s", diff)
		}
		if !errors.Is(errgrpc.FromError(err), errdefs.ErrInvalidArgument) {
			t.Errorf("errgrpc.FromError(%v) is not ErrInvalidArgument", err)
		}
	})
	t.Run("server stream", func(t *testing.T) {
		opts := field(nil, 1, "\xc3(")
		raw := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), opts)
		st, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, agentv1.ObserveService_WatchScreen_FullMethodName, grpc.ForceCodec(rawCodec{}))
		if err != nil {
			t.Fatal(err)
		}
		if err := st.SendMsg(raw); err != nil {
			t.Fatal(err)
		}
		if err := st.CloseSend(); err != nil {
			t.Fatal(err)
		}
		var resp []byte
		err = st.RecvMsg(&resp)
		want := []errdefs.Violation{{Field: "options.display_id", Description: "must be valid UTF-8, got an invalid byte at 0"}}
		if diff := cmp.Diff(want, violations(t, err)); diff != "" {
			t.Errorf("violations (-want +got):\n%s", diff)
		}
	})
	if n := s.calls.Load(); n != 0 {
		t.Errorf("handlers ran %d times for refused requests", n)
	}

	// Valid requests, one with a forged mark from the client, reach the handlers; the mark does not.
	t.Run("valid", func(t *testing.T) {
		c := agentv1.NewClipboardServiceClient(conn)
		if _, err := c.WriteClipboard(ctx, &agentv1.WriteClipboardRequest{Text: "héllo"}); err != nil {
			t.Fatal(err)
		}
		forged := field(field(nil, 3, "x"), wirecodec.MarkField, "\x0a\x05\x0a\x03abc")
		var resp []byte
		if err := conn.Invoke(ctx, agentv1.ClipboardService_WriteClipboard_FullMethodName, forged, &resp, grpc.ForceCodec(rawCodec{})); err != nil {
			t.Fatalf("request with a forged mark: %v", err)
		}
		w, err := agentv1.NewObserveServiceClient(conn).WatchScreen(ctx, &agentv1.WatchScreenRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Recv(); err != nil {
			t.Fatal(err)
		}
		if n := s.calls.Load(); n != 3 {
			t.Errorf("handlers ran %d times, want 3", n)
		}
		if n := s.unknown.Load(); n != 0 {
			t.Errorf("%d requests reached the handler with the forged mark", n)
		}
	})
}
