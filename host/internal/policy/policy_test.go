package policy

import (
	"errors"
	"strings"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

func TestLooksSecret(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"hello world", false},
		{"The quick brown fox jumps over the lazy dog 1234", false},
		{"internationalization and localization", false},
		{"你好，世界 🙂", false},
		{"https://example.com/path/to/page", false},
		{"AKIAIOSFODNN7EXAMPLE", true},
		{"-----BEGIN RSA PRIVATE KEY-----", true},
		{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlLXNpZ25hdHVyZQ", true},
		{"PASSWORD: correcthorse", true},
		{"api_key=abcd1234", true},
		{"ghp_abcdefghijklmnopqrstuvwxyz0123456789", true},
		{"Zx8qP2mW9vL4kR7tY1nB6cJ3", true},
		{"da39a3ee5e6b4b0d3255bfef95601890afd80709", true},
	}
	for _, tc := range tests {
		if got, rule := LooksSecret(tc.text); got != tc.want {
			t.Errorf("LooksSecret(%q) = %v (%s), want %v", tc.text, got, rule, tc.want)
		}
	}
}

func TestBucket(t *testing.T) {
	b := NewBucket(10, 2)
	now := time.Unix(0, 0)
	var got []bool
	for _, dt := range []time.Duration{0, 0, 0, 50 * time.Millisecond, 100 * time.Millisecond} {
		now = now.Add(dt)
		err := b.Take(now)
		if err != nil && !errors.Is(err, errdefs.ErrResourceExhausted) {
			t.Fatal(err)
		}
		got = append(got, err == nil)
	}
	want := []bool{true, true, false, false, true}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("take %d = %v, want %v (all %v)", i, got[i], want[i], got)
		}
	}
	if err := NewBucket(-1, 0).Take(now); err != nil {
		t.Errorf("unlimited bucket refused: %v", err)
	}
}

// TestCheckActTexts: every act verb that carries text a person could type (type, page_type, fill,
// set_value, element_set_value, paste text and html) passes the secret gate, naming its field.
func TestCheckActTexts(t *testing.T) {
	const secret = "password=hunter22"
	g := NewGates(nil, true)
	tests := []struct {
		field string
		req   *agentv1.ActRequest
	}{
		{"request.action.type.text", &agentv1.ActRequest{Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: secret}}}},
		{"request.action.page_type.text", &agentv1.ActRequest{Action: &agentv1.ActRequest_PageType{PageType: &agentv1.PageType{Text: secret}}}},
		{"request.action.fill.text", &agentv1.ActRequest{Action: &agentv1.ActRequest_Fill{Fill: &agentv1.Fill{Text: secret}}}},
		{"request.action.set_value.value", &agentv1.ActRequest{Action: &agentv1.ActRequest_SetValue{SetValue: &agentv1.SetValue{Value: secret}}}},
		{"request.action.element_set_value.text", &agentv1.ActRequest{Action: &agentv1.ActRequest_ElementSetValue{ElementSetValue: &agentv1.ElementSetValue{Value: &agentv1.ElementSetValue_Text{Text: secret}}}}},
		{"request.action.paste.text", &agentv1.ActRequest{Action: &agentv1.ActRequest_Paste{Paste: &agentv1.Paste{Text: secret}}}},
		{"request.action.paste.html", &agentv1.ActRequest{Action: &agentv1.ActRequest_Paste{Paste: &agentv1.Paste{Text: "hello", Html: "<b>" + secret + "</b>"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.field, func(t *testing.T) {
			err := g.CheckAct(tc.req)
			if !errors.Is(err, errdefs.ErrConfirmationRequired) || !strings.HasPrefix(err.Error(), tc.field+" ") || strings.Contains(err.Error(), "hunter22") {
				t.Errorf("unconfirmed: %v, want CONFIRMATION_REQUIRED naming %s without the text", err, tc.field)
			}
			tc.req.Confirm = true
			if err := g.CheckAct(tc.req); err != nil {
				t.Errorf("confirmed: %v", err)
			}
		})
	}
}

// TestCheckActButtons: every act verb that presses a button asks for confirm when that button is
// confirmable, page_click included, and an unspecified (or unknown) button is the LEFT button the agent
// presses for it.
func TestCheckActButtons(t *testing.T) {
	right, left := agentv1.MouseButton_MOUSE_BUTTON_RIGHT, agentv1.MouseButton_MOUSE_BUTTON_UNSPECIFIED
	tests := []struct {
		name    string
		buttons []string
		req     *agentv1.ActRequest
	}{
		{"click right", []string{"right"}, &agentv1.ActRequest{Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{Button: right}}}},
		{"mouse_down right", []string{"right"}, &agentv1.ActRequest{Action: &agentv1.ActRequest_MouseDown{MouseDown: &agentv1.MouseDown{Button: right}}}},
		{"drag right", []string{"right"}, &agentv1.ActRequest{Action: &agentv1.ActRequest_Drag{Drag: &agentv1.Drag{Button: right}}}},
		{"page_click right", []string{"right"}, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Button: right}}}},
		{"click unspecified is left", []string{"left"}, &agentv1.ActRequest{Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{Button: left}}}},
		{"click unknown is left", []string{"left"}, &agentv1.ActRequest{Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{Button: 99}}}},
		{"page_click unspecified is left", []string{"left"}, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Button: left}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGates(tc.buttons, false)
			if err := g.CheckAct(tc.req); !errors.Is(err, errdefs.ErrConfirmationRequired) {
				t.Errorf("unconfirmed: %v, want CONFIRMATION_REQUIRED", err)
			}
			tc.req.Confirm = true
			if err := g.CheckAct(tc.req); err != nil {
				t.Errorf("confirmed: %v", err)
			}
			tc.req.Confirm = false
			if err := NewGates(nil, false).CheckAct(tc.req); err != nil {
				t.Errorf("no confirmable buttons: %v", err)
			}
		})
	}
}
