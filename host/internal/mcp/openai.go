package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// PixelsPerWheelClick converts OpenAI's scroll_x / scroll_y pixels into wheel clicks. GTK and Chromium on X11
// scroll about 50 px for one click of the wheel; a non-zero amount below it is one click, so a small scroll
// still scrolls.
const PixelsPerWheelClick = 50

// maxBatch bounds the actions of one OpenAI call.
const maxBatch = 64

// openaiAction is one action of OpenAI's computer tool.
type openaiAction struct {
	Type    string        `json:"type"`
	Button  string        `json:"button"`
	X       *int          `json:"x"`
	Y       *int          `json:"y"`
	Path    []openaiPoint `json:"path"`
	Keys    []string      `json:"keys"`
	ScrollX *int          `json:"scroll_x"`
	ScrollY *int          `json:"scroll_y"`
	Text    *string       `json:"text"`
	MS      *int          `json:"ms"`
}

type openaiPoint struct {
	X int `json:"x"`
	Y int `json:"y"`
}

type openaiArgs struct {
	Action  *openaiAction  `json:"action"`
	Actions []openaiAction `json:"actions"`
	Confirm bool           `json:"confirm"`
}

var openaiTypes = []string{"click", "double_click", "drag", "keypress", "move", "scroll", "type", "wait", "screenshot"}

func (s *Session) openaiTool() tool {
	m := s.scale.Model
	xs := map[string]any{"type": "integer", "minimum": 0, "maximum": m.Width - 1}
	ys := map[string]any{"type": "integer", "minimum": 0, "maximum": m.Height - 1}
	action := map[string]any{
		"type": "object", "additionalProperties": false, "required": []string{"type"},
		"properties": map[string]any{
			"type":     map[string]any{"type": "string", "enum": openaiTypes},
			"button":   map[string]any{"type": "string", "enum": []string{"left", "right", "wheel", "back", "forward"}},
			"x":        xs,
			"y":        ys,
			"path":     map[string]any{"type": "array", "minItems": 2, "maxItems": 1000, "items": map[string]any{"type": "object", "required": []string{"x", "y"}, "additionalProperties": false, "properties": map[string]any{"x": xs, "y": ys}}},
			"keys":     map[string]any{"type": "array", "minItems": 1, "maxItems": 8, "items": map[string]any{"type": "string"}},
			"scroll_x": map[string]any{"type": "integer", "minimum": -50 * PixelsPerWheelClick, "maximum": 50 * PixelsPerWheelClick},
			"scroll_y": map[string]any{"type": "integer", "minimum": -50 * PixelsPerWheelClick, "maximum": 50 * PixelsPerWheelClick},
			"text":     map[string]any{"type": "string", "maxLength": 65536},
			"ms":       map[string]any{"type": "integer", "minimum": 0, "maximum": 60000, "description": "wait: milliseconds (default 1000)"},
		},
	}
	schema := map[string]any{
		"type": "object", "additionalProperties": false,
		"properties": map[string]any{
			"action":  action,
			"actions": map[string]any{"type": "array", "minItems": 1, "maxItems": maxBatch, "items": action},
			"confirm": map[string]any{"type": "boolean"},
		},
	}
	desc := fmt.Sprintf("OpenAI's computer actions on a %dx%d display: one action, or a batch of actions run in order "+
		"(all are checked first; a bad one runs none). Answers with a screenshot after the last action. scroll_x / scroll_y "+
		"are pixels (%d px = one wheel click).", m.Width, m.Height, PixelsPerWheelClick)
	return tool{
		tool: &mcp.Tool{Name: "openai_computer", Description: desc, InputSchema: schema},
		run: func(ctx context.Context, raw json.RawMessage) (*result, error) {
			var a openaiArgs
			if err := decode(raw, &a); err != nil {
				return nil, err
			}
			return s.openai(ctx, a)
		},
	}
}

