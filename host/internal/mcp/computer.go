package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
)

// anthropicActions are the actions of Anthropic's computer tool, exactly as computer_20250124 names them,
// plus zoom from computer_20251124.
var anthropicActions = []string{
	"key", "hold_key", "type", "cursor_position", "mouse_move", "left_mouse_down", "left_mouse_up",
	"left_click", "left_click_drag", "right_click", "middle_click", "double_click", "triple_click",
	"scroll", "wait", "screenshot", "zoom",
}

// computerArgs are the computer tool's arguments; pointers tell "absent" from zero.
type computerArgs struct {
	Action          string   `json:"action"`
	Coordinate      []int    `json:"coordinate"`
	StartCoordinate []int    `json:"start_coordinate"`
	Text            *string  `json:"text"`
	ScrollDirection string   `json:"scroll_direction"`
	ScrollAmount    *int     `json:"scroll_amount"`
	Duration        *float64 `json:"duration"`
	Region          []int    `json:"region"`
	Confirm         bool     `json:"confirm"`
}

func (s *Session) computerTool() tool {
	m := s.scale.Model
	coord := func(what string) map[string]any {
		return map[string]any{
			"type": "array", "minItems": 2, "maxItems": 2, "description": what + " [x, y] in display pixels",
			"prefixItems": []any{
				map[string]any{"type": "integer", "minimum": 0, "maximum": m.Width - 1},
				map[string]any{"type": "integer", "minimum": 0, "maximum": m.Height - 1},
			},
		}
	}
	schema := map[string]any{
		"type": "object", "additionalProperties": false, "required": []string{"action"},
		"properties": map[string]any{
			"action":           map[string]any{"type": "string", "enum": anthropicActions},
			"coordinate":       coord("where to act (mouse_move, left_click_drag's end, clicks, scroll; clicks default to the pointer)"),
			"start_coordinate": coord("left_click_drag's start"),
			"text": map[string]any{"type": "string", "maxLength": 65536, "description": "type: the text; key: xdotool key names " +
				"(\"ctrl+a\", \"Return\", several separated by spaces); hold_key: the key; clicks and scroll: modifier keys held (\"shift\", \"ctrl+shift\")"},
			"scroll_direction": map[string]any{"type": "string", "enum": []string{"up", "down", "left", "right"}},
			"scroll_amount":    map[string]any{"type": "integer", "minimum": 1, "maximum": 50, "description": "wheel clicks"},
			"duration":         map[string]any{"type": "number", "minimum": 0, "maximum": 60, "description": "seconds (wait, hold_key)"},
			"region": map[string]any{"type": "array", "minItems": 4, "maxItems": 4, "items": map[string]any{"type": "integer", "minimum": 0},
				"description": "zoom: [x0, y0, x1, y1] in display pixels (x1, y1 exclusive)"},
			"confirm": map[string]any{"type": "boolean", "description": "confirm an action the policy asked confirmation for (CONFIRMATION_REQUIRED)"},
		},
	}
	desc := fmt.Sprintf("Use the mouse and keyboard and take screenshots of a %dx%d display (Anthropic's computer tool actions, "+
		"computer_20250124 and computer_20251124). Coordinates are display pixels of the screenshots this tool returns.", m.Width, m.Height)
	return tool{
		tool: &mcp.Tool{Name: "computer", Description: desc, InputSchema: schema, Meta: mcp.Meta{
			"glovebox.dev/display_width_px": m.Width, "glovebox.dev/display_height_px": m.Height}},
		run: func(ctx context.Context, raw json.RawMessage) (*result, error) {
			var a computerArgs
			if err := decode(raw, &a); err != nil {
				return nil, err
			}
			return s.computer1(ctx, a)
		},
	}
}

