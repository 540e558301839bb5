package validate

import (
	"fmt"
	"strconv"
	"strings"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// Accessibility bounds; accessibility.proto and element_actions.proto state the same numbers.
const (
	// MaxAppNameBytes bounds GetAppRequest.name.
	MaxAppNameBytes = 256
	// MaxLaunchArgs and MaxLaunchArgBytes bound GetAppRequest.args.
	MaxLaunchArgs     = 32
	MaxLaunchArgBytes = 4096
	// MaxLaunchTimeoutMs bounds GetAppRequest.launch_timeout_ms.
	MaxLaunchTimeoutMs = 60000
	// MaxWindowIDBytes bounds an AppWindow.window_id (an AT-SPI object path).
	MaxWindowIDBytes = 1024
	// MaxElementTextBytes bounds element_set_value.text.
	MaxElementTextBytes = 65536
	// MaxElementActionBytes bounds element_do_action.action.
	MaxElementActionBytes = 128
	// MaxElementNumber bounds element_set_value.number: any finite value an AT-SPI Value can hold is far
	// inside it; the element's own range is checked by the agent.
	MaxElementNumber = 1e300
)

// AppID checks an app_id ("app:<pid>", pid a positive 32-bit number) under field.
func AppID(v *errdefs.Violations, field, s string, required bool) {
	if s == "" {
		if required {
			v.Addf(field, "required")
		}
		return
	}
	digits, ok := strings.CutPrefix(s, "app:")
	n, err := strconv.ParseInt(digits, 10, 32)
	if !ok || err != nil || n <= 0 || digits != strconv.FormatInt(n, 10) {
		v.Addf(field, "must be app:<pid>, got %s", quoted(s))
	}
}

// windowID checks an AppWindow.window_id: an AT-SPI object path.
func windowID(v *errdefs.Violations, field, s string, required bool) {
	switch {
	case s == "":
		if required {
			v.Addf(field, "required")
		}
	case len(s) > MaxWindowIDBytes:
		v.Addf(field, "must be at most %d bytes, got %d", MaxWindowIDBytes, len(s))
	case !objectPath(s):
		v.Addf(field, "must be a D-Bus object path (/a/b_1), got %s", quoted(s))
	}
}

// objectPath reports whether s is a D-Bus object path.
func objectPath(s string) bool {
	if s == "/" {
		return true
	}
	if !strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") {
		return false
	}
	for _, part := range strings.Split(s[1:], "/") {
		if part == "" {
			return false
		}
		for i := 0; i < len(part); i++ {
			c := part[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
				return false
			}
		}
	}
	return true
}

// appTarget checks an app target.
func appTarget(v *errdefs.Violations, field string, t *agentv1.AppTarget) {
	AppID(v, field+".app_id", t.GetAppId(), true)
	windowID(v, field+".window_id", t.GetWindowId(), false)
}

