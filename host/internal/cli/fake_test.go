package cli

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errgrpc"
)

// fakeBroker implements every broker service over a real unix socket, records each request and answers with
// canned responses, or with err when set (converted by the real errgrpc server interceptor).
type fakeBroker struct {
	brokerv1.UnimplementedGuestServiceServer
	brokerv1.UnimplementedSessionServiceServer
	brokerv1.UnimplementedComputerServiceServer
	brokerv1.UnimplementedControlServiceServer
	brokerv1.UnimplementedAuditServiceServer

	uri string

	mu   sync.Mutex
	reqs []proto.Message
	err  error
	// image is the screenshot and observation bytes; clip the clipboard text; records the audit log.
	image   []byte
	clip    string
	records []*brokerv1.AuditRecord
}

func startFakeBroker(t *testing.T) *fakeBroker {
	t.Helper()
	dir, err := os.MkdirTemp("", "gbcli") // short: unix socket paths are limited to 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "broker.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeBroker{uri: "unix://" + sock, image: []byte("\x89PNG\r\n\x1a\nfake")}
	s := grpc.NewServer(grpc.ChainUnaryInterceptor(errgrpc.UnaryServerInterceptor()), grpc.ChainStreamInterceptor(errgrpc.StreamServerInterceptor()))
	brokerv1.RegisterGuestServiceServer(s, f)
	brokerv1.RegisterSessionServiceServer(s, f)
	brokerv1.RegisterComputerServiceServer(s, f)
	brokerv1.RegisterControlServiceServer(s, f)
	brokerv1.RegisterAuditServiceServer(s, f)
	go s.Serve(l)
	t.Cleanup(s.Stop)
	return f
}

// record saves req and returns the configured error.
func (f *fakeBroker) record(req proto.Message) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, req)
	return f.err
}

func (f *fakeBroker) requests() []proto.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]proto.Message(nil), f.reqs...)
}

func (f *fakeBroker) setErr(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

// run runs the CLI against f with stdin and env, returning exit code, stdout and stderr.
func (f *fakeBroker) run(t *testing.T, stdin string, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	getenv := func(k string) string {
		if k == "GLOVEBOX_BROKER" {
			if v, ok := env[k]; ok {
				return v
			}
			return f.uri
		}
		return env[k]
	}
	code := Run(context.Background(), args, Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut, Getenv: getenv})
	return code, out.String(), errOut.String()
}

var testSession = &brokerv1.Session{Id: "s-1", Guest: "g1", Principal: "uid:1000", Mode: brokerv1.SessionMode_SESSION_MODE_ACT, State: brokerv1.SessionState_SESSION_STATE_OPEN}

var testGuest = &brokerv1.Guest{Name: "g1", Endpoint: "vsock://3:7000", State: brokerv1.GuestState_GUEST_STATE_READY, Generation: 2}

func (f *fakeBroker) RegisterGuest(_ context.Context, r *brokerv1.RegisterGuestRequest) (*brokerv1.RegisterGuestResponse, error) {
	return &brokerv1.RegisterGuestResponse{Guest: testGuest}, f.record(r)
}

func (f *fakeBroker) UnregisterGuest(_ context.Context, r *brokerv1.UnregisterGuestRequest) (*brokerv1.UnregisterGuestResponse, error) {
	return &brokerv1.UnregisterGuestResponse{}, f.record(r)
}

func (f *fakeBroker) GetGuest(_ context.Context, r *brokerv1.GetGuestRequest) (*brokerv1.GetGuestResponse, error) {
	return &brokerv1.GetGuestResponse{Guest: testGuest}, f.record(r)
}

func (f *fakeBroker) ListGuests(_ context.Context, r *brokerv1.ListGuestsRequest) (*brokerv1.ListGuestsResponse, error) {
	return &brokerv1.ListGuestsResponse{Guests: []*brokerv1.Guest{testGuest}}, f.record(r)
}

