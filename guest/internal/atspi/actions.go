package atspi

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/godbus/dbus/v5"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/actions"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// clickActions are the action names element_click runs instead of a pointer click (element_actions.proto).
var clickActions = []string{"click", "press", "activate", "jump"}

// scrollAnywhere is ATSPI_SCROLL_ANYWHERE: scroll as little as needed to show the element.
const scrollAnywhere = uint32(6)

// live is an element as it is right before an action.
type live struct {
	role    string
	name    string
	states  [2]uint32
	actions []string
	bounds  *agentv1.Rect
}

// Act performs a validated element action: it resolves the ref (its snapshot must be the newest for its
// target), checks the element again (exists, same role and name, still showing), acts, and fills resp.
func (b *Backend) Act(ctx context.Context, r *agentv1.ActRequest, resp *agentv1.ActResponse) error {
	er, field := actions.ElementOf(r)
	if er == nil {
		return fmt.Errorf("not an element action: %w", errdefs.ErrUnsupportedAction)
	}
	snap, el, err := b.store.resolve(er.GetSnapshotId(), er.GetRef())
	if err != nil {
		return err
	}
	if t := r.GetTarget().GetApp(); t != nil {
		if t.GetAppId() != snap.app.id() || t.GetWindowId() != "" && t.GetWindowId() != snap.windowID {
			return errgrpc.WithCause(fmt.Errorf("ref %s of snapshot %s belongs to %s window %q, not to the target %s window %q: %w",
				er.GetRef(), snap.id, snap.app.id(), snap.windowID, t.GetAppId(), t.GetWindowId(), errdefs.ErrStaleRef), errgrpc.CauseOtherTarget)
		}
	}
	if resp.Target == nil {
		resp.Target = &agentv1.FrozenTarget{}
	}
	resp.Target.AppId, resp.Target.SnapshotId, resp.Target.ElementRef = snap.app.id(), snap.id, er.GetRef()

	// Focus needs the element on screen; a click needs it only for the pointer fallback (an element's own
	// action works on a menu item of a closed menu); scrolling into view is for elements not showing.
	_, focusing := r.GetAction().(*agentv1.ActRequest_ElementFocus)
	lv, err := b.check(ctx, er.GetRef(), el, focusing)
	if err != nil {
		return err
	}
	switch a := r.GetAction().(type) {
	case *agentv1.ActRequest_ElementClick:
		return b.click(ctx, el, lv, resp)
	case *agentv1.ActRequest_ElementFocus:
		return b.focus(ctx, er.GetRef(), el, resp)
	case *agentv1.ActRequest_ElementSetValue:
		return b.setValue(ctx, er.GetRef(), el, a.ElementSetValue, resp)
	case *agentv1.ActRequest_ElementSelectText:
		return b.selectText(ctx, er.GetRef(), el, a.ElementSelectText, resp)
	case *agentv1.ActRequest_ElementDoAction:
		name := a.ElementDoAction.GetAction()
		if !slices.Contains(el.actions, name) {
			// The action names are the application's: they travel as untrusted metadata, never in the message.
			return errgrpc.WithMetadata(fmt.Errorf("%s.action: %s (%s) does not offer it; its %d actions are in metadata %s: %w",
				field, er.GetRef(), el.role, len(el.actions), errgrpc.Untrusted("available_actions"), errdefs.ErrUnsupportedAction),
				map[string]string{errgrpc.MetaField: field + ".action", errgrpc.Untrusted("available_actions"): untrustedList(el.actions)})
		}
		i := slices.Index(lv.actions, name)
		if i < 0 {
			return errgrpc.WithCause(fmt.Errorf("%s no longer offers the action: take a new snapshot: %w", er.GetRef(), errdefs.ErrStaleRef),
				errgrpc.CauseActionsChanged, errgrpc.Untrusted("available_actions"), untrustedList(lv.actions))
		}
		return b.doAction(ctx, el, i, name, resp)
	case *agentv1.ActRequest_ElementScrollIntoView:
		return b.scrollIntoView(ctx, er.GetRef(), el, lv, resp)
	}
	return fmt.Errorf("%T: %w", r.GetAction(), errdefs.ErrUnsupportedAction)
}

