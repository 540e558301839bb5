package broker

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"glovebox.dev/host/internal/auth"
	"glovebox.dev/host/internal/config"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// fakeAgent is the other side of the broker in unit tests: the agent API over a real unix socket, recording
// what it received.
type fakeAgent struct {
	agentv1.UnimplementedAgentServiceServer
	agentv1.UnimplementedActServiceServer
	agentv1.UnimplementedObserveServiceServer
	agentv1.UnimplementedClipboardServiceServer
	agentv1.UnimplementedAccessibilityServiceServer

	socket string
	srv    *grpc.Server

	mu      sync.Mutex
	gen     uint64
	acts    []*agentv1.ActRequest
	writes  []*agentv1.WriteClipboardRequest
	windows []*agentv1.Window
	// a11y holds the accessibility reads received (computer_a11y_test.go).
	a11y []proto.Message
	// elements, when set, are the elements of every app snapshot (recording_test.go).
	elements []*agentv1.Element
	// onAct, when set, runs before the act is answered (block, fail, ...).
	onAct func(ctx context.Context, r *agentv1.ActRequest) error
	// onShot, when set, runs before a screenshot is answered.
	onShot func(ctx context.Context) error
	// keepActs, when > 0, caps acts at that many (load tests: memory must not grow with the request count).
	keepActs int
}

func startFakeAgent(t testing.TB) *fakeAgent { return startFakeAgentKeeping(t, 0) }

// startFakeAgentKeeping is startFakeAgent recording only the first keepActs acts (0: all).
func startFakeAgentKeeping(t testing.TB, keepActs int) *fakeAgent {
	t.Helper()
	dir, err := os.MkdirTemp("", "gbfake")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	a := &fakeAgent{socket: filepath.Join(dir, "agent.sock"), gen: 1000, keepActs: keepActs,
		windows: []*agentv1.Window{{Id: 0x400001, Title: "one", Mapped: true}, {Id: 0x400002, Title: "two", Mapped: true}}}
	a.serve(t)
	return a
}

func (a *fakeAgent) serve(t testing.TB) {
	t.Helper()
	l, err := net.Listen("unix", a.socket)
	if err != nil {
		t.Fatal(err)
	}
	a.srv = grpc.NewServer(grpc.ChainUnaryInterceptor(errgrpc.UnaryServerInterceptor()))
	agentv1.RegisterAgentServiceServer(a.srv, a)
	agentv1.RegisterActServiceServer(a.srv, a)
	agentv1.RegisterObserveServiceServer(a.srv, a)
	agentv1.RegisterClipboardServiceServer(a.srv, a)
	agentv1.RegisterAccessibilityServiceServer(a.srv, a)
	agentv1.RegisterBrowserServiceServer(a.srv, fakeBrowser{})
	go a.srv.Serve(l)
	t.Cleanup(a.srv.Stop)
}

// restart stops the server and serves again with a new generation (a restarted agent).
func (a *fakeAgent) restart(t testing.TB) {
	a.srv.Stop()
	a.mu.Lock()
	a.gen++
	a.mu.Unlock()
	a.serve(t)
}

func (a *fakeAgent) endpoint() string { return "unix://" + a.socket }

func (a *fakeAgent) GetInfo(ctx context.Context, r *agentv1.GetInfoRequest) (*agentv1.GetInfoResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return &agentv1.GetInfoResponse{Version: "fake", Generation: a.gen, Displays: []*agentv1.Display{{Id: ":0", Primary: true}}}, nil
}

func (a *fakeAgent) Act(ctx context.Context, r *agentv1.ActRequest) (*agentv1.ActResponse, error) {
	a.mu.Lock()
	if a.keepActs == 0 || len(a.acts) < a.keepActs {
		a.acts = append(a.acts, proto.CloneOf(r))
	}
	gen, hook := a.gen, a.onAct
	a.mu.Unlock()
	if g := r.GetTarget().GetGeneration(); g != 0 && g != gen {
		return nil, errdefs.ErrGenerationChanged
	}
	if hook != nil {
		if err := hook(ctx, r); err != nil {
			return nil, err
		}
	}
	ft := &agentv1.FrozenTarget{Source: agentv1.TargetSource_TARGET_SOURCE_EXPLICIT, Generation: gen,
		WindowId: r.GetTarget().GetWindow().GetWindowId(), DisplayId: r.GetTarget().GetDisplay().GetDisplayId()}
	if r.GetTarget().GetKind() == nil {
		ft.Source, ft.DisplayId = agentv1.TargetSource_TARGET_SOURCE_ACTIVE, ":0"
	}
	if err := elementFrozen(r, ft); err != nil {
		return nil, err
	}
	return &agentv1.ActResponse{Effect: agentv1.Effect_EFFECT_DONE, Target: ft}, nil
}

// ActBatch answers each action as Act does, stopping at the first error.
func (a *fakeAgent) ActBatch(ctx context.Context, r *agentv1.ActBatchRequest) (*agentv1.ActBatchResponse, error) {
	out := &agentv1.ActBatchResponse{}
	for i, item := range r.GetActions() {
		resp, err := a.Act(ctx, item)
		if err != nil {
			out.Failure = &agentv1.BatchFailure{Index: int32(i), Reason: errdefs.Reason(err), Message: err.Error()}
			break
		}
		out.Results = append(out.Results, resp)
	}
	return out, nil
}

func (a *fakeAgent) CaptureScreenshot(ctx context.Context, r *agentv1.CaptureScreenshotRequest) (*agentv1.CaptureScreenshotResponse, error) {
	a.mu.Lock()
	hook := a.onShot
	a.mu.Unlock()
	if hook != nil {
		if err := hook(ctx); err != nil {
			return nil, err
		}
	}
	return &agentv1.CaptureScreenshotResponse{Image: &agentv1.Image{Format: agentv1.ImageFormat_IMAGE_FORMAT_PNG, Width: 4, Height: 4, Data: []byte("\x89PNG fake")}}, nil
}

