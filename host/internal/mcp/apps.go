package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
)

// obj is a JSON schema of an object with the given properties, none other allowed.
func obj(required []string, props map[string]any) map[string]any {
	if props == nil {
		props = map[string]any{} // "properties": null is not a schema (the TypeScript SDK refuses the tool list)
	}
	o := map[string]any{"type": "object", "additionalProperties": false, "properties": props}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

var (
	strS     = map[string]any{"type": "string"}
	boolS    = map[string]any{"type": "boolean"}
	refS     = map[string]any{"type": "string", "description": "an element ref (\"e12\") from the snapshot"}
	snapIDS  = map[string]any{"type": "string", "description": "the snapshot the ref is from (default: this session's newest)"}
	budgetS  = map[string]any{"type": "integer", "minimum": minBudgetBytes, "maximum": maxBudgetBytes, "description": "text budget in bytes (default 4096)"}
	tokensS  = map[string]any{"type": "integer", "minimum": minBudgetBytes / bytesPerToken, "maximum": maxBudgetBytes / bytesPerToken, "description": "text budget in tokens (~4 bytes each)"}
	contS    = map[string]any{"type": "string", "description": "continuation token from an earlier answer: the next page of that snapshot"}
	confirmS = map[string]any{"type": "boolean", "description": "confirm an action the policy asked confirmation for"}
)

// annotations say whether a tool only reads; none destroys anything or reaches beyond the guest.
func annotations(readOnly bool) *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{ReadOnlyHint: readOnly, DestructiveHint: &f, OpenWorldHint: &f}
}

// typed makes a tool whose arguments decode into A.
func typed[A any](name, desc string, readOnly bool, schema map[string]any, run func(ctx context.Context, a A) (*result, error)) tool {
	return tool{
		tool: &mcp.Tool{Name: name, Description: desc, InputSchema: schema, Annotations: annotations(readOnly)},
		run: func(ctx context.Context, raw json.RawMessage) (*result, error) {
			var a A
			if err := decode(raw, &a); err != nil {
				return nil, err
			}
			return run(ctx, a)
		},
	}
}

type appStateArgs struct {
	AppID           string `json:"app_id"`
	Name            string `json:"name"`
	WindowID        string `json:"window_id"`
	MaxBytes        *int   `json:"max_bytes"`
	MaxTokens       *int   `json:"max_tokens"`
	Continuation    string `json:"continuation"`
	InteractiveOnly bool   `json:"interactive_only"`
	IncludeHidden   bool   `json:"include_hidden"`
	NoScreenshot    bool   `json:"no_screenshot"`
}