// check reads the element again (pipelined) and refuses it with STALE_REF unless it still exists with the
// same role and name and, when showing is set, still shows.
func (b *Backend) check(ctx context.Context, ref string, el *element, showing bool) (*live, error) {
	lv := &live{}
	errs := make([]error, 5)
	p := b.newPipe(ctx)
	o := el.ref
	p.do(o.Name, o.Path, ifAccessible+".GetRole", nil, func(c *dbus.Call) {
		var r uint32
		if errs[0] = c.Store(&r); errs[0] == nil {
			lv.role = roleName(r)
		}
	})
	p.do(o.Name, o.Path, ifProperties+".Get", []any{ifAccessible, "Name"}, func(c *dbus.Call) {
		var v dbus.Variant
		if errs[1] = c.Store(&v); errs[1] == nil {
			lv.name, _ = v.Value().(string)
		}
	})
	p.do(o.Name, o.Path, ifAccessible+".GetState", nil, func(c *dbus.Call) {
		var s []uint32
		if errs[2] = c.Store(&s); errs[2] == nil {
			copy(lv.states[:], s)
		}
	})
	if el.ifaces&hasAction != 0 {
		p.do(o.Name, o.Path, ifAction+".GetActions", nil, func(c *dbus.Call) {
			var acts []struct{ Name, Desc, Key string }
			if errs[3] = c.Store(&acts); errs[3] == nil {
				for _, a := range acts {
					lv.actions = append(lv.actions, a.Name)
				}
			}
		})
	}
	if el.ifaces&hasComponent != 0 {
		p.do(o.Name, o.Path, ifComponent+".GetExtents", []any{coordScreen}, func(c *dbus.Call) {
			var r struct{ X, Y, W, H int32 }
			if errs[4] = c.Store(&r); errs[4] == nil {
				lv.bounds = rect(r.X, r.Y, r.W, r.H)
			}
		})
	}
	p.wait()
	for _, err := range errs {
		if err != nil {
			return nil, classify(ref, err)
		}
	}
	switch {
	case hasState(lv.states, stateDefunct):
		return nil, errgrpc.WithCause(fmt.Errorf("%s no longer exists: take a new snapshot: %w", ref, errdefs.ErrStaleRef), errgrpc.CauseGone)
	case lv.role != el.role:
		return nil, errgrpc.WithCause(fmt.Errorf("%s changed from %s to %s: take a new snapshot: %w", ref, el.role, lv.role, errdefs.ErrStaleRef), errgrpc.CauseRoleChanged)
	case lv.name != el.name:
		// The names are the application's text: metadata marked untrusted, not the message.
		return nil, errgrpc.WithCause(fmt.Errorf("%s (%s) changed its name: take a new snapshot: %w", ref, el.role, errdefs.ErrStaleRef), errgrpc.CauseNameChanged,
			errgrpc.Untrusted("name_before"), errgrpc.UntrustedValue(el.name), errgrpc.Untrusted("name_now"), errgrpc.UntrustedValue(lv.name))
	case showing && !hasState(lv.states, stateShowing):
		return nil, errgrpc.WithCause(fmt.Errorf("%s (%s) is no longer showing: take a new snapshot: %w", ref, el.role, errdefs.ErrStaleRef), errgrpc.CauseNotShowing)
	}
	return lv, nil
}

// click runs the element's click-like action, or clicks the pointer at its center.
func (b *Backend) click(ctx context.Context, el *element, lv *live, resp *agentv1.ActResponse) error {
	// Toolkits spell them differently (GTK 3 "Click", Chromium "click"), so compare without case.
	for _, name := range clickActions {
		for i, a := range lv.actions {
			if strings.EqualFold(a, name) {
				resp.UsedElementAction = true
				return b.doAction(ctx, el, i, a, resp)
			}
		}
	}
	r := lv.bounds
	if !hasState(lv.states, stateShowing) {
		return fmt.Errorf("%s is not showing and has no click-like action: take a new snapshot: %w", el.role, errdefs.ErrStaleRef)
	}
	if r == nil || r.Width <= 0 || r.Height <= 0 {
		return fmt.Errorf("%s has no click-like action and no on-screen bounds: %w", el.role, errdefs.ErrUnsupportedAction)
	}
	if b.opts.Click == nil {
		return fmt.Errorf("%s has no click-like action and there is no input backend for a pointer click: %w", el.role, errdefs.ErrCapabilityUnavailable)
	}
	x, y := r.X+r.Width/2, r.Y+r.Height/2
	if err := b.opts.Click(ctx, x, y); err != nil {
		return err
	}
	resp.Pointer = &agentv1.Point{X: x, Y: y}
	resp.Effect = agentv1.Effect_EFFECT_DONE
	return nil
}

// doAction runs action i (named name) of el.
func (b *Backend) doAction(ctx context.Context, el *element, i int, name string, resp *agentv1.ActResponse) error {
	var ok bool
	if err := b.call(ctx, el.ref.Name, el.ref.Path, ifAction+".DoAction", int32(i)).Store(&ok); err != nil {
		return classify("element_do_action", err)
	}
	if !ok {
		return errgrpc.WithMetadata(fmt.Errorf("the application refused the action: %w", errdefs.ErrUnsupportedAction),
			map[string]string{errgrpc.Untrusted("action"): errgrpc.UntrustedValue(name)})
	}
	resp.Effect = agentv1.Effect_EFFECT_DONE
	return nil
}

