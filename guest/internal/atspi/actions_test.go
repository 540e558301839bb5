package atspi

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// act runs an element action the way the agent does and returns the response.
func (e *env) act(t *testing.T, target *agentv1.Target, a func(r *agentv1.ActRequest)) (*agentv1.ActResponse, error) {
	t.Helper()
	r := &agentv1.ActRequest{Owner: "test", Target: target}
	a(r)
	resp := &agentv1.ActResponse{}
	err := e.b.Act(context.Background(), r, resp)
	return resp, err
}

func snapApp(t *testing.T, e *env, pid int32) *agentv1.Snapshot {
	t.Helper()
	r, err := e.b.SnapshotApp(context.Background(), &agentv1.SnapshotAppRequest{AppId: AppID(pid)})
	if err != nil {
		t.Fatalf("SnapshotApp: %v", err)
	}
	if !r.Snapshot.Complete {
		t.Fatalf("snapshot incomplete: %s", r.Snapshot.IncompleteReason)
	}
	return r.Snapshot
}

// findText returns the element of role whose text is text.
func findText(t *testing.T, s *agentv1.Snapshot, role, text string) *agentv1.Element {
	t.Helper()
	for _, el := range s.GetElements() {
		if el.GetRole() == role && el.GetText() == text {
			return el
		}
	}
	t.Fatalf("no %s with text %q:\n%s", role, text, s.GetText())
	return nil
}

func ref(s *agentv1.Snapshot, el *agentv1.Element) *agentv1.ElementRef {
	return &agentv1.ElementRef{SnapshotId: s.SnapshotId, Ref: el.Ref}
}

func wantReason(t *testing.T, err error, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("error %v, want %v", err, want)
	}
}

