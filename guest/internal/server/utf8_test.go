package server

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protowire"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// fakeClipboard records the texts written to it.
type fakeClipboard struct {
	mu     sync.Mutex
	writes []string
}

func (c *fakeClipboard) Read(context.Context, agentv1.Selection) (*agentv1.ReadClipboardResponse, error) {
	return &agentv1.ReadClipboardResponse{}, nil
}

func (c *fakeClipboard) Write(_ context.Context, _ agentv1.Selection, text string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, text)
	return nil
}

func (c *fakeClipboard) Available() (bool, string) { return true, "" }

func (c *fakeClipboard) written() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.writes...)
}

// fakeScreen counts every call that reaches it.
type fakeScreen struct{ calls atomic.Int32 }

func (s *fakeScreen) Displays() []*agentv1.Display { s.calls.Add(1); return nil }
func (s *fakeScreen) Degraded() string             { return "" }
func (s *fakeScreen) Capture(context.Context, *agentv1.ScreenshotOptions) (*agentv1.Image, bool, uint64, error) {
	s.calls.Add(1)
	return &agentv1.Image{}, false, 1, nil
}
func (s *fakeScreen) WaitChange(ctx context.Context, _ uint64) (uint64, error) {
	s.calls.Add(1)
	<-ctx.Done()
	return 0, ctx.Err()
}
func (s *fakeScreen) WaitQuiet(context.Context, time.Duration, time.Duration) (bool, error) {
	s.calls.Add(1)
	return true, nil
}
func (s *fakeScreen) Cursor(context.Context) (*agentv1.GetCursorPositionResponse, error) {
	s.calls.Add(1)
	return &agentv1.GetCursorPositionResponse{}, nil
}
func (s *fakeScreen) Seq(context.Context) (uint64, error) {
	s.calls.Add(1)
	return 1, nil
}
func (s *fakeScreen) WatchDamage(context.Context, uint64, time.Duration, time.Duration) (*agentv1.Rect, error) {
	s.calls.Add(1)
	return nil, nil
}

// pb builds message bytes field by field, so a test can put invalid UTF-8 in a string field.
type pb []byte

func (b pb) str(n protowire.Number, s string) pb {
	return protowire.AppendString(protowire.AppendTag(b, n, protowire.BytesType), s)
}

func (b pb) msg(n protowire.Number, m pb) pb {
	return protowire.AppendBytes(protowire.AppendTag(b, n, protowire.BytesType), m)
}

// TestInvalidUTF8OnTheWire sends requests whose string fields hold invalid UTF-8, as a client that does not
// check its strings would, and expects INVALID_ARGUMENT naming each field as the validators name fields,
// with no backend called and one log line per RPC that carries no request text.
func TestInvalidUTF8OnTheWire(t *testing.T) {
	const secret = "s3cr3t \xff\xfe" // invalid at byte 7; must not reach the log
	in := &fakeInput{}
	win := &fakeWindows{input: in, focused: 10, at: 10, wins: map[uint32]*agentv1.Window{10: {Id: 10, Title: "ten", Mapped: true}}}
	clip := &fakeClipboard{}
	scr := &fakeScreen{}
	var logs bytes.Buffer
	var logMu sync.Mutex
	log := slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &logMu}, nil))
	s := New(Options{Logger: log}, Backends{Input: AdaptInput(in), Windows: win, Clipboard: AdaptClipboard(clip), Screen: AdaptScreen(scr)})
	conn := dialServices(t, s)
	ctx := context.Background()

	tests := []struct {
		name   string
		method string
		stream bool
		raw    pb
		want   []string
	}{
		{"clipboard text", agentv1.ClipboardService_WriteClipboard_FullMethodName, false,
			pb{}.str(3, secret), []string{"text"}},
		{"clipboard owner and text", agentv1.ClipboardService_WriteClipboard_FullMethodName, false,
			pb{}.str(1, "o\xc0").str(3, secret), []string{"owner", "text"}},
		{"type text", agentv1.ActService_Act_FullMethodName, false,
			pb{}.str(1, "o").msg(20, pb{}.str(1, secret)), []string{"action.type.text"}},
		{"click modifier", agentv1.ActService_Act_FullMethodName, false,
			pb{}.str(1, "o").msg(11, pb{}.str(4, "ctrl").str(4, "shift\xff")), []string{"action.click.modifiers[1]"}},
		{"target display and key combo", agentv1.ActService_Act_FullMethodName, false,
			pb{}.str(1, "o").msg(3, pb{}.msg(1, pb{}.str(1, "\xe2\x82"))).msg(16, pb{}.str(1, "ctrl+\xff")),
			[]string{"target.display.display_id", "action.key.combo"}},
		{"observe after an action", agentv1.ActService_Act_FullMethodName, false,
			pb{}.str(1, "o").msg(5, pb{}.msg(1, pb{}.str(1, "\xff"))).msg(20, pb{}.str(1, "hi")),
			[]string{"observe.screenshot.display_id"}},
		{"capture screenshot", agentv1.ObserveService_CaptureScreenshot_FullMethodName, false,
			pb{}.msg(1, pb{}.str(1, "\xff")), []string{"options.display_id"}},
		{"watch screen", agentv1.ObserveService_WatchScreen_FullMethodName, true,
			pb{}.msg(1, pb{}.str(1, "\xff")), []string{"options.display_id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			var resp []byte
			if tt.stream {
				var st grpc.ClientStream
				st, err = conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, tt.method, grpc.ForceCodec(rawCodec{}))
				if err == nil {
					if err = st.SendMsg([]byte(tt.raw)); err == nil {
						err = st.RecvMsg(&resp)
					}
				}
			} else {
				err = conn.Invoke(ctx, tt.method, []byte(tt.raw), &resp, grpc.ForceCodec(rawCodec{}))
			}
			if diff := cmp.Diff(tt.want, violatedFields(t, err)); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}

	// Nothing reached a backend.
	if got := in.log(); len(got) != 0 {
		t.Errorf("input backend called: %q", got)
	}
	if got := clip.written(); len(got) != 0 {
		t.Errorf("clipboard written: %d times", len(got))
	}
	if n := scr.calls.Load(); n != 0 {
		t.Errorf("screen backend called %d times", n)
	}
	// The refusals were logged like any other RPC, without the text.
	logMu.Lock()
	out := logs.String()
	logMu.Unlock()
	if n := strings.Count(out, "code=InvalidArgument"); n != len(tests) {
		t.Errorf("%d log lines with code=InvalidArgument, want %d:\n%s", n, len(tests), out)
	}
	if strings.Contains(out, "s3cr3t") {
		t.Errorf("request text in the log:\n%s", out)
	}

	// The same server does act on valid requests, so the silence above is the codec's doing.
	if _, err := agentv1.NewClipboardServiceClient(conn).WriteClipboard(ctx, &agentv1.WriteClipboardRequest{Text: "héllo"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"héllo"}, clip.written()); diff != "" {
		t.Errorf("clipboard writes (-want +got):\n%s", diff)
	}
	act := &agentv1.ActRequest{Owner: "o", Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: "hi"}}}
	if _, err := agentv1.NewActServiceClient(conn).Act(ctx, act); err != nil {
		t.Fatal(err)
	}
	if got := in.log(); !cmp.Equal([]string{"type hi"}, got) {
		t.Errorf("input calls = %q, want [type hi]", got)
	}
}

// lockedWriter serializes the writes of concurrent RPC log lines.
type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