// focus gives el the keyboard focus and reads the focused state back.
func (b *Backend) focus(ctx context.Context, ref string, el *element, resp *agentv1.ActResponse) error {
	if el.ifaces&hasComponent == 0 {
		return fmt.Errorf("%s (%s) has no Component interface: it cannot take the focus: %w", ref, el.role, errdefs.ErrUnsupportedAction)
	}
	var ok bool
	if err := b.call(ctx, el.ref.Name, el.ref.Path, ifComponent+".GrabFocus").Store(&ok); err != nil {
		return classify(ref, err)
	}
	if !ok {
		return fmt.Errorf("%s (%s): the application refused the focus: %w", ref, el.role, errdefs.ErrUnsupportedAction)
	}
	resp.Effect = agentv1.Effect_EFFECT_DONE
	var s []uint32
	if b.call(ctx, el.ref.Name, el.ref.Path, ifAccessible+".GetState").Store(&s) == nil && len(s) == 2 &&
		hasState([2]uint32{s[0], s[1]}, stateFocused) {
		resp.Effect = agentv1.Effect_EFFECT_VERIFIED
	}
	return nil
}

// setValue sets el's text (EditableText) or number (Value) and reads it back.
func (b *Backend) setValue(ctx context.Context, ref string, el *element, a *agentv1.ElementSetValue, resp *agentv1.ActResponse) error {
	o := el.ref
	switch v := a.GetValue().(type) {
	case *agentv1.ElementSetValue_Text:
		if el.ifaces&hasEditable == 0 {
			return fmt.Errorf("%s (%s) has no EditableText interface: its text cannot be set: %w", ref, el.role, errdefs.ErrUnsupportedAction)
		}
		var ok bool
		if err := b.call(ctx, o.Name, o.Path, ifEditable+".SetTextContents", v.Text).Store(&ok); err != nil {
			return classify(ref, err)
		}
		if !ok {
			return fmt.Errorf("%s (%s): the application refused the text (read-only?): %w", ref, el.role, errdefs.ErrUnsupportedAction)
		}
		resp.Effect = agentv1.Effect_EFFECT_DONE
		var got string
		if b.call(ctx, o.Name, o.Path, ifText+".GetText", int32(0), int32(-1)).Store(&got) == nil {
			resp.Value = got
			if got == v.Text {
				resp.Effect = agentv1.Effect_EFFECT_VERIFIED
			}
		}
		return nil
	case *agentv1.ElementSetValue_Number:
		if el.ifaces&hasValue == 0 {
			return fmt.Errorf("%s (%s) has no Value interface: it takes no number: %w", ref, el.role, errdefs.ErrUnsupportedAction)
		}
		rng, err := b.valueRange(ctx, o)
		if err != nil {
			return classify(ref, err)
		}
		if n := v.Number; n < rng.Minimum || n > rng.Maximum || math.IsNaN(n) {
			var vs errdefs.Violations
			vs.Addf("action.element_set_value.number", "must be within %s's range %g..%g, got %g", ref, rng.Minimum, rng.Maximum, n)
			return vs.Err()
		}
		if err := b.call(ctx, o.Name, o.Path, ifProperties+".Set", ifValue, "CurrentValue", dbus.MakeVariant(v.Number)).Err; err != nil {
			return classify(ref, err)
		}
		resp.Effect = agentv1.Effect_EFFECT_DONE
		var cur dbus.Variant
		if b.call(ctx, o.Name, o.Path, ifProperties+".Get", ifValue, "CurrentValue").Store(&cur) == nil {
			if f, ok := cur.Value().(float64); ok {
				resp.Value = strconv.FormatFloat(f, 'g', -1, 64)
				if f == v.Number {
					resp.Effect = agentv1.Effect_EFFECT_VERIFIED
				}
			}
		}
		return nil
	}
	return fmt.Errorf("element_set_value without a value: %w", errdefs.ErrInvalidArgument)
}

// scrollIntoView asks the element's ancestors to scroll it into view (Component.ScrollTo).
func (b *Backend) scrollIntoView(ctx context.Context, ref string, el *element, lv *live, resp *agentv1.ActResponse) error {
	if el.ifaces&hasComponent == 0 {
		return fmt.Errorf("%s (%s) has no Component interface: %w", ref, el.role, errdefs.ErrUnsupportedAction)
	}
	var ok bool
	if err := b.call(ctx, el.ref.Name, el.ref.Path, ifComponent+".ScrollTo", scrollAnywhere).Store(&ok); err != nil {
		return classify(ref, err)
	}
	switch {
	case ok:
		resp.Effect = agentv1.Effect_EFFECT_DONE
	case hasState(lv.states, stateShowing):
		// The toolkit does not scroll (GTK 3 never does) but the element already shows: nothing to do.
		resp.Effect = agentv1.Effect_EFFECT_DONE
	default:
		return fmt.Errorf("%s (%s): the application does not scroll its elements into view (Component.ScrollTo): %w", ref, el.role, errdefs.ErrUnsupportedAction)
	}
	return nil
}

// untrustedList is a list of guest strings as one untrusted metadata value: a JSON array, bounded.
func untrustedList(items []string) string {
	b, _ := json.Marshal(items)
	return errgrpc.UntrustedValue(string(b))
}
