package errgrpc_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// contract pins the code and ErrorInfo.reason of every error class. Changing a line is an API change.
var contract = []struct {
	class  error
	code   codes.Code
	reason string
}{
	{errdefs.ErrInvalidArgument, codes.InvalidArgument, "INVALID_ARGUMENT"},
	{errdefs.ErrStaleRef, codes.FailedPrecondition, "STALE_REF"},
	{errdefs.ErrSnapshotSuperseded, codes.FailedPrecondition, "SNAPSHOT_SUPERSEDED"},
	{errdefs.ErrTargetGone, codes.NotFound, "TARGET_GONE"},
	{errdefs.ErrTargetAmbiguous, codes.FailedPrecondition, "TARGET_AMBIGUOUS"},
	{errdefs.ErrControlHeld, codes.FailedPrecondition, "CONTROL_HELD"},
	{errdefs.ErrReadOnlySession, codes.FailedPrecondition, "READ_ONLY_SESSION"},
	{errdefs.ErrCapabilityUnavailable, codes.FailedPrecondition, "CAPABILITY_UNAVAILABLE"},
	{errdefs.ErrUnsupportedAction, codes.Unimplemented, "UNSUPPORTED_ACTION"},
	{errdefs.ErrPolicyDenied, codes.PermissionDenied, "POLICY_DENIED"},
	{errdefs.ErrConfirmationRequired, codes.FailedPrecondition, "CONFIRMATION_REQUIRED"},
	{errdefs.ErrNotFound, codes.NotFound, "NOT_FOUND"},
	{errdefs.ErrGenerationChanged, codes.FailedPrecondition, "GENERATION_CHANGED"},
	{errdefs.ErrTimeout, codes.DeadlineExceeded, "TIMEOUT"},
	{errdefs.ErrUnavailable, codes.Unavailable, "UNAVAILABLE"},
	{errdefs.ErrInterrupted, codes.Aborted, "INTERRUPTED"},
	{errdefs.ErrPermissionDenied, codes.PermissionDenied, "PERMISSION_DENIED"},
	{errdefs.ErrResourceExhausted, codes.ResourceExhausted, "RESOURCE_EXHAUSTED"},
	{errdefs.ErrDuplicateRequest, codes.Aborted, "DUPLICATE_REQUEST"},
	{errdefs.ErrInternal, codes.Internal, "INTERNAL"},
}

type wire struct {
	Code   codes.Code
	Reason string
	Domain string
	Msg    string
}

func wireOf(st *status.Status) wire {
	w := wire{Code: st.Code(), Msg: st.Message()}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			w.Reason, w.Domain = info.GetReason(), info.GetDomain()
		}
	}
	return w
}

func TestToStatusContract(t *testing.T) {
	for _, c := range contract {
		err := fmt.Errorf("window 7: %w", c.class)
		want := wire{Code: c.code, Reason: c.reason, Domain: "glovebox.dev", Msg: err.Error()}
		if diff := cmp.Diff(want, wireOf(errgrpc.ToStatus(err))); diff != "" {
			t.Errorf("ToStatus(%v) (-want +got):\n%s", c.class, diff)
		}
	}
}