func (s *Session) appTools() []tool {
	return []tool{
		typed("list_apps", "List the accessible applications on the desktop (app ids, names, windows).", true, obj(nil, nil),
			func(ctx context.Context, _ struct{}) (*result, error) {
				resp, err := s.computer.ListApps(ctx, &brokerv1.ListAppsRequest{SessionId: s.id, Request: &agentv1.ListAppsRequest{}})
				if err != nil {
					return nil, err
				}
				apps := resp.GetResponse().GetApps()
				r := newResult().set("count", len(apps)).set("audit_seq", resp.GetAuditSeq())
				return r.guest("apps", protoList(apps)), nil
			}),
		typed("get_app_state", "One call: an application's window (window_id, else its active one) as accessibility text with "+
			"refs (bounded by a text budget, with a continuation for the rest), its focused element and a screenshot. "+
			"Use the refs with click, set_value, select_text, scroll.", true,
			obj(nil, map[string]any{"app_id": map[string]any{"type": "string", "description": "app id (\"app:1234\") from list_apps"},
				"name":      map[string]any{"type": "string", "description": "app name (exact, case-insensitive) instead of app_id"},
				"window_id": map[string]any{"type": "string", "description": "window id from list_apps (default: the app's active window)"}, "max_bytes": budgetS, "max_tokens": tokensS, "continuation": contS,
				"interactive_only": boolS, "include_hidden": map[string]any{"type": "boolean", "description": "also elements not showing (default: showing only)"},
				"no_screenshot": boolS}),
			s.getAppState),
		typed("click", "Click an element by ref (accessibility or page snapshot), or a display point [x, y].", false,
			obj(nil, map[string]any{"ref": refS, "snapshot_id": snapIDS, "x": map[string]any{"type": "integer", "minimum": 0},
				"y": map[string]any{"type": "integer", "minimum": 0}, "confirm": confirmS}),
			s.click),
		typed("type_text", "Type text with the keyboard into the focused element (any Unicode).", false,
			obj([]string{"text"}, map[string]any{"text": map[string]any{"type": "string", "minLength": 1, "maxLength": 65536}, "confirm": confirmS}),
			func(ctx context.Context, a struct {
				Text    *string `json:"text"`
				Confirm bool    `json:"confirm"`
			}) (*result, error) {
				if a.Text == nil {
					return nil, invalid("text", "required")
				}
				return s.run(ctx, []step{{arg: "text", req: &agentv1.ActRequest{Confirm: a.Confirm, Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: *a.Text}}}}}, false)
			}),
		typed("press_key", "Press a key combination (X key names joined by +: \"ctrl+s\", \"Return\", \"Left\").", false,
			obj([]string{"key"}, map[string]any{"key": strS, "repeat": map[string]any{"type": "integer", "minimum": 1, "maximum": 100}}),
			func(ctx context.Context, a struct {
				Key    string `json:"key"`
				Repeat int32  `json:"repeat"`
			}) (*result, error) {
				if a.Key == "" {
					return nil, invalid("key", "required")
				}
				return s.run(ctx, []step{{arg: "key", req: &agentv1.ActRequest{Action: &agentv1.ActRequest_Key{Key: &agentv1.Key{Combo: a.Key, Repeat: a.Repeat}}}}}, false)
			}),
		typed("set_value", "Set an element's value by ref: text of an editable field, a number of a slider or spin button, "+
			"or a page field's value.", false,
			obj([]string{"ref"}, map[string]any{"ref": refS, "snapshot_id": snapIDS, "text": strS, "number": map[string]any{"type": "number"}, "confirm": confirmS}),
			s.setValue),
		typed("select_text", "Select text in an element by ref: the text itself (must occur once, optionally with prefix/suffix "+
			"around it) or offsets start..end.", false,
			obj([]string{"ref"}, map[string]any{"ref": refS, "snapshot_id": snapIDS, "text": strS, "prefix": strS, "suffix": strS,
				"start": map[string]any{"type": "integer", "minimum": 0}, "end": map[string]any{"type": "integer", "minimum": 0}}),
			s.selectText),
		typed("scroll", "Scroll an element into view by ref, or turn the wheel at a display point (dx, dy in wheel clicks, -50..50).", false,
			obj(nil, map[string]any{"ref": refS, "snapshot_id": snapIDS, "x": map[string]any{"type": "integer", "minimum": 0},
				"y": map[string]any{"type": "integer", "minimum": 0}, "dx": map[string]any{"type": "integer", "minimum": -50, "maximum": 50},
				"dy": map[string]any{"type": "integer", "minimum": -50, "maximum": 50}}),
			s.scroll),
		typed("drag", "Drag with the left button along display points [[x, y], ...] (2..1000).", false,
			obj([]string{"path"}, map[string]any{"path": map[string]any{"type": "array", "minItems": 2, "maxItems": 1000,
				"items": map[string]any{"type": "array", "minItems": 2, "maxItems": 2, "items": map[string]any{"type": "integer", "minimum": 0}}}}),
			func(ctx context.Context, a struct {
				Path [][]int `json:"path"`
			}) (*result, error) {
				var v errdefs.Violations
				if len(a.Path) < 2 || len(a.Path) > 1000 {
					v.Addf("path", "must have 2..1000 points, got %d", len(a.Path))
				}
				var path []*agentv1.Point
				for i, p := range a.Path {
					path = append(path, s.scale.point(&v, fmt.Sprintf("path[%d]", i), p))
				}
				if err := v.Err(); err != nil {
					return nil, err
				}
				return s.run(ctx, []step{{arg: "path", req: &agentv1.ActRequest{Action: &agentv1.ActRequest_Drag{Drag: &agentv1.Drag{Path: path,
					Button: agentv1.MouseButton_MOUSE_BUTTON_LEFT}}}}}, false)
			}),
	}
}

type refArgs struct {
	Ref        string   `json:"ref"`
	SnapshotID string   `json:"snapshot_id"`
	X          *int     `json:"x"`
	Y          *int     `json:"y"`
	DX         int32    `json:"dx"`
	DY         int32    `json:"dy"`
	Text       *string  `json:"text"`
	Number     *float64 `json:"number"`
	Prefix     string   `json:"prefix"`
	Suffix     string   `json:"suffix"`
	Start      *int32   `json:"start"`
	End        *int32   `json:"end"`
	Confirm    bool     `json:"confirm"`
}

// element resolves a ref argument against the session's snapshots: the element ref and its target.
func (s *Session) element(a refArgs) (*snapshotMemo, *agentv1.ElementRef, error) {
	snap, err := s.snaps.find("ref", a.SnapshotID)
	if err != nil {
		return nil, nil, err
	}
	return snap, &agentv1.ElementRef{SnapshotId: snap.id, Ref: a.Ref}, nil
}

// appTarget is the explicit target of an element action on snap.
func appTarget(snap *snapshotMemo) *agentv1.Target {
	return &agentv1.Target{Kind: &agentv1.Target_App{App: &agentv1.AppTarget{AppId: snap.app.GetAppId()}}}
}