func (f *fakeBroker) CreateSession(_ context.Context, r *brokerv1.CreateSessionRequest) (*brokerv1.CreateSessionResponse, error) {
	return &brokerv1.CreateSessionResponse{Session: testSession}, f.record(r)
}

func (f *fakeBroker) GetSession(_ context.Context, r *brokerv1.GetSessionRequest) (*brokerv1.GetSessionResponse, error) {
	return &brokerv1.GetSessionResponse{Session: testSession}, f.record(r)
}

func (f *fakeBroker) ListSessions(_ context.Context, r *brokerv1.ListSessionsRequest) (*brokerv1.ListSessionsResponse, error) {
	return &brokerv1.ListSessionsResponse{Sessions: []*brokerv1.Session{testSession}}, f.record(r)
}

func (f *fakeBroker) DeleteSession(_ context.Context, r *brokerv1.DeleteSessionRequest) (*brokerv1.DeleteSessionResponse, error) {
	return &brokerv1.DeleteSessionResponse{Session: testSession}, f.record(r)
}

func (f *fakeBroker) SetSessionDefaults(_ context.Context, r *brokerv1.SetSessionDefaultsRequest) (*brokerv1.SetSessionDefaultsResponse, error) {
	s := proto.Clone(testSession).(*brokerv1.Session)
	s.DefaultTarget = r.GetDefaultTarget()
	return &brokerv1.SetSessionDefaultsResponse{Session: s}, f.record(r)
}

func (f *fakeBroker) testImage() *agentv1.Image {
	return &agentv1.Image{Format: agentv1.ImageFormat_IMAGE_FORMAT_PNG, Width: 1280, Height: 800, Scale: 1, Data: f.image,
		Region: &agentv1.Rect{Width: 1280, Height: 800}}
}

func (f *fakeBroker) CaptureScreenshot(_ context.Context, r *brokerv1.CaptureScreenshotRequest) (*brokerv1.CaptureScreenshotResponse, error) {
	return &brokerv1.CaptureScreenshotResponse{Response: &agentv1.CaptureScreenshotResponse{Image: f.testImage()}, AuditSeq: 7}, f.record(r)
}

func (f *fakeBroker) GetCursorPosition(_ context.Context, r *brokerv1.GetCursorPositionRequest) (*brokerv1.GetCursorPositionResponse, error) {
	return &brokerv1.GetCursorPositionResponse{Response: &agentv1.GetCursorPositionResponse{Position: &agentv1.Point{X: 3, Y: 4}, WindowId: 0x20}}, f.record(r)
}

func (f *fakeBroker) ListWindows(_ context.Context, r *brokerv1.ListWindowsRequest) (*brokerv1.ListWindowsResponse, error) {
	w := &agentv1.Window{Id: 0x20, Title: "evil\x1b]0;title", Pid: 9, Mapped: true, Focused: true, Geometry: &agentv1.Rect{X: 1, Y: 2, Width: 30, Height: 40}}
	return &brokerv1.ListWindowsResponse{Response: &agentv1.ListWindowsResponse{Windows: []*agentv1.Window{w}}}, f.record(r)
}

func (f *fakeBroker) Act(_ context.Context, r *brokerv1.ActRequest) (*brokerv1.ActResponse, error) {
	resp := &agentv1.ActResponse{Effect: agentv1.Effect_EFFECT_DONE, Pointer: &agentv1.Point{X: 10, Y: 20},
		Target: &agentv1.FrozenTarget{WindowId: 0x20, WindowTitle: "Entry", Source: agentv1.TargetSource_TARGET_SOURCE_ACTIVE, Generation: 2}}
	if t := r.GetRequest().GetType(); t != nil {
		resp.CharactersTyped = int32(len([]rune(t.GetText())))
	}
	if r.GetRequest().GetObserve() != nil {
		resp.Observation = &agentv1.Observation{Screenshot: f.testImage(), Settled: true}
	}
	var timing *brokerv1.MutationTiming
	if r.GetRequest().GetClick() != nil {
		resp.Damage = &agentv1.Rect{X: 1, Y: 2, Width: 30, Height: 40}
		timing = &brokerv1.MutationTiming{TotalUs: 1500, IntentAuditUs: 200, GuestUs: 1000, OutcomeAuditUs: 300}
	}
	return &brokerv1.ActResponse{Response: resp, AuditSeq: 9, Timing: timing}, f.record(r)
}