func TestToStatusSpecial(t *testing.T) {
	passthrough := status.Error(codes.OutOfRange, "already a status")
	tests := []struct {
		name string
		err  error
		want wire
	}{
		{"canceled", fmt.Errorf("act: %w", context.Canceled), wire{Code: codes.Canceled, Msg: "act: context canceled"}},
		{"deadline", fmt.Errorf("act: %w", context.DeadlineExceeded), wire{Code: codes.DeadlineExceeded, Reason: "TIMEOUT", Domain: "glovebox.dev", Msg: "act: context deadline exceeded"}},
		{"unclassified", errors.New("boom"), wire{Code: codes.Internal, Reason: "INTERNAL", Domain: "glovebox.dev", Msg: "boom"}},
		{"status passes through", passthrough, wire{Code: codes.OutOfRange, Msg: "already a status"}},
		{"nil", nil, wire{Code: codes.OK}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, wireOf(errgrpc.ToStatus(tt.err))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// healthStub answers every Check with the error in err and streams that error from Watch.
type healthStub struct {
	healthpb.UnimplementedHealthServer
	err error
}

func (h *healthStub) Check(context.Context, *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	return nil, h.err
}

func (h *healthStub) Watch(_ *healthpb.HealthCheckRequest, ss grpc.ServerStreamingServer[healthpb.HealthCheckResponse]) error {
	return h.err
}

// dial serves stub over bufconn with the errgrpc interceptors on both sides.
func dial(t *testing.T, stub *healthStub) healthpb.HealthClient {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer(
		grpc.UnaryInterceptor(errgrpc.UnaryServerInterceptor()),
		grpc.StreamInterceptor(errgrpc.StreamServerInterceptor()),
	)
	healthpb.RegisterHealthServer(srv, stub)
	go srv.Serve(lis)
	cc, err := grpc.NewClient("passthrough:///bufconn",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithUnaryInterceptor(errgrpc.UnaryClientInterceptor()),
		grpc.WithStreamInterceptor(errgrpc.StreamClientInterceptor()),
	)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cc.Close()
		srv.Stop()
	})
	return healthpb.NewHealthClient(cc)
}

func TestRoundTripEveryClass(t *testing.T) {
	stub := &healthStub{}
	client := dial(t, stub)
	ctx := t.Context()
	for _, c := range contract {
		stub.err = fmt.Errorf("window 7: %w", c.class)
		_, err := client.Check(ctx, &healthpb.HealthCheckRequest{})
		if !errors.Is(err, c.class) {
			t.Errorf("unary %s: got %v, want errors.Is %v", c.reason, err, c.class)
		}
		if got, want := wireOf(status.Convert(err)), (wire{Code: c.code, Reason: c.reason, Domain: "glovebox.dev", Msg: "window 7: " + c.class.Error()}); got != want {
			t.Errorf("unary %s: status %+v, want %+v", c.reason, got, want)
		}
		if err.Error() != "window 7: "+c.class.Error() {
			t.Errorf("unary %s: message %q", c.reason, err.Error())
		}
		ws, err := client.Watch(ctx, &healthpb.HealthCheckRequest{})
		if err == nil {
			_, err = ws.Recv()
		}
		if !errors.Is(err, c.class) {
			t.Errorf("stream %s: got %v, want errors.Is %v", c.reason, err, c.class)
		}
	}
}

func TestRoundTripBadRequest(t *testing.T) {
	var v errdefs.Violations
	v.Addf("action.click.count", "must be 1..3, got %d", 7)
	v.Addf("owner", "required")
	stub := &healthStub{err: v.Err()}
	_, err := dial(t, stub).Check(t.Context(), &healthpb.HealthCheckRequest{})
	if !errors.Is(err, errdefs.ErrInvalidArgument) {
		t.Fatalf("got %v, want invalid argument", err)
	}
	var br *errdefs.BadRequest
	if !errors.As(err, &br) {
		t.Fatalf("errors.As(%v, *BadRequest) = false", err)
	}
	want := []errdefs.Violation{
		{Field: "action.click.count", Description: "must be 1..3, got 7"},
		{Field: "owner", Description: "required"},
	}
	if diff := cmp.Diff(want, br.Violations); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	if code := status.Code(err); code != codes.InvalidArgument {
		t.Errorf("code %v", code)
	}
}

func TestRoundTripMetadata(t *testing.T) {
	md := map[string]string{"candidates": "app:12,app:34"}
	stub := &healthStub{err: errgrpc.WithMetadata(fmt.Errorf("app %q: %w", "gedit", errdefs.ErrTargetAmbiguous), md)}
	_, err := dial(t, stub).Check(t.Context(), &healthpb.HealthCheckRequest{})
	if !errors.Is(err, errdefs.ErrTargetAmbiguous) {
		t.Fatalf("got %v", err)
	}
	if diff := cmp.Diff(md, errgrpc.Metadata(err)); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
}

func TestFromErrorWithoutErrorInfo(t *testing.T) {
	tests := []struct {
		err  error
		want error
	}{
		{status.Error(codes.Unavailable, "connection refused"), errdefs.ErrUnavailable},
		{status.Error(codes.DeadlineExceeded, "deadline"), errdefs.ErrTimeout},
		{status.Error(codes.Canceled, "canceled"), context.Canceled},
		{status.Error(codes.Unimplemented, "unknown method"), errdefs.ErrUnsupportedAction},
		{status.Error(codes.Unknown, "what"), errdefs.ErrInternal},
	}
	for _, tt := range tests {
		got := errgrpc.FromError(tt.err)
		if !errors.Is(got, tt.want) {
			t.Errorf("FromError(%v) = %v, want errors.Is %v", tt.err, got, tt.want)
		}
		if status.Code(got) != status.Code(tt.err) {
			t.Errorf("FromError(%v) lost its code: %v", tt.err, status.Code(got))
		}
	}
	plain := errors.New("not a status")
	if got := errgrpc.FromError(plain); got != plain {
		t.Errorf("FromError(plain) = %v", got)
	}
	if errgrpc.FromError(nil) != nil {
		t.Error("FromError(nil) != nil")
	}
}

// TestRelay checks that a server relaying a decoded error (the broker passing on a guest error) sends the
// original status, details included.
func TestRelay(t *testing.T) {
	var v errdefs.Violations
	v.Addf("owner", "required")
	orig := errgrpc.ToStatus(v.Err())
	decoded := errgrpc.FromError(orig.Err())
	relayed := errgrpc.ToStatus(fmt.Errorf("guest vm1: %w", decoded))
	if diff := cmp.Diff(wireOf(orig), wireOf(relayed), cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Msg" }, cmp.Ignore())); diff != "" {
		t.Errorf("relay (-orig +relayed):\n%s", diff)
	}
	var br *errdefs.BadRequest
	if !errors.As(errgrpc.FromError(relayed.Err()), &br) || len(br.Violations) != 1 {
		t.Errorf("relayed violations lost: %v", br)
	}
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRoundTripInvalidUTF8 sends errors whose text holds bytes that are not UTF-8 (a name cut mid-rune, a
// Latin-1 window title): the class, the metadata and every violation still arrive.
func TestRoundTripInvalidUTF8(t *testing.T) {
	stub := &healthStub{}
	client := dial(t, stub)
	for _, c := range contract {
		stub.err = fmt.Errorf("window \"caf\xe9\": %w", c.class)
		_, err := client.Check(t.Context(), &healthpb.HealthCheckRequest{})
		if !errors.Is(err, c.class) {
			t.Errorf("%s: got %v, want errors.Is %v", c.reason, err, c.class)
		}
		// A relaying server (the broker) adds its own words to a decoded error.
		stub.err = fmt.Errorf("guest \"vm\xe9\": %w", errgrpc.FromError(errgrpc.Error(fmt.Errorf("window 7: %w", c.class))))
		_, err = client.Check(t.Context(), &healthpb.HealthCheckRequest{})
		if !errors.Is(err, c.class) {
			t.Errorf("%s relayed: got %v, want errors.Is %v", c.reason, err, c.class)
		}
	}
	stub.err = errgrpc.WithMetadata(fmt.Errorf("2 apps: %w", errdefs.ErrTargetAmbiguous), map[string]string{"candidates": "a\xff,b"})
	_, err := client.Check(t.Context(), &healthpb.HealthCheckRequest{})
	if !errors.Is(err, errdefs.ErrTargetAmbiguous) || errgrpc.Metadata(err)["candidates"] == "" {
		t.Errorf("metadata: got %v with %v, want target ambiguous with candidates", err, errgrpc.Metadata(err))
	}
	var v errdefs.Violations
	v.Addf("action.type.text", "bad text %s", "\xc3")
	v.Addf("owner\xff", "required")
	stub.err = v.Err()
	_, err = client.Check(t.Context(), &healthpb.HealthCheckRequest{})
	var br *errdefs.BadRequest
	if !errors.As(err, &br) || len(br.Violations) != 2 {
		t.Fatalf("violations lost: %v (%v)", br, err)
	}
}