// xy checks an optional display point given as x and y.
func (s *Session) xy(v *errdefs.Violations, a refArgs, required bool) *agentv1.Point {
	switch {
	case a.X == nil && a.Y == nil:
		if required {
			v.Addf("x", "x and y (or ref) are required")
		}
		return nil
	case a.X == nil || a.Y == nil:
		v.Addf("x", "give both x and y")
		return nil
	}
	return s.scale.point(v, "[x,y]", []int{*a.X, *a.Y})
}

func (s *Session) click(ctx context.Context, a refArgs) (*result, error) {
	var v errdefs.Violations
	if a.Ref != "" {
		if a.X != nil || a.Y != nil {
			return nil, invalid("ref", "give ref or x and y, not both")
		}
		snap, el, err := s.element(a)
		if err != nil {
			return nil, err
		}
		req := &agentv1.ActRequest{Confirm: a.Confirm}
		if snap.tab != nil {
			req.Action = &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: snap.tab, Locator: &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: el}}}}
		} else {
			req.Target = appTarget(snap)
			req.Action = &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{Element: el}}
		}
		return s.run(ctx, []step{{arg: "ref", req: req}}, false)
	}
	at := s.xy(&v, a, true)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return s.run(ctx, []step{{arg: "[x,y]", req: &agentv1.ActRequest{Confirm: a.Confirm, Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{At: at,
		Button: agentv1.MouseButton_MOUSE_BUTTON_LEFT, Count: 1}}}}}, false)
}

func (s *Session) setValue(ctx context.Context, a refArgs) (*result, error) {
	if a.Ref == "" {
		return nil, invalid("ref", "required")
	}
	if (a.Text == nil) == (a.Number == nil) {
		return nil, invalid("text", "give text or number (exactly one)")
	}
	snap, el, err := s.element(a)
	if err != nil {
		return nil, err
	}
	req := &agentv1.ActRequest{Confirm: a.Confirm}
	switch {
	case snap.tab != nil && a.Text != nil:
		req.Action = &agentv1.ActRequest_SetValue{SetValue: &agentv1.SetValue{Tab: snap.tab, Locator: &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: el}}, Value: *a.Text}}
	case snap.tab != nil:
		return nil, invalid("number", "a page element takes text")
	case a.Text != nil:
		req.Target = appTarget(snap)
		req.Action = &agentv1.ActRequest_ElementSetValue{ElementSetValue: &agentv1.ElementSetValue{Element: el, Value: &agentv1.ElementSetValue_Text{Text: *a.Text}}}
	default:
		req.Target = appTarget(snap)
		req.Action = &agentv1.ActRequest_ElementSetValue{ElementSetValue: &agentv1.ElementSetValue{Element: el, Value: &agentv1.ElementSetValue_Number{Number: *a.Number}}}
	}
	return s.run(ctx, []step{{arg: "ref/text", req: req}}, false)
}

func (s *Session) selectText(ctx context.Context, a refArgs) (*result, error) {
	if a.Ref == "" {
		return nil, invalid("ref", "required")
	}
	snap, el, err := s.element(a)
	if err != nil {
		return nil, err
	}
	if snap.tab != nil {
		return nil, fmt.Errorf("select_text on a page element: use browser tools: %w", errdefs.ErrUnsupportedAction)
	}
	sel := &agentv1.ElementSelectText{Element: el}
	switch {
	case a.Text != nil && (a.Start != nil || a.End != nil):
		return nil, invalid("text", "give text or start and end, not both")
	case a.Text != nil:
		sel.Range = &agentv1.ElementSelectText_Match{Match: &agentv1.TextMatch{Prefix: a.Prefix, Text: *a.Text, Suffix: a.Suffix}}
	case a.Start != nil && a.End != nil:
		sel.Range = &agentv1.ElementSelectText_Offsets{Offsets: &agentv1.TextRange{Start: *a.Start, End: *a.End}}
	default:
		return nil, invalid("text", "required (or start and end)")
	}
	req := &agentv1.ActRequest{Target: appTarget(snap), Action: &agentv1.ActRequest_ElementSelectText{ElementSelectText: sel}}
	return s.run(ctx, []step{{arg: "ref/text", req: req}}, false)
}

func (s *Session) scroll(ctx context.Context, a refArgs) (*result, error) {
	if a.Ref != "" {
		snap, el, err := s.element(a)
		if err != nil {
			return nil, err
		}
		if snap.tab != nil {
			return nil, fmt.Errorf("scroll by ref on a page element: use browser tools: %w", errdefs.ErrUnsupportedAction)
		}
		return s.run(ctx, []step{{arg: "ref", req: &agentv1.ActRequest{Target: appTarget(snap),
			Action: &agentv1.ActRequest_ElementScrollIntoView{ElementScrollIntoView: &agentv1.ElementScrollIntoView{Element: el}}}}}, false)
	}
	var v errdefs.Violations
	at := s.xy(&v, a, false)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return s.run(ctx, []step{{arg: "dx/dy", req: &agentv1.ActRequest{Action: &agentv1.ActRequest_Scroll{Scroll: &agentv1.Scroll{At: at, Dx: a.DX, Dy: a.DY}}}}}, false)
}