func (f *fakeBroker) ReadClipboard(_ context.Context, r *brokerv1.ReadClipboardRequest) (*brokerv1.ReadClipboardResponse, error) {
	return &brokerv1.ReadClipboardResponse{Response: &agentv1.ReadClipboardResponse{Text: f.clip, Owned: true, Format: "UTF8_STRING"}}, f.record(r)
}

func (f *fakeBroker) WriteClipboard(_ context.Context, r *brokerv1.WriteClipboardRequest) (*brokerv1.WriteClipboardResponse, error) {
	return &brokerv1.WriteClipboardResponse{Response: &agentv1.WriteClipboardResponse{Length: int64(len(r.GetRequest().GetText()))}, AuditSeq: 3}, f.record(r)
}

func (f *fakeBroker) AcquireControl(_ context.Context, r *brokerv1.AcquireControlRequest) (*brokerv1.AcquireControlResponse, error) {
	return &brokerv1.AcquireControlResponse{Lease: &brokerv1.ControlLease{Guest: r.GetGuest(), Holder: "uid:0", Reason: r.GetReason(), Generation: 2}}, f.record(r)
}

func (f *fakeBroker) ReleaseControl(_ context.Context, r *brokerv1.ReleaseControlRequest) (*brokerv1.ReleaseControlResponse, error) {
	return &brokerv1.ReleaseControlResponse{Generation: 3}, f.record(r)
}

func (f *fakeBroker) GetControl(_ context.Context, r *brokerv1.GetControlRequest) (*brokerv1.GetControlResponse, error) {
	return &brokerv1.GetControlResponse{Generation: 3}, f.record(r)
}

// ListAuditRecords pages through f.records by seq bounds, session and page size like the broker.
func (f *fakeBroker) ListAuditRecords(_ context.Context, r *brokerv1.ListAuditRecordsRequest) (*brokerv1.ListAuditRecordsResponse, error) {
	if err := f.record(r); err != nil {
		return nil, err
	}
	size := int(r.GetPageSize())
	if size == 0 {
		size = 100
	}
	from := r.GetFromSeq()
	if r.GetPageToken() != "" {
		from = parseTokenForTest(r.GetPageToken())
	}
	resp := &brokerv1.ListAuditRecordsResponse{}
	for _, rec := range f.records {
		if rec.GetSeq() < from || (r.GetToSeq() != 0 && rec.GetSeq() > r.GetToSeq()) || (r.GetSessionId() != "" && rec.GetSessionId() != r.GetSessionId()) {
			continue
		}
		if len(resp.Records) == size {
			resp.NextPageToken = formatTokenForTest(rec.GetSeq())
			break
		}
		resp.Records = append(resp.Records, rec)
	}
	return resp, nil
}

// WatchAuditRecords sends the backlog from from_seq and ends the stream.
func (f *fakeBroker) WatchAuditRecords(r *brokerv1.WatchAuditRecordsRequest, s grpc.ServerStreamingServer[brokerv1.WatchAuditRecordsResponse]) error {
	if err := f.record(r); err != nil {
		return err
	}
	for _, rec := range f.records {
		if r.GetFromSeq() != 0 && rec.GetSeq() >= r.GetFromSeq() {
			if err := s.Send(&brokerv1.WatchAuditRecordsResponse{Record: rec}); err != nil {
				return err
			}
		}
	}
	return nil
}

func formatTokenForTest(seq uint64) string { return strconv.FormatUint(seq, 10) }

func parseTokenForTest(tok string) uint64 {
	n, _ := strconv.ParseUint(tok, 10, 64)
	return n
}
