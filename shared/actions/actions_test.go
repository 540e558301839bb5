package actions

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/testing/protocmp"
)

// TestEveryActionHasItsKind pins the kind of every member of the action oneof, so a new action is a visible
// decision (and follows the element / tab field convention).
func TestEveryActionHasItsKind(t *testing.T) {
	want := map[string]Kind{
		"mouse_move": Desktop, "click": Desktop, "mouse_down": Desktop, "mouse_up": Desktop, "drag": Desktop,
		"scroll": Desktop, "key": Desktop, "key_down": Desktop, "key_up": Desktop, "hold_key": Desktop,
		"type": Desktop, "wait": Desktop, "release_all": Desktop,
		"element_click": Element, "element_focus": Element, "element_set_value": Element,
		"element_select_text": Element, "element_do_action": Element, "element_scroll_into_view": Element,
		"new_tab": Page, "close_tab": Page, "activate_tab": Page, "navigate": Page, "reload": Page,
		"stop_loading": Page, "history": Page, "page_click": Page, "fill": Page, "page_type": Page, "press": Page,
		"page_key_down": Page, "page_key_up": Page, "set_value": Page, "page_select_text": Page, "paste": Page,
		"page_scroll": Page, "hover": Page, "page_drag": Page, "set_viewport": Page, "wait_for": Page,
		"secondary_action": Page,
	}
	got := map[string]Kind{}
	oneof := (&agentv1.ActRequest{}).ProtoReflect().Descriptor().Oneofs().ByName("action")
	for i := 0; i < oneof.Fields().Len(); i++ {
		fd := oneof.Fields().Get(i)
		r := &agentv1.ActRequest{}
		m := r.ProtoReflect()
		m.Set(fd, protoreflect.ValueOfMessage(m.NewField(fd).Message()))
		got[string(fd.Name())] = Of(r)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	if k := Of(&agentv1.ActRequest{}); k != None {
		t.Errorf("no action: %v, want None", k)
	}
}

// TestObservations pins which actions are observations: a new action that changes nothing is a visible decision.
func TestObservations(t *testing.T) {
	got := map[string]bool{}
	oneof := (&agentv1.ActRequest{}).ProtoReflect().Descriptor().Oneofs().ByName("action")
	for i := 0; i < oneof.Fields().Len(); i++ {
		fd := oneof.Fields().Get(i)
		r := &agentv1.ActRequest{}
		m := r.ProtoReflect()
		m.Set(fd, protoreflect.ValueOfMessage(m.NewField(fd).Message()))
		if Observes(r) {
			got[string(fd.Name())] = true
		}
	}
	if diff := cmp.Diff(map[string]bool{"wait": true, "wait_for": true}, got); diff != "" {
		t.Errorf("observations (-want +got):\n%s", diff)
	}
}

func TestElementAndTabOf(t *testing.T) {
	el := &agentv1.ElementRef{SnapshotId: "s1", Ref: "e3"}
	tab := &agentv1.TabRef{BrowserId: "chrome-9222", TabId: "T1"}
	tests := []struct {
		name      string
		r         *agentv1.ActRequest
		wantEl    *agentv1.ElementRef
		wantTab   *agentv1.TabRef
		wantField string
	}{
		{"element", &agentv1.ActRequest{Action: &agentv1.ActRequest_ElementFocus{ElementFocus: &agentv1.ElementFocus{Element: el}}}, el, nil, "action.element_focus"},
		{"element unset", &agentv1.ActRequest{Action: &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{}}}, nil, nil, "action.element_click"},
		{"tab", &agentv1.ActRequest{Action: &agentv1.ActRequest_Fill{Fill: &agentv1.Fill{Tab: tab}}}, nil, tab, "action.fill"},
		{"desktop", &agentv1.ActRequest{Action: &agentv1.ActRequest_Key{Key: &agentv1.Key{Combo: "a"}}}, nil, nil, ""},
		{"new tab", &agentv1.ActRequest{Action: &agentv1.ActRequest_NewTab{NewTab: &agentv1.NewTab{BrowserId: "chrome-1"}}}, nil, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gotEl, f1 := ElementOf(tc.r)
			gotTab, f2 := TabOf(tc.r)
			if !proto.Equal(gotEl, tc.wantEl) && (gotEl != nil || tc.wantEl != nil) {
				t.Errorf("ElementOf = %v, want %v", gotEl, tc.wantEl)
			}
			if diff := cmp.Diff(tc.wantTab, gotTab, protocmp.Transform()); diff != "" {
				t.Errorf("TabOf (-want +got):\n%s", diff)
			}
			if f := f1 + f2; f != tc.wantField {
				t.Errorf("field %q, want %q", f, tc.wantField)
			}
		})
	}
}

func TestSetTab(t *testing.T) {
	tab := &agentv1.TabRef{BrowserId: "chrome-9222", TabId: "T1"}
	fill := &agentv1.ActRequest{Action: &agentv1.ActRequest_Fill{Fill: &agentv1.Fill{Text: "x"}}}
	if !SetTab(fill, tab) {
		t.Fatal("SetTab(fill) = false, want true")
	}
	if got, _ := TabOf(fill); !proto.Equal(got, tab) || fill.GetFill().GetText() != "x" {
		t.Errorf("after SetTab: tab %v value %q, want %v and the value kept", got, fill.GetFill().GetText(), tab)
	}
	for _, r := range []*agentv1.ActRequest{
		{Action: &agentv1.ActRequest_NewTab{NewTab: &agentv1.NewTab{}}},
		{Action: &agentv1.ActRequest_Key{Key: &agentv1.Key{Combo: "a"}}},
		{},
	} {
		before := proto.CloneOf(r)
		if SetTab(r, tab) || !proto.Equal(before, r) {
			t.Errorf("SetTab(%v) changed a request with no tab field: %v", before, r)
		}
	}
}

func TestSnapshotsOf(t *testing.T) {
	ref := func(s string) *agentv1.ElementRef { return &agentv1.ElementRef{SnapshotId: s, Ref: "e1"} }
	loc := func(s string) *agentv1.Locator { return &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: ref(s)}} }
	tests := []struct {
		name string
		r    *agentv1.ActRequest
		want []SnapshotRef
	}{
		{"element", &agentv1.ActRequest{Action: &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{Element: ref("as-1")}}},
			[]SnapshotRef{{"action.element_click.element.snapshot_id", "as-1"}}},
		{"page click by ref", &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Locator: loc("page-1")}}},
			[]SnapshotRef{{"action.page_click.locator.ref.snapshot_id", "page-1"}}},
		{"page drag", &agentv1.ActRequest{Target: &agentv1.Target{SnapshotId: "page-2"}, Action: &agentv1.ActRequest_PageDrag{PageDrag: &agentv1.PageDrag{From: loc("page-2"), To: loc("page-2")}}},
			[]SnapshotRef{{"target.snapshot_id", "page-2"}, {"action.page_drag.from.ref.snapshot_id", "page-2"}, {"action.page_drag.to.ref.snapshot_id", "page-2"}}},
		{"selector", &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Locator: &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: "#b"}}}}}, nil},
		{"desktop", &agentv1.ActRequest{Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{At: &agentv1.Point{X: 1}}}}, nil},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, SnapshotsOf(tc.r)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