// elementAction checks an accessibility element action (element_*) and reports whether r holds one. An
// element action takes an app target or none; a target snapshot_id must be the element's.
func elementAction(v *errdefs.Violations, r *agentv1.ActRequest) bool {
	const p = "action."
	var ref *agentv1.ElementRef
	switch a := r.GetAction().(type) {
	case *agentv1.ActRequest_ElementClick:
		ref = a.ElementClick.GetElement()
		ElementRef(v, p+"element_click.element", ref)
	case *agentv1.ActRequest_ElementFocus:
		ref = a.ElementFocus.GetElement()
		ElementRef(v, p+"element_focus.element", ref)
	case *agentv1.ActRequest_ElementSetValue:
		s := a.ElementSetValue
		ref = s.GetElement()
		ElementRef(v, p+"element_set_value.element", ref)
		switch val := s.GetValue().(type) {
		case nil:
			v.Addf(p+"element_set_value.value", "one of text or number is required")
		case *agentv1.ElementSetValue_Text:
			utf8Bounded(v, p+"element_set_value.value.text", val.Text, MaxElementTextBytes)
		case *agentv1.ElementSetValue_Number:
			finite(v, p+"element_set_value.value.number", val.Number, MaxElementNumber)
		}
	case *agentv1.ActRequest_ElementSelectText:
		s := a.ElementSelectText
		ref = s.GetElement()
		ElementRef(v, p+"element_select_text.element", ref)
		switch rg := s.GetRange().(type) {
		case nil:
			v.Addf(p+"element_select_text.range", "one of offsets or match is required")
		case *agentv1.ElementSelectText_Offsets:
			o := rg.Offsets
			if o.GetStart() < 0 {
				v.Addf(p+"element_select_text.range.offsets.start", "must be >= 0, got %d", o.GetStart())
			}
			if o.GetEnd() < o.GetStart() {
				v.Addf(p+"element_select_text.range.offsets.end", "must be >= start (%d), got %d", o.GetStart(), o.GetEnd())
			}
		case *agentv1.ElementSelectText_Match:
			TextMatch(v, p+"element_select_text.range.match", rg.Match)
		}
		known(v, p+"element_select_text.caret", int32(s.GetCaret()), agentv1.CaretPlacement_name)
	case *agentv1.ActRequest_ElementDoAction:
		d := a.ElementDoAction
		ref = d.GetElement()
		ElementRef(v, p+"element_do_action.element", ref)
		if d.GetAction() == "" {
			v.Addf(p+"element_do_action.action", "required")
		} else {
			utf8Bounded(v, p+"element_do_action.action", d.GetAction(), MaxElementActionBytes)
		}
	case *agentv1.ActRequest_ElementScrollIntoView:
		ref = a.ElementScrollIntoView.GetElement()
		ElementRef(v, p+"element_scroll_into_view.element", ref)
	default:
		return false
	}
	switch k := r.GetTarget().GetKind().(type) {
	case nil, *agentv1.Target_App:
	default:
		v.Addf("target", "an element action takes an app target or none, got %s", targetKind(k))
	}
	if sid := r.GetTarget().GetSnapshotId(); sid != "" && ref != nil && ref.GetSnapshotId() != "" && sid != ref.GetSnapshotId() {
		v.Addf("target.snapshot_id", "must be the element's snapshot %s, got %s", quoted(ref.GetSnapshotId()), quoted(sid))
	}
	return true
}

// targetKind names a target kind for a message.
func targetKind(k any) string {
	switch k.(type) {
	case *agentv1.Target_Display:
		return "a display"
	case *agentv1.Target_Window:
		return "a window"
	case *agentv1.Target_Tab:
		return "a tab"
	case *agentv1.Target_App:
		return "an app"
	}
	return fmt.Sprintf("%T", k)
}

// GetApp checks r: exactly one of app_id and name; launch only with a name.
func GetApp(r *agentv1.GetAppRequest) error {
	var v errdefs.Violations
	AppID(&v, "app_id", r.GetAppId(), false)
	if n := r.GetName(); n != "" {
		utf8Bounded(&v, "name", n, MaxAppNameBytes)
		if strings.ContainsRune(n, 0) {
			v.Addf("name", "must not contain NUL")
		}
	}
	switch {
	case r.GetAppId() == "" && r.GetName() == "":
		v.Addf("name", "one of app_id and name is required")
	case r.GetAppId() != "" && r.GetName() != "":
		v.Addf("name", "give app_id or name, not both")
	case r.GetLaunch() && r.GetName() == "":
		v.Addf("launch", "launch needs a name (what to start)")
	}
	if n := len(r.GetArgs()); n > MaxLaunchArgs {
		v.Addf("args", "must have at most %d arguments, got %d", MaxLaunchArgs, n)
	}
	bad := 0
	for i, a := range r.GetArgs() {
		f := fmt.Sprintf("args[%d]", i)
		before := v.Len()
		utf8Bounded(&v, f, a, MaxLaunchArgBytes)
		if v.Len() == before && strings.ContainsRune(a, 0) {
			v.Addf(f, "must not contain NUL")
		}
		if v.Len() > before {
			bad++
		}
		if bad >= MaxListViolations {
			break
		}
	}
	if len(r.GetArgs()) > 0 && !r.GetLaunch() {
		v.Addf("args", "only with launch")
	}
	between(&v, "launch_timeout_ms", r.GetLaunchTimeoutMs(), 0, MaxLaunchTimeoutMs)
	return v.Err()
}

// SnapshotApp checks r.
func SnapshotApp(r *agentv1.SnapshotAppRequest) error {
	var v errdefs.Violations
	AppID(&v, "app_id", r.GetAppId(), true)
	SnapshotOptions(&v, "options", r.GetOptions())
	return v.Err()
}

// SnapshotWindow checks r.
func SnapshotWindow(r *agentv1.SnapshotWindowRequest) error {
	var v errdefs.Violations
	AppID(&v, "app_id", r.GetAppId(), true)
	windowID(&v, "window_id", r.GetWindowId(), true)
	SnapshotOptions(&v, "options", r.GetOptions())
	return v.Err()
}
