package server

import (
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protowire"

	"glovebox.dev/guest/internal/clipboard"
	"glovebox.dev/guest/internal/clipboard/cliptest"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/testenv/desktop"
)

// clipEnv is a real X display (no window manager: selections need none) with the clipboard backend served
// over gRPC; xclip is the independent party.
type clipEnv struct {
	d     *desktop.Desktop
	cb    *clipboard.Clipboard
	conn  *grpc.ClientConn
	clip  agentv1.ClipboardServiceClient
	agent agentv1.AgentServiceClient
}

func startClipEnv(t testing.TB) *clipEnv {
	t.Helper()
	d := desktop.Start(t, desktop.Options{NoWindowManager: true})
	cb, err := clipboard.Open(d.Display, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cb.Close() })
	conn := dialServices(t, New(Options{}, Backends{Clipboard: AdaptClipboard(cb)}))
	return &clipEnv{d: d, cb: cb, conn: conn, clip: agentv1.NewClipboardServiceClient(conn),
		agent: agentv1.NewAgentServiceClient(conn)}
}

func (e *clipEnv) xclipOut(t testing.TB, selection, target string) string {
	t.Helper()
	b, err := cliptest.Out(e.d, selection, target)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var (
	ignoreProto = cmpopts.IgnoreUnexported(agentv1.ReadClipboardResponse{})
	sortStrings = cmpopts.SortSlices(func(a, b string) bool { return a < b })
)

func TestClipboardBothWays(t *testing.T) {
	e := startClipEnv(t)
	ctx := context.Background()
	sels := []struct {
		sel  agentv1.Selection
		name string
	}{
		{agentv1.Selection_SELECTION_UNSPECIFIED, "clipboard"},
		{agentv1.Selection_SELECTION_CLIPBOARD, "clipboard"},
		{agentv1.Selection_SELECTION_PRIMARY, "primary"},
	}
	texts := []struct{ name, text string }{
		{"ascii", "The quick brown fox"},
		{"accents", "àéîõü ÇÑ ß"},
		{"cjk", "漢字かなカナ 한글"},
		{"emoji", "🚀✨🙂 👩🏾‍💻"},
		{"empty", ""},
	}
	for _, s := range sels {
		for _, tc := range texts {
			t.Run(s.sel.String()+"/"+tc.name+"/write", func(t *testing.T) {
				resp, err := e.clip.WriteClipboard(ctx, &agentv1.WriteClipboardRequest{Owner: "test", Selection: s.sel, Text: tc.text})
				if err != nil {
					t.Fatal(err)
				}
				if resp.GetLength() != int64(len(tc.text)) {
					t.Errorf("length = %d, want %d", resp.GetLength(), len(tc.text))
				}
				if diff := cmp.Diff(tc.text, e.xclipOut(t, s.name, "")); diff != "" {
					t.Errorf("xclip -o -selection %s (-want +got):\n%s", s.name, diff)
				}
			})
			if tc.text == "" {
				continue // xclip -i of nothing is an owner with no text: covered by the read of no owner
			}
			t.Run(s.sel.String()+"/"+tc.name+"/read", func(t *testing.T) {
				o := cliptest.Own(t, e.d, s.name, []byte(tc.text), "")
				defer o.Stop()
				got, err := e.clip.ReadClipboard(ctx, &agentv1.ReadClipboardRequest{Selection: s.sel})
				if err != nil {
					t.Fatal(err)
				}
				want := &agentv1.ReadClipboardResponse{Text: tc.text, Format: "UTF8_STRING", Owned: true}
				if diff := cmp.Diff(want, got, ignoreProto); diff != "" {
					t.Errorf("ReadClipboard (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestClipboardNoOwner(t *testing.T) {
	e := startClipEnv(t)
	for _, sel := range []agentv1.Selection{agentv1.Selection_SELECTION_CLIPBOARD, agentv1.Selection_SELECTION_PRIMARY} {
		got, err := e.clip.ReadClipboard(context.Background(), &agentv1.ReadClipboardRequest{Selection: sel})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&agentv1.ReadClipboardResponse{}, got, ignoreProto); diff != "" {
			t.Errorf("%v (-want +got):\n%s", sel, diff)
		}
	}
}

// TestClipboardLarge moves 4 MiB both ways, which takes INCR in both directions (above the 256 KiB
// request limit on our side, above xclip's chunk on its side).
func TestClipboardLarge(t *testing.T) {
	e := startClipEnv(t)
	ctx := context.Background()
	text := strings.Repeat("0123456789abcdef日本語🙂\n", 4<<20/32)
	want := sha256.Sum256([]byte(text))

	if _, err := e.clip.WriteClipboard(ctx, &agentv1.WriteClipboardRequest{Text: text}); err != nil {
		t.Fatal(err)
	}
	if got := sha256.Sum256([]byte(e.xclipOut(t, "clipboard", ""))); got != want {
		t.Errorf("xclip -o | sha256 = %x, want %x", got, want)
	}

	o := cliptest.Own(t, e.d, "clipboard", []byte(text), "")
	defer o.Stop()
	got, err := e.clip.ReadClipboard(ctx, &agentv1.ReadClipboardRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if s := sha256.Sum256([]byte(got.GetText())); s != want {
		t.Errorf("ReadClipboard: %d bytes, sha256 %x; want %d bytes, %x", len(got.GetText()), s, len(text), want)
	}
}

func TestClipboardTargetsAndString(t *testing.T) {
	e := startClipEnv(t)
	ctx := context.Background()
	if _, err := e.clip.WriteClipboard(ctx, &agentv1.WriteClipboardRequest{Text: "Grüße, señor"}); err != nil {
		t.Fatal(err)
	}
	want := []string{"MULTIPLE", "STRING", "TARGETS", "TEXT", "TIMESTAMP", "UTF8_STRING"}
	if diff := cmp.Diff(want, strings.Fields(e.xclipOut(t, "clipboard", "TARGETS")), sortStrings); diff != "" {
		t.Errorf("xclip -o -t TARGETS (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("Gr\xfc\xdfe, se\xf1or", e.xclipOut(t, "clipboard", "STRING")); diff != "" {
		t.Errorf("xclip -o -t STRING (-want +got):\n%s", diff)
	}

	// An owner that gives STRING (Latin-1) data is decoded as such.
	o := cliptest.Own(t, e.d, "clipboard", []byte("Gr\xfc\xdfe"), "STRING")
	defer o.Stop()
	got, err := e.clip.ReadClipboard(ctx, &agentv1.ReadClipboardRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&agentv1.ReadClipboardResponse{Text: "Grüße", Format: "STRING", Owned: true}, got, ignoreProto); diff != "" {
		t.Errorf("ReadClipboard of a STRING owner (-want +got):\n%s", diff)
	}
}

func TestClipboardTakenByAnotherOwner(t *testing.T) {
	e := startClipEnv(t)
	ctx := context.Background()
	if _, err := e.clip.WriteClipboard(ctx, &agentv1.WriteClipboardRequest{Text: "agent text"}); err != nil {
		t.Fatal(err)
	}
	mine, err := e.clip.ReadClipboard(ctx, &agentv1.ReadClipboardRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&agentv1.ReadClipboardResponse{Text: "agent text", Format: "UTF8_STRING", Owned: true}, mine, ignoreProto); diff != "" {
		t.Errorf("ReadClipboard of our own selection (-want +got):\n%s", diff)
	}
	o := cliptest.Own(t, e.d, "clipboard", []byte("xclip text"), "")
	defer o.Stop()
	got, err := e.clip.ReadClipboard(ctx, &agentv1.ReadClipboardRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&agentv1.ReadClipboardResponse{Text: "xclip text", Format: "UTF8_STRING", Owned: true}, got, ignoreProto); diff != "" {
		t.Errorf("ReadClipboard after xclip took the selection (-want +got):\n%s", diff)
	}
}

func TestClipboardBadInput(t *testing.T) {
	e := startClipEnv(t)
	ctx := context.Background()
	if _, err := e.clip.WriteClipboard(ctx, &agentv1.WriteClipboardRequest{Text: "before"}); err != nil {
		t.Fatal(err)
	}
	writes := []struct {
		name string
		req  *agentv1.WriteClipboardRequest
		want []string
	}{
		{"too long", &agentv1.WriteClipboardRequest{Text: strings.Repeat("a", clipboard.MaxText+1)}, []string{"text"}},
		{"unknown selection", &agentv1.WriteClipboardRequest{Selection: 7, Text: "x"}, []string{"selection"}},
		// Text over its bound is refused on the wire, before decoding, naming only what the wire check found
		// (the selection is not looked at).
		{"both", &agentv1.WriteClipboardRequest{Selection: -1, Text: strings.Repeat("é", clipboard.MaxText/2+1)},
			[]string{"text"}},
	}
	for _, tc := range writes {
		t.Run("write/"+tc.name, func(t *testing.T) {
			_, err := e.clip.WriteClipboard(ctx, tc.req)
			if diff := cmp.Diff(tc.want, violatedFields(t, err), sortStrings); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
			// Nothing happened: the selection still holds the earlier text.
			if diff := cmp.Diff("before", e.xclipOut(t, "clipboard", "")); diff != "" {
				t.Errorf("xclip -o after a refused write (-want +got):\n%s", diff)
			}
		})
	}
	// Invalid UTF-8 on the wire is refused while decoding (shared/wirecodec), naming the field; a request
	// built in process with such a string is refused by the handler itself, naming the same field.
	t.Run("write/invalid utf-8", func(t *testing.T) {
		raw := protowire.AppendTag(nil, 3, protowire.BytesType)
		raw = protowire.AppendBytes(raw, []byte("ok \xff\xfe bad"))
		var resp []byte
		err := e.conn.Invoke(ctx, agentv1.ClipboardService_WriteClipboard_FullMethodName, raw, &resp,
			grpc.ForceCodec(rawCodec{}))
		if diff := cmp.Diff([]string{"text"}, violatedFields(t, err)); diff != "" {
			t.Errorf("fields (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff("before", e.xclipOut(t, "clipboard", "")); diff != "" {
			t.Errorf("xclip -o after a refused write (-want +got):\n%s", diff)
		}
		svc := newClipboardService(New(Options{}, Backends{Clipboard: AdaptClipboard(e.cb)}))
		_, err = svc.WriteClipboard(ctx, &agentv1.WriteClipboardRequest{Text: "ok \xff\xfe bad"})
		var br *errdefs.BadRequest
		if !errors.As(err, &br) || len(br.Violations) != 1 || br.Violations[0].Field != "text" {
			t.Errorf("handler: %v, want a BadRequest naming text", err)
		}
	})
	t.Run("read/unknown selection", func(t *testing.T) {
		_, err := e.clip.ReadClipboard(ctx, &agentv1.ReadClipboardRequest{Selection: 9})
		if diff := cmp.Diff([]string{"selection"}, violatedFields(t, err)); diff != "" {
			t.Errorf("fields (-want +got):\n%s", diff)
		}
	})
}

func TestClipboardCapability(t *testing.T) {
	e := startClipEnv(t)
	info, err := e.agent.GetInfo(context.Background(), &agentv1.GetInfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var got *agentv1.Capability
	for _, c := range info.GetCapabilities() {
		if c.GetBackend() == agentv1.Backend_BACKEND_CLIPBOARD {
			got = c
		}
	}
	if got.GetState() != agentv1.CapabilityState_CAPABILITY_STATE_AVAILABLE {
		t.Errorf("clipboard capability = %v, want available", got)
	}

	// Without a backend both RPCs fail with CAPABILITY_UNAVAILABLE.
	conn := dialServices(t, New(Options{}, Backends{}))
	c := agentv1.NewClipboardServiceClient(conn)
	_, err1 := c.ReadClipboard(context.Background(), &agentv1.ReadClipboardRequest{})
	_, err2 := c.WriteClipboard(context.Background(), &agentv1.WriteClipboardRequest{Text: "x"})
	for i, err := range []error{err1, err2} {
		if !errors.Is(errgrpc.FromError(err), errdefs.ErrCapabilityUnavailable) {
			t.Errorf("call %d without backend: %v, want ErrCapabilityUnavailable", i, err)
		}
	}
}
