package validate

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/actions"
)

func eref(snap, ref string) *agentv1.ElementRef {
	return &agentv1.ElementRef{SnapshotId: snap, Ref: ref}
}

// validElementActions are element actions that must pass.
func validElementActions() []*agentv1.ActRequest {
	el := eref("as-1a2b-3", "e12")
	app := &agentv1.Target{Kind: &agentv1.Target_App{App: &agentv1.AppTarget{AppId: "app:42", WindowId: "/org/a11y/atspi/accessible/7"}}, SnapshotId: "as-1a2b-3"}
	return []*agentv1.ActRequest{
		act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{Element: el}}
		}),
		act(func(r *agentv1.ActRequest) {
			r.Target = app
			r.Action = &agentv1.ActRequest_ElementFocus{ElementFocus: &agentv1.ElementFocus{Element: el}}
		}),
		act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementSetValue{ElementSetValue: &agentv1.ElementSetValue{Element: el, Value: &agentv1.ElementSetValue_Text{Text: "héllo\n世界 🎉"}}}
		}),
		act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementSetValue{ElementSetValue: &agentv1.ElementSetValue{Element: el, Value: &agentv1.ElementSetValue_Text{}}}
		}),
		act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementSetValue{ElementSetValue: &agentv1.ElementSetValue{Element: el, Value: &agentv1.ElementSetValue_Number{Number: -2.5}}}
		}),
		act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementSelectText{ElementSelectText: &agentv1.ElementSelectText{Element: el,
				Range: &agentv1.ElementSelectText_Offsets{Offsets: &agentv1.TextRange{Start: 2, End: 2}}, Caret: agentv1.CaretPlacement_CARET_PLACEMENT_AFTER}}
		}),
		act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementSelectText{ElementSelectText: &agentv1.ElementSelectText{Element: el,
				Range: &agentv1.ElementSelectText_Match{Match: &agentv1.TextMatch{Prefix: "one ", Text: "two", Suffix: " three"}}}}
		}),
		act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementDoAction{ElementDoAction: &agentv1.ElementDoAction{Element: el, Action: "activate"}}
		}),
		act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementScrollIntoView{ElementScrollIntoView: &agentv1.ElementScrollIntoView{Element: el}}
		}),
	}
}

func TestElementActionsValid(t *testing.T) {
	for _, r := range validElementActions() {
		if got := violations(t, ActRequest(r)); got != nil {
			t.Errorf("%v: %v", r, got)
		}
	}
}

