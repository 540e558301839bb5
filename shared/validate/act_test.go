package validate

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// violations returns the violations of err (nil for nil) and fails when err is not a *errdefs.BadRequest.
func violations(t *testing.T, err error) []errdefs.Violation {
	t.Helper()
	if err == nil {
		return nil
	}
	var br *errdefs.BadRequest
	if !errors.As(err, &br) || !errors.Is(err, errdefs.ErrInvalidArgument) {
		t.Fatalf("error %v is not a *errdefs.BadRequest", err)
	}
	return br.Violations
}

func pt(x, y int32) *agentv1.Point { return &agentv1.Point{X: x, Y: y} }

// act builds a request from owner "s1" with the action set by a.
func act(a func(r *agentv1.ActRequest)) *agentv1.ActRequest {
	r := &agentv1.ActRequest{Owner: "s1"}
	a(r)
	return r
}

func path(n int, p *agentv1.Point) []*agentv1.Point {
	ps := make([]*agentv1.Point, n)
	for i := range ps {
		ps[i] = p
	}
	return ps
}

// vs builds a violation list from field, description pairs.
func vs(pairs ...string) []errdefs.Violation {
	var l []errdefs.Violation
	for i := 0; i+1 < len(pairs); i += 2 {
		l = append(l, errdefs.Violation{Field: pairs[i], Description: pairs[i+1]})
	}
	return l
}

