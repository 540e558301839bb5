package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func act(a *agentv1.ActRequest) *brokerv1.ActRequest {
	return &brokerv1.ActRequest{SessionId: "s-1", Request: a}
}

func pt(x, y int32) *agentv1.Point { return &agentv1.Point{X: x, Y: y} }

func windowTarget(id uint32) *agentv1.Target {
	return &agentv1.Target{Kind: &agentv1.Target_Window{Window: &agentv1.WindowTarget{WindowId: id}}}
}

// TestRequests checks that each command line becomes exactly the request the broker receives.
func TestRequests(t *testing.T) {
	f := startFakeBroker(t)
	tests := []struct {
		name  string
		args  []string
		stdin string
		env   map[string]string
		want  proto.Message
	}{
		{"guests default list", []string{"guests"}, "", nil, &brokerv1.ListGuestsRequest{}},
		{"guests get", []string{"guests", "get", "g1"}, "", nil, &brokerv1.GetGuestRequest{Name: "g1"}},
		{"guests register", []string{"guests", "register", "g1", "vsock://3:7000", "-label", "os=debian", "-label", "tier=test"}, "", nil,
			&brokerv1.RegisterGuestRequest{Name: "g1", Endpoint: "vsock://3:7000", Labels: map[string]string{"os": "debian", "tier": "test"}}},
		{"guests unregister", []string{"guests", "unregister", "g1"}, "", nil, &brokerv1.UnregisterGuestRequest{Name: "g1"}},
		{"sessions list", []string{"sessions", "list", "-guest", "g1", "-closed", "-page-size", "5", "-page", "t"}, "", nil,
			&brokerv1.ListSessionsRequest{Guest: "g1", IncludeClosed: true, PageSize: 5, PageToken: "t"}},
		{"sessions create", []string{"sessions", "create", "g1", "-observe", "-label", "ci run", "-idle", "1m", "-ttl", "2h"}, "", nil,
			&brokerv1.CreateSessionRequest{Guest: "g1", Label: "ci run", Mode: brokerv1.SessionMode_SESSION_MODE_OBSERVE, IdleTimeoutSeconds: 60, TtlSeconds: 7200}},
		{"sessions create act", []string{"sessions", "create", "g1"}, "", nil, &brokerv1.CreateSessionRequest{Guest: "g1"}},
		{"sessions get", []string{"sessions", "get", "s-1"}, "", nil, &brokerv1.GetSessionRequest{SessionId: "s-1"}},
		{"sessions delete", []string{"sessions", "delete", "s-1"}, "", nil, &brokerv1.DeleteSessionRequest{SessionId: "s-1"}},
		{"sessions defaults window", []string{"sessions", "defaults", "s-1", "-window", "0x1a"}, "", nil,
			&brokerv1.SetSessionDefaultsRequest{SessionId: "s-1", DefaultTarget: windowTarget(0x1a)}},
		{"sessions defaults display", []string{"sessions", "defaults", "s-1", "-display", "display-0"}, "", nil,
			&brokerv1.SetSessionDefaultsRequest{SessionId: "s-1", DefaultTarget: &agentv1.Target{Kind: &agentv1.Target_Display{Display: &agentv1.DisplayTarget{DisplayId: "display-0"}}}}},
		{"sessions defaults clear", []string{"sessions", "defaults", "s-1"}, "", nil, &brokerv1.SetSessionDefaultsRequest{SessionId: "s-1"}},
		{"screenshot", []string{"screenshot", "-s", "s-1", "-o", "-", "-jpeg", "-quality", "50", "-region", "1,2,300,400", "-max-edge", "640", "-cursor", "-display", "d0"}, "", nil,
			&brokerv1.CaptureScreenshotRequest{SessionId: "s-1", Request: &agentv1.CaptureScreenshotRequest{Options: &agentv1.ScreenshotOptions{
				DisplayId: "d0", Region: &agentv1.Rect{X: 1, Y: 2, Width: 300, Height: 400}, Format: agentv1.ImageFormat_IMAGE_FORMAT_JPEG, Quality: 50, MaxEdge: 640, IncludeCursor: true}}}},
		{"click full", []string{"act", "-s", "s-1", "click", "10", "20", "-button", "right", "-count", "2", "-mod", "ctrl", "-mod", "shift,alt"}, "", nil,
			act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{At: pt(10, 20), Button: agentv1.MouseButton_MOUSE_BUTTON_RIGHT, Count: 2, Modifiers: []string{"ctrl", "shift", "alt"}}}})},
		{"click here, session from env", []string{"act", "click"}, "", map[string]string{"GLOVEBOX_SESSION": "s-1"},
			act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{}}})},
		{"click count out of range is the broker's call", []string{"act", "-s", "s-1", "click", "-count", "7"}, "", nil,
			act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{Count: 7}}})},
		{"move", []string{"act", "-s", "s-1", "move", "5", "6"}, "", nil,
			act(&agentv1.ActRequest{Action: &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{To: pt(5, 6)}}})},
		{"down", []string{"act", "-s", "s-1", "down", "5", "6", "-button", "middle"}, "", nil,
			act(&agentv1.ActRequest{Action: &agentv1.ActRequest_MouseDown{MouseDown: &agentv1.MouseDown{At: pt(5, 6), Button: agentv1.MouseButton_MOUSE_BUTTON_MIDDLE}}})},
		{"up", []string{"act", "-s", "s-1", "up"}, "", nil,
			act(&agentv1.ActRequest{Action: &agentv1.ActRequest_MouseUp{MouseUp: &agentv1.MouseUp{}}})},
		{"drag", []string{"act", "-s", "s-1", "drag", "1", "2", "3", "4", "5", "6", "-step-delay", "10", "-mod", "shift"}, "", nil,
			act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Drag{Drag: &agentv1.Drag{Path: []*agentv1.Point{pt(1, 2), pt(3, 4), pt(5, 6)}, StepDelayMs: 10, Modifiers: []string{"shift"}}}})},
		{"scroll negative", []string{"act", "-s", "s-1", "scroll", "-at", "100,200", "0", "-3", "-mod", "ctrl"}, "", nil,
			act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Scroll{Scroll: &agentv1.Scroll{At: pt(100, 200), Dy: -3, Modifiers: []string{"ctrl"}}}})},
		{"key", []string{"act", "-s", "s-1", "key", "ctrl+s", "-repeat", "3"}, "", nil,
			act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Key{Key: &agentv1.Key{Combo: "ctrl+s", Repeat: 3}}})},
		{"keydown", []string{"act", "-s", "s-1", "keydown", "shift"}, "", nil,
			act(&agentv1.ActRequest{Action: &agentv1.ActRequest_KeyDown{KeyDown: &agentv1.KeyDown{Combo: "shift"}}})},
		{"keyup", []string{"act", "-s", "s-1", "keyup", "shift"}, "", nil,
			act(&agentv1.ActRequest{Action: &agentv1.ActRequest_KeyUp{KeyUp: &agentv1.KeyUp{Combo: "shift"}}})},
		{"hold", []string{"act", "-s", "s-1", "hold", "alt+Tab", "1.5s"}, "", nil,
			act(&agentv1.ActRequest{Action: &agentv1.ActRequest_HoldKey{HoldKey: &agentv1.HoldKey{Combo: "alt+Tab", DurationMs: 1500}}})},
		{"type arg", []string{"act", "-s", "s-1", "type", "héllo 世界", "-delay", "5"}, "", nil,
			act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: "héllo 世界", DelayMs: 5}}})},
		{"type stdin", []string{"act", "-s", "s-1", "type", "-stdin"}, "line1\nline2\n", nil,
			act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: "line1\nline2\n"}}})},
		{"type dash text", []string{"act", "-s", "s-1", "type", "--", "-rf"}, "", nil,
			act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: "-rf"}}})},
		{"wait", []string{"act", "-s", "s-1", "wait", "250ms"}, "", nil,
			act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Wait{Wait: &agentv1.Wait{DurationMs: 250}}})},
		{"release-all", []string{"act", "-s", "s-1", "release-all", "-everything"}, "", nil,
			act(&agentv1.ActRequest{Action: &agentv1.ActRequest_ReleaseAll{ReleaseAll: &agentv1.ReleaseAll{Everything: true}}})},
		{"common flags anywhere", []string{"-json", "act", "-window", "0x20", "-s", "s-1", "key", "Return", "-confirm", "-request-id", "r1", "-observe", "-o", "-", "-max-edge", "800"}, "", nil,
			act(&agentv1.ActRequest{Target: windowTarget(0x20), Confirm: true, RequestId: "r1",
				Observe: &agentv1.ObserveAfter{Screenshot: &agentv1.ScreenshotOptions{MaxEdge: 800}},
				Action:  &agentv1.ActRequest_Key{Key: &agentv1.Key{Combo: "Return"}}})},
		{"windows", []string{"windows", "-s", "s-1", "-all"}, "", nil,
			&brokerv1.ListWindowsRequest{SessionId: "s-1", Request: &agentv1.ListWindowsRequest{IncludeUnmapped: true}}},
		{"cursor", []string{"cursor", "-s", "s-1"}, "", nil,
			&brokerv1.GetCursorPositionRequest{SessionId: "s-1", Request: &agentv1.GetCursorPositionRequest{}}},
		{"clipboard read primary", []string{"clipboard", "-s", "s-1", "read", "-primary"}, "", nil,
			&brokerv1.ReadClipboardRequest{SessionId: "s-1", Request: &agentv1.ReadClipboardRequest{Selection: agentv1.Selection_SELECTION_PRIMARY}}},
		{"clipboard write arg", []string{"clipboard", "write", "-s", "s-1", "secret"}, "", nil,
			&brokerv1.WriteClipboardRequest{SessionId: "s-1", Request: &agentv1.WriteClipboardRequest{Selection: agentv1.Selection_SELECTION_CLIPBOARD, Text: "secret"}}},
		{"clipboard write stdin", []string{"clipboard", "write", "-s", "s-1", "-stdin"}, "from\nstdin", nil,
			&brokerv1.WriteClipboardRequest{SessionId: "s-1", Request: &agentv1.WriteClipboardRequest{Selection: agentv1.Selection_SELECTION_CLIPBOARD, Text: "from\nstdin"}}},
		{"clipboard write confirm", []string{"clipboard", "write", "-s", "s-1", "-confirm", "-primary", "AKIAIOSFODNN7EXAMPLE"}, "", nil,
			&brokerv1.WriteClipboardRequest{SessionId: "s-1", Confirm: true, Request: &agentv1.WriteClipboardRequest{Selection: agentv1.Selection_SELECTION_PRIMARY, Text: "AKIAIOSFODNN7EXAMPLE"}}},
		{"control acquire", []string{"control", "acquire", "g1", "-reason", "fixing the printer"}, "", nil,
			&brokerv1.AcquireControlRequest{Guest: "g1", Reason: "fixing the printer"}},
		{"control release", []string{"control", "release", "g1"}, "", nil, &brokerv1.ReleaseControlRequest{Guest: "g1"}},
		{"control get", []string{"control", "get", "g1"}, "", nil, &brokerv1.GetControlRequest{Guest: "g1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(f.requests())
			code, _, stderr := f.run(t, tt.stdin, tt.env, tt.args...)
			if code != ExitOK {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			reqs := f.requests()[before:]
			if len(reqs) != 1 {
				t.Fatalf("broker got %d requests, want 1: %v", len(reqs), reqs)
			}
			if diff := cmp.Diff(tt.want, reqs[0], protocmp.Transform()); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUsageErrors checks that a wrong command line exits 2, says why, and sends nothing.
func TestUsageErrors(t *testing.T) {
	f := startFakeBroker(t)
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string
	}{
		{"no command", nil, nil, "no command given"},
		{"unknown command", []string{"frobnicate"}, nil, `unknown command "frobnicate"`},
		{"unknown flag", []string{"guests", "list", "-bogus"}, nil, "flag provided but not defined: -bogus"},
		{"act without session", []string{"act", "click"}, nil, "-s SESSION is required"},
		{"act unknown verb", []string{"act", "-s", "s", "smash"}, nil, `unknown action "smash"`},
		{"click one coordinate", []string{"act", "-s", "s", "click", "10"}, nil, "want X Y or nothing"},
		{"click non-integer", []string{"act", "-s", "s", "click", "10", "abc"}, nil, `Y: "abc" is not an integer`},
		{"bad button", []string{"act", "-s", "s", "click", "-button", "thumb"}, nil, `-button "thumb"`},
		{"drag one point", []string{"act", "-s", "s", "drag", "1", "2"}, nil, "at least two points"},
		{"scroll bad at", []string{"act", "-s", "s", "scroll", "-at", "1", "0", "1"}, nil, "want 2 comma-separated integers"},
		{"hold bad duration", []string{"act", "-s", "s", "hold", "a", "5"}, nil, `"5" is not a duration`},
		{"type nothing", []string{"act", "-s", "s", "type"}, nil, "give the text as one argument or with -stdin"},
		{"type both", []string{"act", "-s", "s", "type", "x", "-stdin"}, nil, "give the text as one argument or with -stdin"},
		{"window and display", []string{"act", "-s", "s", "-window", "1", "-display", "d", "key", "a"}, nil, "not both"},
		{"bad window id", []string{"act", "-s", "s", "-window", "zz", "key", "a"}, nil, `-window "zz"`},
		{"-o without -observe", []string{"act", "-s", "s", "key", "a", "-o", "x.png"}, nil, "-o needs -observe"},
		{"screenshot without -o", []string{"screenshot", "-s", "s"}, nil, "-o FILE is required"},
		{"screenshot bad region", []string{"screenshot", "-s", "s", "-o", "x", "-region", "1,2,3"}, nil, "want 4 comma-separated integers"},
		{"sessions create no guest", []string{"sessions", "create"}, nil, "want GUEST"},
		{"sessions idle fraction", []string{"sessions", "create", "g", "-idle", "1500ms"}, nil, "not a whole number of seconds"},
		{"guests register missing uri", []string{"guests", "register", "g"}, nil, "want NAME URI"},
		{"bad label", []string{"guests", "register", "g", "u", "-label", "novalue"}, nil, "want key=value"},
		{"control acquire no reason", []string{"control", "acquire", "g"}, nil, "-reason is required"},
		{"clipboard which", []string{"clipboard", "-s", "s"}, nil, "clipboard: which one?"},
		{"tcp without certificates", []string{"guests", "-broker", "tcp://127.0.0.1:1"}, nil, "needs -cert, -key and -ca"},
		{"vsock broker", []string{"guests", "-broker", "vsock://3:1"}, nil, "unix:// or tcp://"},
		{"audit verify no dir", []string{"audit", "verify"}, nil, "needs -dir"},
		{"audit prove no key", []string{"audit", "prove", "-text", "x", "rec.json"}, nil, "needs -key"},
		{"audit prove both sources", []string{"audit", "prove", "-key", "k", "-text", "x", "-dir", "d", "-guest", "g", "rec.json"}, nil, "not both"},
		{"audit tail no guest", []string{"audit", "tail"}, nil, "needs -guest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(f.requests())
			code, stdout, stderr := f.run(t, "", tt.env, tt.args...)
			if code != ExitUsage {
				t.Fatalf("exit %d, want %d; stdout %q stderr:\n%s", code, ExitUsage, stdout, stderr)
			}
			if !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("stderr %q does not contain %q", stderr, tt.wantErr)
			}
			if n := len(f.requests()) - before; n != 0 {
				t.Errorf("broker got %d requests, want none", n)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	f := startFakeBroker(t)
	for _, args := range [][]string{{"help"}, {"-h"}, {"act", "-h"}, {"sessions", "-h"}} {
		code, stdout, stderr := f.run(t, "", nil, args...)
		if code != ExitOK || stdout == "" || stderr != "" {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q", args, code, len(stdout), stderr)
		}
	}
	for name, u := range usages {
		if !strings.Contains(Usage(), u) {
			t.Errorf("usage of %s missing from Usage()", name)
		}
	}
}

func TestScreenshotFile(t *testing.T) {
	f := startFakeBroker(t)
	out := filepath.Join(t.TempDir(), "shot.png")
	code, stdout, stderr := f.run(t, "", nil, "screenshot", "-s", "s-1", "-o", out)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(f.image, got); diff != "" {
		t.Errorf("file bytes (-want +got):\n%s", diff)
	}
	want := "wrote " + out + ": 1280x800 png, 12 bytes, scale 1, region 1280x800+0+0 (audit seq 7)\n"
	if diff := cmp.Diff(want, stdout); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}

	// -json prints the response without the image bytes, which are in the file.
	code, stdout, stderr = f.run(t, "", nil, "screenshot", "-s", "s-1", "-o", out, "-json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, `"data"`) || !strings.Contains(stdout, `"auditSeq":"7"`) {
		t.Errorf("json output %q: want auditSeq and no data", stdout)
	}
}
