package endpoint

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// echoDesc is a one-method service that answers a string with itself: guest content travelling to the host.
var echoDesc = grpc.ServiceDesc{
	ServiceName: "test.Echo",
	HandlerType: (*any)(nil),
	Methods: []grpc.MethodDesc{{
		MethodName: "Echo",
		Handler: func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			in := new(wrapperspb.StringValue)
			if err := dec(in); err != nil {
				return nil, err
			}
			return in, nil
		},
	}},
}

// TestSerialResetInContentIsData sends guest content that holds the RESET line (a page, a window title or the
// clipboard can hold any text) in a gRPC answer over the serial transport: it is data inside an HTTP/2 frame,
// not the guest agent announcing a restart, so the call succeeds and the connection stays up.
func TestSerialResetInContentIsData(t *testing.T) {
	p := &pipePort{}
	path := chardevServer(t, p)
	l := newSerialListener(p, "/dev/virtio-ports/test", slog.New(slog.DiscardHandler))
	g := grpc.NewServer()
	g.RegisterService(&echoDesc, struct{}{})
	go g.Serve(l)
	defer g.Stop()

	e, err := Parse("serial+unix://" + path)
	if err != nil {
		t.Fatal(err)
	}
	target, opts := GRPCTarget(e)
	cc, err := grpc.NewClient(target, append(opts, grpc.WithTransportCredentials(insecure.NewCredentials()))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, text := range []string{"plain", "copied: \n" + serialReset + "end", "\n" + serialReset} {
		in, out := wrapperspb.String(text), new(wrapperspb.StringValue)
		if err := cc.Invoke(ctx, "/test.Echo/Echo", in, out, grpc.WaitForReady(true)); err != nil {
			t.Fatalf("echo %q: %v", text, err)
		}
		if out.GetValue() != text {
			t.Fatalf("echo %q: got %q", text, out.GetValue())
		}
	}
}