func TestActRequest(t *testing.T) {
	tests := []struct {
		name string
		req  *agentv1.ActRequest
		want []errdefs.Violation
	}{
		{"valid click", act(func(r *agentv1.ActRequest) {
			r.RequestId = "req-1:a.b_c"
			r.Target = &agentv1.Target{Kind: &agentv1.Target_Window{Window: &agentv1.WindowTarget{WindowId: 0x400001}}}
			r.Observe = &agentv1.ObserveAfter{QuietMs: 5000, TimeoutMs: 30000, Screenshot: &agentv1.ScreenshotOptions{Format: agentv1.ImageFormat_IMAGE_FORMAT_JPEG, Quality: 80}}
			r.Action = &agentv1.ActRequest_Click{Click: &agentv1.Click{At: pt(0, 0), Button: agentv1.MouseButton_MOUSE_BUTTON_RIGHT, Count: 3, Modifiers: []string{"ctrl", "Shift", "altgr"}}}
		}), nil},
		{"empty request", &agentv1.ActRequest{}, vs("owner", "required", "action", "required")},
		{"owner charset and request id length", &agentv1.ActRequest{Owner: "a b", RequestId: strings.Repeat("x", 129), Action: &agentv1.ActRequest_ReleaseAll{ReleaseAll: &agentv1.ReleaseAll{}}},
			vs("owner", "must be [A-Za-z0-9._:-] only, got byte 0x20 at 1", "request_id", "must be at most 128 bytes, got 129")},
		{"owner too long", &agentv1.ActRequest{Owner: strings.Repeat("o", 129), Action: &agentv1.ActRequest_ReleaseAll{}},
			vs("owner", "must be at most 128 bytes, got 129")},
		{"targets", act(func(r *agentv1.ActRequest) {
			r.Target = &agentv1.Target{Kind: &agentv1.Target_Window{}}
			r.Action = &agentv1.ActRequest_Wait{Wait: &agentv1.Wait{}}
		}), vs("target.window.window_id", "required")},
		{"display id", act(func(r *agentv1.ActRequest) {
			r.Target = &agentv1.Target{Kind: &agentv1.Target_Display{Display: &agentv1.DisplayTarget{DisplayId: strings.Repeat("d", 65)}}}
			r.Action = &agentv1.ActRequest_Wait{Wait: &agentv1.Wait{}}
		}), vs("target.display.display_id", "must be at most 64 bytes, got 65")},
		{"observe bounds", act(func(r *agentv1.ActRequest) {
			r.Observe = &agentv1.ObserveAfter{QuietMs: 5001, TimeoutMs: -1, Screenshot: &agentv1.ScreenshotOptions{Quality: 5}}
			r.Action = &agentv1.ActRequest_Wait{Wait: &agentv1.Wait{}}
		}), vs("observe.quiet_ms", "must be 0..5000, got 5001", "observe.timeout_ms", "must be 0..30000, got -1", "observe.screenshot.quality", "must be 0 for PNG, got 5")},
		{"mouse_move", act(func(r *agentv1.ActRequest) { r.Action = &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{}} }),
			vs("action.mouse_move.to", "required")},
		{"mouse_move negative", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{To: pt(-1, -2)}}
		}), vs("action.mouse_move.to.x", "must be >= 0, got -1", "action.mouse_move.to.y", "must be >= 0, got -2")},
		{"click", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_Click{Click: &agentv1.Click{At: pt(1, -1), Button: 9, Count: 7, Modifiers: []string{"ctrl", "ctl"}}}
		}), vs(
			"action.click.at.y", "must be >= 0, got -1",
			"action.click.button", "unknown value 9",
			"action.click.count", "must be 1..3, got 7",
			"action.click.modifiers[1]", `unknown modifier "ctl"`,
		)},
		{"click too many modifiers", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_Click{Click: &agentv1.Click{Count: -1, Modifiers: make([]string, 9)}}
		}), vs("action.click.count", "must be 1..3, got -1", "action.click.modifiers", "must have at most 8 modifiers, got 9")},
		{"long modifier name is cut", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_Click{Click: &agentv1.Click{Modifiers: []string{strings.Repeat("m", 1000)}}}
		}), vs("action.click.modifiers[0]", `unknown modifier "`+strings.Repeat("m", 32)+`"...`)},
		{"mouse_down and up", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_MouseDown{MouseDown: &agentv1.MouseDown{At: pt(-5, 0), Button: -1}}
		}), vs("action.mouse_down.at.x", "must be >= 0, got -5", "action.mouse_down.button", "unknown value -1")},
		{"mouse_up", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_MouseUp{MouseUp: &agentv1.MouseUp{Button: 6}}
		}), vs("action.mouse_up.button", "unknown value 6")},
		{"drag short path", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_Drag{Drag: &agentv1.Drag{Path: []*agentv1.Point{pt(1, 1)}, StepDelayMs: 1001, Button: 7, Modifiers: []string{"hyper", "x"}}}
		}), vs(
			"action.drag.path", "must have 2..1000 points, got 1",
			"action.drag.button", "unknown value 7",
			"action.drag.step_delay_ms", "must be 0..1000, got 1001",
			"action.drag.modifiers[1]", `unknown modifier "x"`,
		)},
		{"drag pauses over a minute", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_Drag{Drag: &agentv1.Drag{Path: path(61, pt(5, 5)), StepDelayMs: 1000}}
		}), vs("action.drag.step_delay_ms", "1000 ms x 61 points is 61000 ms of pauses, at most 60000 ms per request")},
		{"type pauses over a minute", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: strings.Repeat("日", 601), DelayMs: 100}}
		}), vs("action.type.delay_ms", "100 ms x 601 characters is 60100 ms of pauses, at most 60000 ms per request")},
		{"drag bad points", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_Drag{Drag: &agentv1.Drag{Path: []*agentv1.Point{pt(0, 0), nil, pt(-1, 3)}}}
		}), vs("action.drag.path[1]", "required", "action.drag.path[2].x", "must be >= 0, got -1")},
		{"drag long path", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_Drag{Drag: &agentv1.Drag{Path: path(1001, pt(1, 1))}}
		}), vs("action.drag.path", "must have 2..1000 points, got 1001")},
		{"drag many bad points are summarised", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_Drag{Drag: &agentv1.Drag{Path: path(12, pt(0, -1))}}
		}), func() []errdefs.Violation {
			var want []errdefs.Violation
			for i := range 10 {
				want = append(want, errdefs.Violation{Field: "action.drag.path[" + string(rune('0'+i)) + "].y", Description: "must be >= 0, got -1"})
			}
			return append(want, errdefs.Violation{Field: "action.drag.path", Description: "2 more bad points not listed"})
		}()},
		{"scroll zero", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_Scroll{Scroll: &agentv1.Scroll{}}
		}), vs("action.scroll", "dx and dy must not both be 0")},
		{"scroll bounds", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_Scroll{Scroll: &agentv1.Scroll{At: pt(0, -1), Dx: -51, Dy: 51, Modifiers: []string{""}}}
		}), vs(
			"action.scroll.at.y", "must be >= 0, got -1",
			"action.scroll.dx", "must be -50..50, got -51",
			"action.scroll.dy", "must be -50..50, got 51",
			"action.scroll.modifiers[0]", `unknown modifier ""`,
		)},
		{"key", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_Key{Key: &agentv1.Key{Combo: "ctrl+", Repeat: 101}}
		}), vs("action.key.combo", "empty key name at position 2", "action.key.repeat", "must be 1..100, got 101")},
		{"key empty", act(func(r *agentv1.ActRequest) { r.Action = &agentv1.ActRequest_Key{Key: &agentv1.Key{Repeat: -1}} }),
			vs("action.key.combo", "required", "action.key.repeat", "must be 1..100, got -1")},
		{"key_down long combo", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_KeyDown{KeyDown: &agentv1.KeyDown{Combo: strings.Repeat("a", 257)}}
		}), vs("action.key_down.combo", "must be at most 256 bytes, got 257")},
		{"key_up unknown", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_KeyUp{KeyUp: &agentv1.KeyUp{Combo: "ctrl+foo"}}
		}), vs("action.key_up.combo", `unknown key "foo"`)},
		{"hold_key", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_HoldKey{HoldKey: &agentv1.HoldKey{Combo: "shift", DurationMs: 60001}}
		}), vs("action.hold_key.duration_ms", "must be 0..60000, got 60001")},
		{"type empty", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_Type{Type: &agentv1.TypeText{DelayMs: -1}}
		}), vs("action.type.text", "required", "action.type.delay_ms", "must be 0..1000, got -1")},
		{"type huge", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: strings.Repeat("é", 32769)}}
		}), vs("action.type.text", "must be at most 65536 bytes, got 65538")},
		{"type control char", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: "ok\n\tnot\x07"}}
		}), vs("action.type.text", `control character U+0007 at byte 7 (only \n and \t are allowed)`)},
		{"type C1 control", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: "a\u0085"}}
		}), vs("action.type.text", `control character U+0085 at byte 1 (only \n and \t are allowed)`)},
		{"type invalid utf8", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: "ab\xffc"}}
		}), vs("action.type.text", "invalid UTF-8 at byte 2")},
		{"wait", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_Wait{Wait: &agentv1.Wait{DurationMs: 60001}}
		}), vs("action.wait.duration_ms", "must be 0..60000, got 60001")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, violations(t, ActRequest(tt.req))); diff != "" {
				t.Errorf("ActRequest violations (-want +got):\n%s", diff)
			}
		})
	}
}

