package validate

import (
	"fmt"
	"unicode/utf8"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// Act bounds; the proto comments of ActRequest state the same numbers.
const (
	// MaxQuietMs bounds observe.quiet_ms: the quiet time that counts as settled.
	MaxQuietMs = 5000
	// MaxSettleMs bounds observe.timeout_ms: how long to wait for quiet.
	MaxSettleMs = 30000
	// MaxClickCount bounds click.count (0 means 1).
	MaxClickCount = 3
	// MinDragPoints and MaxDragPoints bound the points of drag.path.
	MinDragPoints = 2
	MaxDragPoints = 1000
	// MaxStepDelayMs bounds drag.step_delay_ms.
	MaxStepDelayMs = 1000
	// MaxScroll bounds scroll.dx and scroll.dy in wheel clicks, each way.
	MaxScroll = 50
	// MaxKeyRepeat bounds key.repeat (0 means 1).
	MaxKeyRepeat = 100
	// MaxHoldMs bounds hold_key.duration_ms.
	MaxHoldMs = 60000
	// MaxTypeDelayMs bounds type.delay_ms.
	MaxTypeDelayMs = 1000
	// MaxWaitMs bounds wait.duration_ms.
	MaxWaitMs = 60000
	// MaxDelayTotalMs bounds the pauses one request may ask for (type and page_type: delay_ms per character;
	// drag: step_delay_ms per point), so an action cannot hold the mutation queue for longer than a wait may last.
	MaxDelayTotalMs = 60000
	// MaxWatchMs bounds watch_ms (-1 turns the watch off, 0 means the agent's default).
	MaxWatchMs = 5000
)

// ActRequest checks every field of r and returns a *errdefs.BadRequest naming each bad one, or nil. Points
// are checked to be non-negative; that they lie inside the screen is the agent's check.
func ActRequest(r *agentv1.ActRequest) error {
	var v errdefs.Violations
	id(&v, "owner", r.GetOwner(), true)
	id(&v, "request_id", r.GetRequestId(), false)
	target(&v, "target", r.GetTarget())
	between(&v, "watch_ms", r.GetWatchMs(), -1, MaxWatchMs)
	if o := r.GetObserve(); o != nil {
		between(&v, "observe.quiet_ms", o.GetQuietMs(), 0, MaxQuietMs)
		between(&v, "observe.timeout_ms", o.GetTimeoutMs(), 0, MaxSettleMs)
		ScreenshotOptions(&v, "observe.screenshot", o.GetScreenshot())
	}
	action(&v, r)
	return v.Err()
}

func target(v *errdefs.Violations, field string, t *agentv1.Target) {
	switch k := t.GetKind().(type) {
	case nil:
	case *agentv1.Target_Display:
		if n := len(k.Display.GetDisplayId()); n > MaxDisplayIDBytes {
			v.Addf(field+".display.display_id", "must be at most %d bytes, got %d", MaxDisplayIDBytes, n)
		}
	case *agentv1.Target_Window:
		if k.Window.GetWindowId() == 0 {
			v.Addf(field+".window.window_id", "required")
		}
	case *agentv1.Target_Tab:
		tabTarget(v, field+".tab", k.Tab)
	case *agentv1.Target_App:
		appTarget(v, field+".app", k.App)
	default:
		v.Addf(field, "unknown target kind %T", k)
	}
	id(v, field+".snapshot_id", t.GetSnapshotId(), false)
}

func action(v *errdefs.Violations, r *agentv1.ActRequest) {
	buttons := agentv1.MouseButton_name
	switch a := r.GetAction().(type) {
	case nil:
		if len(r.ProtoReflect().GetUnknown()) > 0 {
			v.Addf("action", "required (the request has fields this agent does not know: an action of a newer protocol?)")
		} else {
			v.Addf("action", "required")
		}
	case *agentv1.ActRequest_MouseMove:
		point(v, "action.mouse_move.to", a.MouseMove.GetTo(), true)
	case *agentv1.ActRequest_Click:
		c := a.Click
		point(v, "action.click.at", c.GetAt(), false)
		known(v, "action.click.button", int32(c.GetButton()), buttons)
		if n := c.GetCount(); n < 0 || n > MaxClickCount {
			v.Addf("action.click.count", "must be 1..%d, got %d", MaxClickCount, n)
		}
		modifiers(v, "action.click.modifiers", c.GetModifiers())
	case *agentv1.ActRequest_MouseDown:
		point(v, "action.mouse_down.at", a.MouseDown.GetAt(), false)
		known(v, "action.mouse_down.button", int32(a.MouseDown.GetButton()), buttons)
	case *agentv1.ActRequest_MouseUp:
		point(v, "action.mouse_up.at", a.MouseUp.GetAt(), false)
		known(v, "action.mouse_up.button", int32(a.MouseUp.GetButton()), buttons)
	case *agentv1.ActRequest_Drag:
		d := a.Drag
		if n := len(d.GetPath()); n < MinDragPoints || n > MaxDragPoints {
			v.Addf("action.drag.path", "must have %d..%d points, got %d", MinDragPoints, MaxDragPoints, n)
		}
		bad := 0
		for i, p := range d.GetPath() {
			if p.GetX() < 0 || p.GetY() < 0 || p == nil {
				bad++
				if bad <= MaxListViolations {
					point(v, fmt.Sprintf("action.drag.path[%d]", i), p, true)
				}
			}
		}
		if bad > MaxListViolations {
			v.Addf("action.drag.path", "%d more bad points not listed", bad-MaxListViolations)
		}
		known(v, "action.drag.button", int32(d.GetButton()), buttons)
		between(v, "action.drag.step_delay_ms", d.GetStepDelayMs(), 0, MaxStepDelayMs)
		delayTotal(v, "action.drag.step_delay_ms", d.GetStepDelayMs(), len(d.GetPath()), "points")
		modifiers(v, "action.drag.modifiers", d.GetModifiers())
	case *agentv1.ActRequest_Scroll:
		s := a.Scroll
		point(v, "action.scroll.at", s.GetAt(), false)
		between(v, "action.scroll.dx", s.GetDx(), -MaxScroll, MaxScroll)
		between(v, "action.scroll.dy", s.GetDy(), -MaxScroll, MaxScroll)
		if s.GetDx() == 0 && s.GetDy() == 0 {
			v.Addf("action.scroll", "dx and dy must not both be 0")
		}
		modifiers(v, "action.scroll.modifiers", s.GetModifiers())
	case *agentv1.ActRequest_Key:
		combo(v, "action.key.combo", a.Key.GetCombo())
		if n := a.Key.GetRepeat(); n < 0 || n > MaxKeyRepeat {
			v.Addf("action.key.repeat", "must be 1..%d, got %d", MaxKeyRepeat, n)
		}
	case *agentv1.ActRequest_KeyDown:
		combo(v, "action.key_down.combo", a.KeyDown.GetCombo())
	case *agentv1.ActRequest_KeyUp:
		combo(v, "action.key_up.combo", a.KeyUp.GetCombo())
	case *agentv1.ActRequest_HoldKey:
		combo(v, "action.hold_key.combo", a.HoldKey.GetCombo())
		between(v, "action.hold_key.duration_ms", a.HoldKey.GetDurationMs(), 0, MaxHoldMs)
	case *agentv1.ActRequest_Type:
		t := a.Type.GetText()
		switch {
		case t == "":
			v.Addf("action.type.text", "required")
		case len(t) > MaxTypeBytes:
			v.Addf("action.type.text", "must be at most %d bytes, got %d", MaxTypeBytes, len(t))
		default:
			text(v, "action.type.text", t)
		}
		between(v, "action.type.delay_ms", a.Type.GetDelayMs(), 0, MaxTypeDelayMs)
		delayTotal(v, "action.type.delay_ms", a.Type.GetDelayMs(), utf8.RuneCountInString(t), "characters")
	case *agentv1.ActRequest_Wait:
		between(v, "action.wait.duration_ms", a.Wait.GetDurationMs(), 0, MaxWaitMs)
	case *agentv1.ActRequest_ReleaseAll:
	default:
		if !elementAction(v, r) && !pageAction(v, r) {
			v.Addf("action", "unknown action %T", a)
		}
	}
}

// point checks a point: present when required, x and y non-negative.
func point(v *errdefs.Violations, field string, p *agentv1.Point, required bool) {
	if p == nil {
		if required {
			v.Addf(field, "required")
		}
		return
	}
	if p.GetX() < 0 {
		v.Addf(field+".x", "must be >= 0, got %d", p.GetX())
	}
	if p.GetY() < 0 {
		v.Addf(field+".y", "must be >= 0, got %d", p.GetY())
	}
}

// delayTotal checks that a per-step pause times the number of steps stays within MaxDelayTotalMs. Only a pause
// that is itself in bounds is checked (a bad one is already named).
func delayTotal(v *errdefs.Violations, field string, perStep int32, steps int, unit string) {
	if perStep <= 0 || perStep > MaxStepDelayMs {
		return
	}
	if total := int64(perStep) * int64(steps); total > MaxDelayTotalMs {
		v.Addf(field, "%d ms x %d %s is %d ms of pauses, at most %d ms per request", perStep, steps, unit, total, MaxDelayTotalMs)
	}
}