func (s *Session) openai(ctx context.Context, a openaiArgs) (*result, error) {
	actions, prefix := a.Actions, "actions"
	switch {
	case a.Action != nil && a.Actions != nil:
		return nil, invalid("action", "give action or actions, not both")
	case a.Action != nil:
		actions, prefix = []openaiAction{*a.Action}, "action"
	case len(a.Actions) == 0:
		return nil, invalid("actions", "required: one action or a list of 1..%d", maxBatch)
	case len(a.Actions) > maxBatch:
		return nil, invalid("actions", "at most %d actions, got %d", maxBatch, len(a.Actions))
	}
	var v errdefs.Violations
	var steps []step
	for i, act := range actions {
		field := prefix
		if prefix == "actions" {
			field = fmt.Sprintf("actions[%d]", i)
		}
		if req := s.openaiStep(&v, field, act); req != nil {
			req.Confirm = a.Confirm
			steps = append(steps, step{req: req, arg: field})
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	r := newResult()
	var acted []step
	for _, st := range steps {
		if st.req.GetAction() != nil {
			acted = append(acted, st)
		}
	}
	if len(acted) > 0 {
		var err error
		if r, err = s.run(ctx, acted, true); err != nil {
			return nil, err
		}
	}
	if len(r.images) == 0 {
		shot, err := s.screenshot(ctx, nil)
		if err != nil {
			return nil, err
		}
		r.images = shot.images
		r.set("screenshot_audit_seq", shot.fields["audit_seq"])
	}
	r.set("actions", len(actions))
	return r, nil
}

// openaiStep builds the agent request of one action (nil Action for screenshot, which is the answer anyway).
func (s *Session) openaiStep(v *errdefs.Violations, field string, a openaiAction) *agentv1.ActRequest {
	n := v.Len()
	var at *agentv1.Point
	point := func(required bool) {
		switch {
		case a.X == nil && a.Y == nil && !required:
		case a.X == nil || a.Y == nil:
			v.Addf(field+".x", "x and y are required for %s", a.Type)
		default:
			at = s.scale.point(v, field+".[x,y]", []int{*a.X, *a.Y})
		}
	}
	req := &agentv1.ActRequest{}
	switch a.Type {
	case "click":
		point(true)
		b := map[string]agentv1.MouseButton{"": agentv1.MouseButton_MOUSE_BUTTON_LEFT, "left": agentv1.MouseButton_MOUSE_BUTTON_LEFT,
			"right": agentv1.MouseButton_MOUSE_BUTTON_RIGHT, "wheel": agentv1.MouseButton_MOUSE_BUTTON_MIDDLE,
			"back": agentv1.MouseButton_MOUSE_BUTTON_BACK, "forward": agentv1.MouseButton_MOUSE_BUTTON_FORWARD}[a.Button]
		if b == agentv1.MouseButton_MOUSE_BUTTON_UNSPECIFIED {
			v.Addf(field+".button", "must be left, right, wheel, back or forward, got %q", truncate(a.Button, 16))
		}
		req.Action = &agentv1.ActRequest_Click{Click: &agentv1.Click{At: at, Button: b, Count: 1}}
	case "double_click":
		point(true)
		req.Action = &agentv1.ActRequest_Click{Click: &agentv1.Click{At: at, Button: agentv1.MouseButton_MOUSE_BUTTON_LEFT, Count: 2}}
	case "move":
		point(true)
		req.Action = &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{To: at}}
	case "drag":
		if len(a.Path) < 2 || len(a.Path) > 1000 {
			v.Addf(field+".path", "must have 2..1000 points, got %d", len(a.Path))
		}
		var path []*agentv1.Point
		for i, p := range a.Path {
			path = append(path, s.scale.point(v, fmt.Sprintf("%s.path[%d]", field, i), []int{p.X, p.Y}))
		}
		req.Action = &agentv1.ActRequest_Drag{Drag: &agentv1.Drag{Path: path, Button: agentv1.MouseButton_MOUSE_BUTTON_LEFT}}
	case "keypress":
		if len(a.Keys) == 0 {
			v.Addf(field+".keys", "required: 1..8 key names")
		}
		req.Action = &agentv1.ActRequest_Key{Key: &agentv1.Key{Combo: openaiCombo(a.Keys)}}
	case "scroll":
		point(false)
		dx := wheelClicks(v, field+".scroll_x", a.ScrollX)
		dy := wheelClicks(v, field+".scroll_y", a.ScrollY)
		if dx == 0 && dy == 0 && v.Len() == n {
			v.Addf(field+".scroll_y", "scroll_x and scroll_y are both 0")
		}
		req.Action = &agentv1.ActRequest_Scroll{Scroll: &agentv1.Scroll{At: at, Dx: dx, Dy: dy}}
	case "type":
		if a.Text == nil {
			v.Addf(field+".text", "required for type")
		}
		req.Action = &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: deref(a.Text)}}
	case "wait":
		ms := 1000
		if a.MS != nil {
			ms = *a.MS
		}
		req.Action = &agentv1.ActRequest_Wait{Wait: &agentv1.Wait{DurationMs: int32(min(max(ms, -1), 60001))}}
	case "screenshot":
	case "":
		v.Addf(field+".type", "required: one of %s", strings.Join(openaiTypes, ", "))
	default:
		v.Addf(field+".type", "must be one of %s, got %q", strings.Join(openaiTypes, ", "), truncate(a.Type, 64))
	}
	if v.Len() != n {
		return nil
	}
	return req
}

// wheelClicks converts scroll pixels into wheel clicks (see PixelsPerWheelClick).
func wheelClicks(v *errdefs.Violations, field string, px *int) int32 {
	if px == nil || *px == 0 {
		return 0
	}
	p := *px
	if p < -50*PixelsPerWheelClick || p > 50*PixelsPerWheelClick {
		v.Addf(field, "must be -%d..%d pixels, got %d", 50*PixelsPerWheelClick, 50*PixelsPerWheelClick, p)
		return 0
	}
	n := (abs(p) + PixelsPerWheelClick/2) / PixelsPerWheelClick
	n = max(n, 1)
	if p < 0 {
		n = -n
	}
	return int32(n)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// openaiCombo joins OpenAI's keys into one combo.
func openaiCombo(keys []string) string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = openaiKey(k)
	}
	return strings.Join(names, "+")
}

// openaiKey is the combo part of one OpenAI key name. shared/keysym resolves the providers' names itself
// ("CTRL", "ENTER", "ArrowLeft", "PAGEDOWN", any case), so only two things are OpenAI's here: a single letter
// names the key, not the upper-case character ("CTRL"+"A" is ctrl+a, not ctrl+shift+a), and "+" is the
// combo separator, so the plus key is spelled out.
func openaiKey(k string) string {
	switch {
	case k == "+":
		return "plus"
	case len(k) == 1 && k[0] >= 'A' && k[0] <= 'Z':
		return strings.ToLower(k)
	}
	return k
}