// validActions holds one valid request per action, at the edges of the bounds.
func validActions() []*agentv1.ActRequest {
	rs := []*agentv1.ActRequest{
		{Action: &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{To: pt(0, 0)}}},
		{Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{}}},
		{Action: &agentv1.ActRequest_MouseDown{MouseDown: &agentv1.MouseDown{Button: agentv1.MouseButton_MOUSE_BUTTON_FORWARD}}},
		{Action: &agentv1.ActRequest_MouseUp{MouseUp: &agentv1.MouseUp{At: pt(1279, 799)}}},
		{Action: &agentv1.ActRequest_Drag{Drag: &agentv1.Drag{Path: path(60, pt(5, 5)), StepDelayMs: 1000, Modifiers: []string{"shift", "ctrl", "control", "alt", "super", "meta", "hyper", "altgr"}}}},
		{Action: &agentv1.ActRequest_Scroll{Scroll: &agentv1.Scroll{Dx: -50, Dy: 50}}},
		{Action: &agentv1.ActRequest_Scroll{Scroll: &agentv1.Scroll{Dy: -1}}},
		{Action: &agentv1.ActRequest_Key{Key: &agentv1.Key{Combo: "ctrl++", Repeat: 100}}},
		{Action: &agentv1.ActRequest_KeyDown{KeyDown: &agentv1.KeyDown{Combo: "super"}}},
		{Action: &agentv1.ActRequest_KeyUp{KeyUp: &agentv1.KeyUp{Combo: "alt+Tab"}}},
		{Action: &agentv1.ActRequest_HoldKey{HoldKey: &agentv1.HoldKey{Combo: "F5", DurationMs: 60000}}},
		{Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: "héllo 中文 😀\n\t", DelayMs: 1000}}},
		{Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: strings.Repeat("x", 65536)}}},
		{Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: strings.Repeat("é", 600), DelayMs: 100}}},
		{Action: &agentv1.ActRequest_Drag{Drag: &agentv1.Drag{Path: path(1000, pt(5, 5)), StepDelayMs: 60}}},
		{Action: &agentv1.ActRequest_Wait{Wait: &agentv1.Wait{DurationMs: 60000}}},
		{Action: &agentv1.ActRequest_ReleaseAll{ReleaseAll: &agentv1.ReleaseAll{}}},
	}
	for _, r := range rs {
		r.Owner = strings.Repeat("s", 128)
	}
	return rs
}

func TestActRequestValid(t *testing.T) {
	for _, r := range validActions() {
		if err := ActRequest(r); err != nil {
			t.Errorf("ActRequest(%T): %v", r.GetAction(), err)
		}
	}
}

// TestActRequestUnknownAction: an action of a newer protocol arrives as unknown fields.
func TestActRequestUnknownAction(t *testing.T) {
	b, _ := proto.Marshal(&agentv1.ActRequest{Owner: "s1"})
	b = protowire.AppendTag(b, 99, protowire.BytesType)
	b = protowire.AppendBytes(b, nil)
	var r agentv1.ActRequest
	if err := proto.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	want := vs("action", "required (the request has fields this agent does not know: an action of a newer protocol?)")
	if diff := cmp.Diff(want, violations(t, ActRequest(&r))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