func TestElementActionsInvalid(t *testing.T) {
	el := eref("as-1", "e1")
	tests := []struct {
		name string
		r    *agentv1.ActRequest
		want []string // fields
	}{
		{"no element", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{}}
		}),
			[]string{"action.element_click.element"}},
		{"empty ref parts", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementFocus{ElementFocus: &agentv1.ElementFocus{Element: eref("", "")}}
		}), []string{"action.element_focus.element.snapshot_id", "action.element_focus.element.ref"}},
		{"bad ref bytes", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementScrollIntoView{ElementScrollIntoView: &agentv1.ElementScrollIntoView{Element: eref("a b", strings.Repeat("e", 33))}}
		}), []string{"action.element_scroll_into_view.element.snapshot_id", "action.element_scroll_into_view.element.ref"}},
		{"set_value without value", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementSetValue{ElementSetValue: &agentv1.ElementSetValue{Element: el}}
		}), []string{"action.element_set_value.value"}},
		{"set_value text too long", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementSetValue{ElementSetValue: &agentv1.ElementSetValue{Element: el, Value: &agentv1.ElementSetValue_Text{Text: strings.Repeat("x", 65537)}}}
		}), []string{"action.element_set_value.value.text"}},
		{"set_value invalid utf-8", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementSetValue{ElementSetValue: &agentv1.ElementSetValue{Element: el, Value: &agentv1.ElementSetValue_Text{Text: "a\xffb"}}}
		}), []string{"action.element_set_value.value.text"}},
		{"set_value NaN", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementSetValue{ElementSetValue: &agentv1.ElementSetValue{Element: el, Value: &agentv1.ElementSetValue_Number{Number: math.NaN()}}}
		}), []string{"action.element_set_value.value.number"}},
		{"set_value Inf", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementSetValue{ElementSetValue: &agentv1.ElementSetValue{Element: el, Value: &agentv1.ElementSetValue_Number{Number: math.Inf(-1)}}}
		}), []string{"action.element_set_value.value.number"}},
		{"select_text without range, bad caret", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementSelectText{ElementSelectText: &agentv1.ElementSelectText{Element: el, Caret: 9}}
		}), []string{"action.element_select_text.range", "action.element_select_text.caret"}},
		{"select_text offsets", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementSelectText{ElementSelectText: &agentv1.ElementSelectText{Element: el,
				Range: &agentv1.ElementSelectText_Offsets{Offsets: &agentv1.TextRange{Start: -1, End: -2}}}}
		}), []string{"action.element_select_text.range.offsets.start", "action.element_select_text.range.offsets.end"}},
		{"select_text empty match", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementSelectText{ElementSelectText: &agentv1.ElementSelectText{Element: el,
				Range: &agentv1.ElementSelectText_Match{Match: &agentv1.TextMatch{Prefix: "\xff"}}}}
		}), []string{"action.element_select_text.range.match.text", "action.element_select_text.range.match.prefix"}},
		{"do_action", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementDoAction{ElementDoAction: &agentv1.ElementDoAction{Element: el}}
		}), []string{"action.element_do_action.action"}},
		{"do_action too long", act(func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementDoAction{ElementDoAction: &agentv1.ElementDoAction{Element: el, Action: strings.Repeat("a", 129)}}
		}), []string{"action.element_do_action.action"}},
		{"window target", act(func(r *agentv1.ActRequest) {
			r.Target = &agentv1.Target{Kind: &agentv1.Target_Window{Window: &agentv1.WindowTarget{WindowId: 5}}}
			r.Action = &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{Element: el}}
		}), []string{"target"}},
		{"other snapshot in target", act(func(r *agentv1.ActRequest) {
			r.Target = &agentv1.Target{Kind: &agentv1.Target_App{App: &agentv1.AppTarget{AppId: "app:1"}}, SnapshotId: "as-2"}
			r.Action = &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{Element: el}}
		}), []string{"target.snapshot_id"}},
		{"bad app target", act(func(r *agentv1.ActRequest) {
			r.Target = &agentv1.Target{Kind: &agentv1.Target_App{App: &agentv1.AppTarget{AppId: "app:0x1", WindowId: "not/a/path"}}}
			r.Action = &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{Element: el}}
		}), []string{"target.app.app_id", "target.app.window_id"}},
		{"app target without id", act(func(r *agentv1.ActRequest) {
			r.Target = &agentv1.Target{Kind: &agentv1.Target_App{App: &agentv1.AppTarget{}}}
			r.Action = &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{Element: el}}
		}), []string{"target.app.app_id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, v := range violations(t, ActRequest(tt.r)) {
				got = append(got, v.Field)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAccessibilityReads(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"get app by id", GetApp(&agentv1.GetAppRequest{AppId: "app:12"}), nil},
		{"launch", GetApp(&agentv1.GetAppRequest{Name: "gedit; rm -rf /", Launch: true, Args: []string{"--new-window"}, LaunchTimeoutMs: 60000}), nil},
		{"neither", GetApp(&agentv1.GetAppRequest{}), []string{"name"}},
		{"both", GetApp(&agentv1.GetAppRequest{AppId: "app:1", Name: "x"}), []string{"name"}},
		{"launch by id", GetApp(&agentv1.GetAppRequest{AppId: "app:1", Launch: true}), []string{"launch"}},
		{"bad id", GetApp(&agentv1.GetAppRequest{AppId: "app:-1"}), []string{"app_id"}},
		{"id with sign", GetApp(&agentv1.GetAppRequest{AppId: "app:+7"}), []string{"app_id"}},
		{"long name and NUL arg", GetApp(&agentv1.GetAppRequest{Name: strings.Repeat("n", 257), Launch: true, Args: []string{"a\x00b"}}), []string{"name", "args[0]"}},
		{"args without launch, timeout", GetApp(&agentv1.GetAppRequest{Name: "x", Args: []string{"a"}, LaunchTimeoutMs: 60001}), []string{"args", "launch_timeout_ms"}},
		{"too many args", GetApp(&agentv1.GetAppRequest{Name: "x", Launch: true, Args: make([]string, 33)}), []string{"args"}},
		{"snapshot app", SnapshotApp(&agentv1.SnapshotAppRequest{AppId: "app:3", Options: &agentv1.SnapshotOptions{MaxNodes: 20000, MaxDepth: 256}}), nil},
		{"snapshot app bad", SnapshotApp(&agentv1.SnapshotAppRequest{Options: &agentv1.SnapshotOptions{MaxNodes: 20001, MaxDepth: -1}}), []string{"app_id", "options.max_nodes", "options.max_depth"}},
		{"snapshot window", SnapshotWindow(&agentv1.SnapshotWindowRequest{AppId: "app:3", WindowId: "/org/a11y/atspi/accessible/1"}), nil},
		{"snapshot window bad", SnapshotWindow(&agentv1.SnapshotWindowRequest{AppId: "app:3", WindowId: "/a//b"}), []string{"window_id"}},
		{"snapshot window missing", SnapshotWindow(&agentv1.SnapshotWindowRequest{AppId: "app:3"}), []string{"window_id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, v := range violations(t, tt.err) {
				got = append(got, v.Field)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzElementAction(f *testing.F) {
	for _, r := range validElementActions() {
		b, _ := proto.Marshal(r)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var r agentv1.ActRequest
		if proto.Unmarshal(b, &r) != nil {
			return
		}
		err := ActRequest(&r)
		checkResult(t, err)
		if err != nil || !isElement(&r) {
			return
		}
		// A valid element action names an element whose snapshot id and ref are usable ids.
		for _, s := range []string{elementOfTest(&r).GetSnapshotId(), elementOfTest(&r).GetRef()} {
			if s == "" || len(s) > MaxIDBytes {
				t.Fatalf("valid element action with id %q", s)
			}
		}
	})
}

func isElement(r *agentv1.ActRequest) bool { return actions.Of(r) == actions.Element }

func elementOfTest(r *agentv1.ActRequest) *agentv1.ElementRef {
	ref, _ := actions.ElementOf(r)
	return ref
}