// TestElementActions drives every element action on the test app and checks each through the app's own output.
func TestElementActions(t *testing.T) {
	var clicks int
	e := newEnv(t, Options{})
	e.b.opts.Click = func(ctx context.Context, x, y int32) error { clicks++; return nil }
	a := e.startTestApp(t, "actionsapp")
	s := snapApp(t, e, a.pid)
	entry := findText(t, s, "text", "hello world")
	view := findText(t, s, "text", "one two three two one")
	button := find(t, s, "push button", "Press me")
	check := find(t, s, "check box", "Enable feature")
	slider := find(t, s, "slider", "")
	menuItem := find(t, s, "menu item", "Hello")
	label := find(t, s, "label", "Just a label")
	if diff := cmp.Diff(&agentv1.ValueRange{Current: 10, Minimum: 0, Maximum: 100, Step: 1}, slider.Range, cmpProto); diff != "" {
		t.Errorf("slider range (-want +got):\n%s", diff)
	}

	t.Run("click runs the button's own action", func(t *testing.T) {
		a.reset()
		resp, err := e.act(t, nil, func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{Element: ref(s, button)}}
		})
		if err != nil {
			t.Fatal(err)
		}
		a.waitLine(t, "button clicked", 5*time.Second)
		if !resp.UsedElementAction || resp.Target.GetAppId() != AppID(a.pid) || resp.Target.GetSnapshotId() != s.SnapshotId || resp.Target.GetElementRef() != button.Ref {
			t.Errorf("response %v", resp)
		}
	})
	t.Run("click toggles the check box", func(t *testing.T) {
		a.reset()
		if _, err := e.act(t, nil, func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{Element: ref(s, check)}}
		}); err != nil {
			t.Fatal(err)
		}
		a.waitLine(t, "check: on", 5*time.Second)
	})
	t.Run("click without an action falls back to the pointer", func(t *testing.T) {
		before := clicks
		resp, err := e.act(t, nil, func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{Element: ref(s, label)}}
		})
		if err != nil {
			t.Fatal(err)
		}
		b := label.Bounds
		if clicks != before+1 || resp.UsedElementAction || resp.Pointer.GetX() != b.X+b.Width/2 || resp.Pointer.GetY() != b.Y+b.Height/2 {
			t.Errorf("clicks %d->%d, response %v, bounds %v", before, clicks, resp, b)
		}
	})
	t.Run("set_value text", func(t *testing.T) {
		a.reset()
		resp, err := e.act(t, nil, func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementSetValue{ElementSetValue: &agentv1.ElementSetValue{Element: ref(s, entry), Value: &agentv1.ElementSetValue_Text{Text: "héllo 世界"}}}
		})
		if err != nil {
			t.Fatal(err)
		}
		a.waitLine(t, "entry: héllo 世界", 5*time.Second)
		if resp.Effect != agentv1.Effect_EFFECT_VERIFIED || resp.Value != "héllo 世界" {
			t.Errorf("response %v", resp)
		}
	})
	t.Run("set_value number", func(t *testing.T) {
		a.reset()
		if _, err := e.act(t, nil, func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementSetValue{ElementSetValue: &agentv1.ElementSetValue{Element: ref(s, slider), Value: &agentv1.ElementSetValue_Number{Number: 42}}}
		}); err != nil {
			t.Fatal(err)
		}
		a.waitLine(t, "scale: 42", 5*time.Second)
		_, err := e.act(t, nil, func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementSetValue{ElementSetValue: &agentv1.ElementSetValue{Element: ref(s, slider), Value: &agentv1.ElementSetValue_Number{Number: 101}}}
		})
		wantReason(t, err, errdefs.ErrInvalidArgument)
	})
	t.Run("set_value on a button is unsupported", func(t *testing.T) {
		_, err := e.act(t, nil, func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementSetValue{ElementSetValue: &agentv1.ElementSetValue{Element: ref(s, button), Value: &agentv1.ElementSetValue_Text{Text: "x"}}}
		})
		wantReason(t, err, errdefs.ErrUnsupportedAction)
		_, err = e.act(t, nil, func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementSetValue{ElementSetValue: &agentv1.ElementSetValue{Element: ref(s, button), Value: &agentv1.ElementSetValue_Number{Number: 1}}}
		})
		wantReason(t, err, errdefs.ErrUnsupportedAction)
	})
	t.Run("do_action on a menu item", func(t *testing.T) {
		a.reset()
		if _, err := e.act(t, nil, func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementDoAction{ElementDoAction: &agentv1.ElementDoAction{Element: ref(s, menuItem), Action: menuItem.Actions[0]}}
		}); err != nil {
			t.Fatal(err)
		}
		a.waitLine(t, "menu: Hello", 5*time.Second)
		_, err := e.act(t, nil, func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementDoAction{ElementDoAction: &agentv1.ElementDoAction{Element: ref(s, menuItem), Action: "explode"}}
		})
		wantReason(t, err, errdefs.ErrUnsupportedAction)
		// The application's action names are untrusted: in metadata, never in the message.
		if got := errgrpc.Metadata(err)["untrusted_available_actions"]; !contains(got, `"`+menuItem.Actions[0]+`"`) || contains(err.Error(), menuItem.Actions[0]) {
			t.Errorf("error %q, untrusted_available_actions %q: want the available actions (%q) in the metadata only", err, got, menuItem.Actions[0])
		}
	})
	t.Run("select_text", func(t *testing.T) {
		sel := func(rg *agentv1.ElementSelectText) (*agentv1.ActResponse, error) {
			rg.Element = ref(s, view)
			return e.act(t, nil, func(r *agentv1.ActRequest) { r.Action = &agentv1.ActRequest_ElementSelectText{ElementSelectText: rg} })
		}
		a.reset()
		resp, err := sel(&agentv1.ElementSelectText{Range: &agentv1.ElementSelectText_Match{Match: &agentv1.TextMatch{Prefix: "three ", Text: "two"}}})
		if err != nil {
			t.Fatal(err)
		}
		a.waitLine(t, "selection: 14 17", 5*time.Second)
		if diff := cmp.Diff(&agentv1.TextRange{Start: 14, End: 17}, resp.Selection, cmpProto); diff != "" {
			t.Errorf("selection (-want +got):\n%s", diff)
		}
		a.reset()
		if _, err := sel(&agentv1.ElementSelectText{Range: &agentv1.ElementSelectText_Offsets{Offsets: &agentv1.TextRange{Start: 0, End: 3}}}); err != nil {
			t.Fatal(err)
		}
		a.waitLine(t, "selection: 0 3", 5*time.Second)
		_, err = sel(&agentv1.ElementSelectText{Range: &agentv1.ElementSelectText_Match{Match: &agentv1.TextMatch{Text: "two"}}})
		wantReason(t, err, errdefs.ErrTargetAmbiguous)
		_, err = sel(&agentv1.ElementSelectText{Range: &agentv1.ElementSelectText_Match{Match: &agentv1.TextMatch{Text: "four"}}})
		wantReason(t, err, errdefs.ErrNotFound)
		_, err = sel(&agentv1.ElementSelectText{Range: &agentv1.ElementSelectText_Offsets{Offsets: &agentv1.TextRange{Start: 0, End: 99}}})
		wantReason(t, err, errdefs.ErrInvalidArgument)
		resp, err = sel(&agentv1.ElementSelectText{Range: &agentv1.ElementSelectText_Match{Match: &agentv1.TextMatch{Text: "three"}}, Caret: agentv1.CaretPlacement_CARET_PLACEMENT_AFTER})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&agentv1.TextRange{Start: 13, End: 13}, resp.Selection, cmpProto); diff != "" || resp.Effect != agentv1.Effect_EFFECT_VERIFIED {
			t.Errorf("caret (-want +got):\n%s effect %v", diff, resp.Effect)
		}
	})
	t.Run("focus", func(t *testing.T) {
		a.reset()
		if _, err := e.act(t, nil, func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementFocus{ElementFocus: &agentv1.ElementFocus{Element: ref(s, entry)}}
		}); err != nil {
			t.Fatal(err)
		}
		a.waitLine(t, "focus: entry", 5*time.Second)
	})
	t.Run("scroll_into_view of a showing element", func(t *testing.T) {
		if _, err := e.act(t, nil, func(r *agentv1.ActRequest) {
			r.Action = &agentv1.ActRequest_ElementScrollIntoView{ElementScrollIntoView: &agentv1.ElementScrollIntoView{Element: ref(s, button)}}
		}); err != nil {
			t.Fatal(err)
		}
	})
}

func contains(s, sub string) bool {
	return len(sub) == 0 || len(s) >= len(sub) && (s[:len(sub)] == sub || contains(s[1:], sub))
}