func (a *fakeAgent) GetCursorPosition(ctx context.Context, r *agentv1.GetCursorPositionRequest) (*agentv1.GetCursorPositionResponse, error) {
	return &agentv1.GetCursorPositionResponse{Position: &agentv1.Point{X: 1, Y: 2}}, nil
}

func (a *fakeAgent) ListWindows(ctx context.Context, r *agentv1.ListWindowsRequest) (*agentv1.ListWindowsResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return &agentv1.ListWindowsResponse{Windows: a.windows}, nil
}

func (a *fakeAgent) ReadClipboard(ctx context.Context, r *agentv1.ReadClipboardRequest) (*agentv1.ReadClipboardResponse, error) {
	return &agentv1.ReadClipboardResponse{Text: "clipboard text"}, nil
}

func (a *fakeAgent) WriteClipboard(ctx context.Context, r *agentv1.WriteClipboardRequest) (*agentv1.WriteClipboardResponse, error) {
	a.mu.Lock()
	a.writes = append(a.writes, proto.CloneOf(r))
	a.mu.Unlock()
	return &agentv1.WriteClipboardResponse{Length: int64(len(r.GetText()))}, nil
}

// received returns the acts the agent got, without the handshake's release_all{everything}.
func (a *fakeAgent) received() []*agentv1.ActRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []*agentv1.ActRequest
	for _, r := range a.acts {
		if !r.GetReleaseAll().GetEverything() {
			out = append(out, r)
		}
	}
	return out
}

func (a *fakeAgent) setOnAct(f func(ctx context.Context, r *agentv1.ActRequest) error) {
	a.mu.Lock()
	a.onAct = f
	a.mu.Unlock()
}

// memAudit is an in-memory Auditor.
type memAudit struct {
	mu   sync.Mutex
	recs map[string][]*brokerv1.AuditRecord
}

func (m *memAudit) Append(ctx context.Context, rec *brokerv1.AuditRecord) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.recs == nil {
		m.recs = map[string][]*brokerv1.AuditRecord{}
	}
	rec = proto.CloneOf(rec)
	rec.Seq = uint64(len(m.recs[rec.GetGuest()]) + 1)
	m.recs[rec.GetGuest()] = append(m.recs[rec.GetGuest()], rec)
	return rec.Seq, nil
}

func (m *memAudit) records(guest string) []*brokerv1.AuditRecord {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*brokerv1.AuditRecord(nil), m.recs[guest]...)
}

// testBroker is a broker over fake agents with principals "agent" (act), "watcher" (observe-only),
// "human" (control) and "root" (admin).
type testBroker struct {
	*Broker
	audit *memAudit
	cfg   *config.Config
}

func testConfig(guests ...config.Guest) *config.Config {
	cfg := &config.Config{
		Audit: config.Audit{Dir: "/unused"},
		Principals: []config.Principal{
			{Name: "agent", UIDs: []uint32{1}, Guests: []string{"*"}},
			{Name: "other", UIDs: []uint32{2}, Guests: []string{"*"}},
			{Name: "watcher", UIDs: []uint32{3}, Guests: []string{"*"}, ObserveOnly: true},
			{Name: "human", UIDs: []uint32{4}, Guests: []string{"*"}, Control: true},
			{Name: "root", UIDs: []uint32{5}, Admin: true},
		},
		Guests:           guests,
		GuestCallTimeout: config.Duration(2 * time.Second),
	}
	cfg.ApplyDefaults()
	return cfg
}

func newTestBroker(t testing.TB, cfg *config.Config, mod func(o *Options)) *testBroker {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	ma := &memAudit{}
	o := Options{Config: cfg, Audit: ma}
	if mod != nil {
		mod(&o)
	}
	b, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close(context.Background()) })
	for _, g := range cfg.Guests {
		waitReady(t, b, g.Name)
	}
	return &testBroker{Broker: b, audit: ma, cfg: cfg}
}

// as returns a context authenticated as the named principal.
func (tb *testBroker) as(name string) context.Context {
	for i := range tb.cfg.Principals {
		if tb.cfg.Principals[i].Name == name {
			return auth.WithCaller(context.Background(), &auth.Caller{Principal: &tb.cfg.Principals[i]})
		}
	}
	panic("no principal " + name)
}

func waitReady(t testing.TB, b *Broker, guest string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		b.mu.Lock()
		g := b.guests[guest]
		b.mu.Unlock()
		if g != nil && g.conn.Ready() == nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("guest %s not ready", guest)
}

func (tb *testBroker) session(t testing.TB, principal, guest string) string {
	t.Helper()
	s, err := tb.CreateSession(tb.as(principal), &brokerv1.CreateSessionRequest{Guest: guest})
	if err != nil {
		t.Fatal(err)
	}
	return s.GetId()
}

func click(x, y int32, button agentv1.MouseButton) *agentv1.ActRequest {
	return &agentv1.ActRequest{Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{At: &agentv1.Point{X: x, Y: y}, Button: button}}}
}

func typeText(s string) *agentv1.ActRequest {
	return &agentv1.ActRequest{Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: s}}}
}

func windowTarget(id uint32) *agentv1.Target {
	return &agentv1.Target{Kind: &agentv1.Target_Window{Window: &agentv1.WindowTarget{WindowId: id}}}
}

// reason is the ErrorInfo reason of err as a client would see it.
func reason(err error) string {
	return errgrpc.ReasonString(errdefs.Reason(errgrpc.FromError(errgrpc.Error(err))))
}