// computer1 runs one computer action.
func (s *Session) computer1(ctx context.Context, a computerArgs) (*result, error) {
	var v errdefs.Violations
	// allowed lists the arguments each action takes; any other given argument is an error, so a model that
	// confuses actions learns it instead of having an argument silently ignored.
	allowed := map[string]string{
		"key": "text", "hold_key": "text duration", "type": "text", "cursor_position": "", "mouse_move": "coordinate",
		"left_mouse_down": "coordinate", "left_mouse_up": "coordinate", "left_click": "coordinate text",
		"left_click_drag": "start_coordinate coordinate text", "right_click": "coordinate text", "middle_click": "coordinate text",
		"double_click": "coordinate text", "triple_click": "coordinate text", "scroll": "coordinate scroll_direction scroll_amount text",
		"wait": "duration", "screenshot": "", "zoom": "region",
	}
	takes, ok := allowed[a.Action]
	if !ok {
		if a.Action == "" {
			return nil, invalid("action", "required: one of %s", strings.Join(anthropicActions, ", "))
		}
		return nil, invalid("action", "must be one of %s, got %q", strings.Join(anthropicActions, ", "), truncate(a.Action, 64))
	}
	given := map[string]bool{"coordinate": a.Coordinate != nil, "start_coordinate": a.StartCoordinate != nil, "text": a.Text != nil,
		"scroll_direction": a.ScrollDirection != "", "scroll_amount": a.ScrollAmount != nil, "duration": a.Duration != nil, "region": a.Region != nil}
	for _, name := range []string{"coordinate", "start_coordinate", "text", "scroll_direction", "scroll_amount", "duration", "region"} {
		if given[name] && !strings.Contains(" "+takes+" ", " "+name+" ") {
			v.Addf(name, "not an argument of %s", a.Action)
		}
	}
	need := func(name string) {
		if !given[name] {
			v.Addf(name, "required for %s", a.Action)
		}
	}
	var at *agentv1.Point
	if a.Coordinate != nil {
		at = s.scale.point(&v, "coordinate", a.Coordinate)
	}
	req := &agentv1.ActRequest{Confirm: a.Confirm}
	var steps []step
	button := map[string]agentv1.MouseButton{"right_click": agentv1.MouseButton_MOUSE_BUTTON_RIGHT, "middle_click": agentv1.MouseButton_MOUSE_BUTTON_MIDDLE}
	count := map[string]int32{"double_click": 2, "triple_click": 3}
	switch a.Action {
	case "screenshot", "zoom", "cursor_position":
		if a.Action == "zoom" {
			need("region")
			region := s.scale.rect(&v, "region", a.Region)
			if err := v.Err(); err != nil {
				return nil, err
			}
			return s.screenshot(ctx, region)
		}
		if err := v.Err(); err != nil {
			return nil, err
		}
		if a.Action == "screenshot" {
			return s.screenshot(ctx, nil)
		}
		resp, err := s.computer.GetCursorPosition(ctx, &brokerv1.GetCursorPositionRequest{SessionId: s.id, Request: &agentv1.GetCursorPositionRequest{}})
		if err != nil {
			return nil, err
		}
		xy := s.scale.ToModel(resp.GetResponse().GetPosition())
		return newResult().set("coordinate", xy).set("audit_seq", resp.GetAuditSeq()), nil
	case "key":
		need("text")
		if a.Text != nil {
			keys := strings.Fields(*a.Text)
			if len(keys) == 0 {
				v.Addf("text", "must name at least one key")
			}
			for i, k := range keys {
				steps = append(steps, step{req: &agentv1.ActRequest{Confirm: a.Confirm, Action: &agentv1.ActRequest_Key{Key: &agentv1.Key{Combo: k}}},
					arg: fmt.Sprintf("text key %d", i+1)})
			}
		}
	case "hold_key":
		need("text")
		need("duration")
		req.Action = &agentv1.ActRequest_HoldKey{HoldKey: &agentv1.HoldKey{Combo: deref(a.Text), DurationMs: seconds(&v, a.Duration)}}
	case "type":
		need("text")
		req.Action = &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: deref(a.Text)}}
	case "mouse_move":
		need("coordinate")
		req.Action = &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{To: at}}
	case "left_mouse_down":
		req.Action = &agentv1.ActRequest_MouseDown{MouseDown: &agentv1.MouseDown{At: at, Button: agentv1.MouseButton_MOUSE_BUTTON_LEFT}}
	case "left_mouse_up":
		req.Action = &agentv1.ActRequest_MouseUp{MouseUp: &agentv1.MouseUp{At: at, Button: agentv1.MouseButton_MOUSE_BUTTON_LEFT}}
	case "left_click", "right_click", "middle_click", "double_click", "triple_click":
		b := button[a.Action]
		if b == agentv1.MouseButton_MOUSE_BUTTON_UNSPECIFIED {
			b = agentv1.MouseButton_MOUSE_BUTTON_LEFT
		}
		req.Action = &agentv1.ActRequest_Click{Click: &agentv1.Click{At: at, Button: b, Count: max(1, count[a.Action]), Modifiers: modifiers(a.Text)}}
	case "left_click_drag":
		need("start_coordinate")
		need("coordinate")
		var from *agentv1.Point
		if a.StartCoordinate != nil {
			from = s.scale.point(&v, "start_coordinate", a.StartCoordinate)
		}
		req.Action = &agentv1.ActRequest_Drag{Drag: &agentv1.Drag{Path: []*agentv1.Point{from, at}, Button: agentv1.MouseButton_MOUSE_BUTTON_LEFT,
			Modifiers: modifiers(a.Text)}}
	case "scroll":
		need("scroll_direction")
		need("scroll_amount")
		n := int32(0)
		if a.ScrollAmount != nil {
			if *a.ScrollAmount < 1 || *a.ScrollAmount > 50 {
				v.Addf("scroll_amount", "must be 1..50 wheel clicks, got %d", *a.ScrollAmount)
			}
			n = int32(*a.ScrollAmount)
		}
		sc := &agentv1.Scroll{At: at, Modifiers: modifiers(a.Text)}
		switch a.ScrollDirection {
		case "up":
			sc.Dy = -n
		case "down":
			sc.Dy = n
		case "left":
			sc.Dx = -n
		case "right":
			sc.Dx = n
		case "":
		default:
			v.Addf("scroll_direction", "must be up, down, left or right, got %q", truncate(a.ScrollDirection, 16))
		}
		req.Action = &agentv1.ActRequest_Scroll{Scroll: sc}
	case "wait":
		need("duration")
		req.Action = &agentv1.ActRequest_Wait{Wait: &agentv1.Wait{DurationMs: seconds(&v, a.Duration)}}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if steps == nil {
		steps = []step{{req: req, arg: argOf(a.Action)}}
	}
	r, err := s.run(ctx, steps, a.Action != "wait")
	if err != nil {
		return nil, err
	}
	return r.set("action", a.Action), nil
}

// argOf names the argument whose value becomes the agent request of an action, for validation errors.
func argOf(action string) string {
	switch action {
	case "key", "hold_key", "type":
		return "text"
	case "wait":
		return "duration"
	}
	return "coordinate/text"
}

// seconds converts Anthropic's duration (seconds, 0..60) into milliseconds.
func seconds(v *errdefs.Violations, d *float64) int32 {
	if d == nil {
		return 0
	}
	if math.IsNaN(*d) || *d < 0 || *d > 60 {
		v.Addf("duration", "must be 0..60 seconds, got %v", *d)
		return 0
	}
	return int32(math.Round(*d * 1000))
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// truncate bounds a model-sent value quoted back in an error.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// splitCombo splits "ctrl+shift" or "ctrl shift" into names.
func splitCombo(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == '+' || r == ' ' })
}
