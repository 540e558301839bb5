package validate

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/domkey"
	"glovebox.dev/shared/errdefs"
)

// Browser bounds; browser.proto and page_actions.proto state the same numbers.
const (
	// MaxURLBytes bounds a URL to navigate to or to look a tab up by.
	MaxURLBytes = 8192
	// MaxTabIDBytes bounds a tab id (a CDP target id: 32 hex digits today).
	MaxTabIDBytes = 128
	// MaxSelectorBytes bounds a CSS selector.
	MaxSelectorBytes = 4096
	// MaxFillBytes bounds fill.text, page_type.text and set_value.value.
	MaxFillBytes = 65536
	// MaxPasteBytes bounds paste.text and paste.html together (16 MiB).
	MaxPasteBytes = 16 << 20
	// MaxNavigateMs bounds navigate.timeout_ms (0 means 30000).
	MaxNavigateMs = 60000
	// MaxPageModifiers bounds page_click.modifiers: shift, ctrl, alt, meta.
	MaxPageModifiers = 4
	// MaxScrollPixels and MaxScrollPages bound page_scroll.dx and dy per unit.
	MaxScrollPixels = 100000
	MaxScrollPages  = 100
	// MaxDragSteps bounds page_drag.steps (0 means 10).
	MaxDragSteps = 100
	// MinViewportWidth .. MaxViewportEdge bound set_viewport.
	MinViewportWidth  = 320
	MinViewportHeight = 240
	MaxViewportEdge   = 8192
	// MinWaitForMs and MaxWaitForMs bound wait_for.timeout_ms.
	MinWaitForMs = 100
	MaxWaitForMs = 30000
	// MaxExtractBytes bounds Extract.max_bytes (0 means 1 MiB).
	MaxExtractBytes = 16 << 20
)

// pageModifiers are the modifier names page_click accepts.
var pageModifiers = map[string]bool{"shift": true, "ctrl": true, "alt": true, "meta": true}

// Browser engines, as ListBrowsersRequest.engine and Browser.engine name them.
const (
	EngineChromium = "chromium"
	EngineFirefox  = "firefox"
)

// browserPrefixes are the browser id prefixes of each engine: Chromium by its DevTools port, Firefox by its
// WebDriver BiDi (remote agent) port.
var browserPrefixes = map[string]string{EngineChromium: "chrome-", EngineFirefox: "firefox-"}

// BrowserID parses a Chromium browser id, "chrome-<port>" with a port 1..65535 written without leading zeros.
func BrowserID(s string) (int, bool) { return engineID(s, "chrome-") }

// FirefoxID parses a Firefox browser id, "firefox-<port>" with a port 1..65535 written without leading zeros.
func FirefoxID(s string) (int, bool) { return engineID(s, "firefox-") }

// Engine names the engine of a browser id ("chromium", "firefox"), or "" when s is no browser id.
func Engine(s string) string {
	for e, prefix := range browserPrefixes {
		if _, ok := engineID(s, prefix); ok {
			return e
		}
	}
	return ""
}

func engineID(s, prefix string) (int, bool) {
	p, ok := strings.CutPrefix(s, prefix)
	if !ok || p == "" || len(p) > 5 || p[0] == '0' {
		return 0, false
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != p {
		return 0, false
	}
	return n, true
}

// browserID checks a browser id (required).
func browserID(v *errdefs.Violations, field, s string) {
	switch {
	case s == "":
		v.Addf(field, "required")
	case len(s) > 16:
		v.Addf(field, "must be a browser id from ListBrowsers (chrome-<port> or firefox-<port>), got %d bytes", len(s))
	case Engine(s) == "":
		v.Addf(field, "must be a browser id from ListBrowsers (chrome-<port> or firefox-<port>, port 1..65535), got %s", quoted(s))
	}
}

// tabID checks a tab id (required): 1..MaxTabIDBytes of [A-Za-z0-9._:-].
func tabID(v *errdefs.Violations, field, s string) {
	if len(s) > MaxTabIDBytes {
		v.Addf(field, "must be at most %d bytes, got %d", MaxTabIDBytes, len(s))
		return
	}
	id(v, field, s, true)
}

// tabRef checks a TabRef (required).
func tabRef(v *errdefs.Violations, field string, t *agentv1.TabRef) {
	if t == nil {
		v.Addf(field, "required")
		return
	}
	browserID(v, field+".browser_id", t.GetBrowserId())
	tabID(v, field+".tab_id", t.GetTabId())
}

// PageURL checks a URL a page may be sent to or looked up by: at most MaxURLBytes, absolute, and http, https or
// about (file:, javascript:, data: and every other scheme are refused). It returns the problem or "".
func PageURL(s string) string {
	if len(s) > MaxURLBytes {
		return fmt.Sprintf("must be at most %d bytes, got %d", MaxURLBytes, len(s))
	}
	if i := invalidAt(s); i < len(s) {
		return fmt.Sprintf("invalid UTF-8 at byte %d", i)
	}
	u, err := url.Parse(s)
	if err != nil {
		return "not a URL"
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" {
			return "must name a host"
		}
		return ""
	case "about":
		return ""
	case "":
		return "must be an absolute URL (http, https or about)"
	}
	return fmt.Sprintf("scheme %s is not allowed (http, https or about only)", quoted(u.Scheme))
}

// pageURL checks a URL field; empty is allowed only when !required.
func pageURL(v *errdefs.Violations, field, s string, required bool) {
	if s == "" {
		if required {
			v.Addf(field, "required")
		}
		return
	}
	if p := PageURL(s); p != "" {
		v.Addf(field, "%s", p)
	}
}

// selector checks a CSS selector (required): valid UTF-8, 1..MaxSelectorBytes.
func selector(v *errdefs.Violations, field, s string) {
	if s == "" {
		v.Addf(field, "required")
		return
	}
	utf8Bounded(v, field, s, MaxSelectorBytes)
}

// locator checks a Locator: exactly one of ref, selector, point.
func locator(v *errdefs.Violations, field string, l *agentv1.Locator, required bool) {
	if l == nil {
		if required {
			v.Addf(field, "required")
		}
		return
	}
	switch k := l.GetKind().(type) {
	case *agentv1.Locator_Ref:
		ElementRef(v, field+".ref", k.Ref)
	case *agentv1.Locator_Selector:
		selector(v, field+".selector", k.Selector)
	case *agentv1.Locator_Point:
		point(v, field+".point", k.Point, true)
	case nil:
		v.Addf(field, "one of ref, selector or point is required")
	default:
		v.Addf(field, "unknown locator kind %T", k)
	}
}

// finite checks that d is a finite number within -limit..limit.
func finite(v *errdefs.Violations, field string, d, limit float64) {
	if math.IsNaN(d) || math.IsInf(d, 0) || d < -limit || d > limit {
		v.Addf(field, "must be %g..%g, got %g", -limit, limit, d)
	}
}

// domKey checks one DOM key name (key_down, key_up).
func domKey(v *errdefs.Violations, field, s string) {
	switch {
	case s == "":
		v.Addf(field, "required")
	case len(s) > MaxComboBytes:
		v.Addf(field, "must be at most %d bytes, got %d", MaxComboBytes, len(s))
	default:
		if _, ok := domkey.Lookup(s); !ok {
			v.Addf(field, "unknown DOM key %s (one key: Shift, Control, Alt, Meta, Enter, ArrowLeft, a ...)", quoted(s))
		}
	}
}

// pageAction checks a browser page action and reports whether r holds one.
func pageAction(v *errdefs.Violations, r *agentv1.ActRequest) bool {
	const p = "action."
	switch a := r.GetAction().(type) {
	case *agentv1.ActRequest_NewTab:
		browserID(v, p+"new_tab.browser_id", a.NewTab.GetBrowserId())
		pageURL(v, p+"new_tab.url", a.NewTab.GetUrl(), false)
	case *agentv1.ActRequest_CloseTab:
		tabRef(v, p+"close_tab.tab", a.CloseTab.GetTab())
	case *agentv1.ActRequest_ActivateTab:
		tabRef(v, p+"activate_tab.tab", a.ActivateTab.GetTab())
	case *agentv1.ActRequest_Navigate:
		tabRef(v, p+"navigate.tab", a.Navigate.GetTab())
		pageURL(v, p+"navigate.url", a.Navigate.GetUrl(), true)
		between(v, p+"navigate.timeout_ms", a.Navigate.GetTimeoutMs(), 0, MaxNavigateMs)
	case *agentv1.ActRequest_Reload:
		tabRef(v, p+"reload.tab", a.Reload.GetTab())
	case *agentv1.ActRequest_StopLoading:
		tabRef(v, p+"stop_loading.tab", a.StopLoading.GetTab())
	case *agentv1.ActRequest_History:
		tabRef(v, p+"history.tab", a.History.GetTab())
		if d := a.History.GetDirection(); d != agentv1.HistoryDirection_HISTORY_DIRECTION_BACK && d != agentv1.HistoryDirection_HISTORY_DIRECTION_FORWARD {
			v.Addf(p+"history.direction", "must be BACK or FORWARD, got %d", int32(d))
		}
	case *agentv1.ActRequest_PageClick:
		c := a.PageClick
		tabRef(v, p+"page_click.tab", c.GetTab())
		locator(v, p+"page_click.locator", c.GetLocator(), true)
		known(v, p+"page_click.button", int32(c.GetButton()), agentv1.MouseButton_name)
		between(v, p+"page_click.count", c.GetCount(), 0, MaxClickCount)
		if n := len(c.GetModifiers()); n > MaxPageModifiers {
			v.Addf(p+"page_click.modifiers", "must have at most %d modifiers, got %d", MaxPageModifiers, n)
		} else {
			for i, m := range c.GetModifiers() {
				if !pageModifiers[m] {
					v.Addf(fmt.Sprintf("%spage_click.modifiers[%d]", p, i), "unknown modifier %s (shift ctrl alt meta)", quoted(m))
				}
			}
		}
	case *agentv1.ActRequest_Fill:
		tabRef(v, p+"fill.tab", a.Fill.GetTab())
		locator(v, p+"fill.locator", a.Fill.GetLocator(), true)
		boundedText(v, p+"fill.text", a.Fill.GetText(), MaxFillBytes)
	case *agentv1.ActRequest_PageType:
		tabRef(v, p+"page_type.tab", a.PageType.GetTab())
		if a.PageType.GetText() == "" {
			v.Addf(p+"page_type.text", "required")
		} else {
			boundedText(v, p+"page_type.text", a.PageType.GetText(), MaxFillBytes)
		}
		between(v, p+"page_type.delay_ms", a.PageType.GetDelayMs(), 0, MaxTypeDelayMs)
		delayTotal(v, p+"page_type.delay_ms", a.PageType.GetDelayMs(), utf8.RuneCountInString(a.PageType.GetText()), "characters")
	case *agentv1.ActRequest_Press:
		tabRef(v, p+"press.tab", a.Press.GetTab())
		switch k := a.Press.GetKey(); {
		case k == "":
			v.Addf(p+"press.key", "required")
		case len(k) > MaxComboBytes:
			v.Addf(p+"press.key", "must be at most %d bytes, got %d", MaxComboBytes, len(k))
		default:
			if _, err := domkey.Parse(k); err != nil {
				v.Addf(p+"press.key", "%v", strings.TrimSuffix(err.Error(), ": "+errdefs.ErrInvalidArgument.Error()))
			}
		}
		between(v, p+"press.repeat", a.Press.GetRepeat(), 0, MaxKeyRepeat)
	case *agentv1.ActRequest_PageKeyDown:
		tabRef(v, p+"page_key_down.tab", a.PageKeyDown.GetTab())
		domKey(v, p+"page_key_down.key", a.PageKeyDown.GetKey())
	case *agentv1.ActRequest_PageKeyUp:
		tabRef(v, p+"page_key_up.tab", a.PageKeyUp.GetTab())
		domKey(v, p+"page_key_up.key", a.PageKeyUp.GetKey())
	case *agentv1.ActRequest_SetValue:
		tabRef(v, p+"set_value.tab", a.SetValue.GetTab())
		locator(v, p+"set_value.locator", a.SetValue.GetLocator(), true)
		boundedText(v, p+"set_value.value", a.SetValue.GetValue(), MaxFillBytes)
	case *agentv1.ActRequest_PageSelectText:
		s := a.PageSelectText
		tabRef(v, p+"page_select_text.tab", s.GetTab())
		locator(v, p+"page_select_text.locator", s.GetLocator(), true)
		TextMatch(v, p+"page_select_text.match", s.GetMatch())
		known(v, p+"page_select_text.caret", int32(s.GetCaret()), agentv1.CaretPlacement_name)
	case *agentv1.ActRequest_Paste:
		ps := a.Paste
		tabRef(v, p+"paste.tab", ps.GetTab())
		locator(v, p+"paste.locator", ps.GetLocator(), false)
		switch n := len(ps.GetText()) + len(ps.GetHtml()); {
		case n == 0:
			v.Addf(p+"paste.text", "text or html is required")
		case n > MaxPasteBytes:
			v.Addf(p+"paste.text", "text and html must be at most %d bytes together, got %d", MaxPasteBytes, n)
		}
		utf8Bounded(v, p+"paste.text", ps.GetText(), MaxPasteBytes)
		utf8Bounded(v, p+"paste.html", ps.GetHtml(), MaxPasteBytes)
	case *agentv1.ActRequest_PageScroll:
		s := a.PageScroll
		tabRef(v, p+"page_scroll.tab", s.GetTab())
		locator(v, p+"page_scroll.locator", s.GetLocator(), false)
		known(v, p+"page_scroll.unit", int32(s.GetUnit()), agentv1.ScrollUnit_name)
		limit := float64(MaxScrollPixels)
		if s.GetUnit() == agentv1.ScrollUnit_SCROLL_UNIT_PAGES {
			limit = MaxScrollPages
		}
		finite(v, p+"page_scroll.dx", s.GetDx(), limit)
		finite(v, p+"page_scroll.dy", s.GetDy(), limit)
		if s.GetDx() == 0 && s.GetDy() == 0 {
			v.Addf(p+"page_scroll", "dx and dy must not both be 0")
		}
	case *agentv1.ActRequest_Hover:
		tabRef(v, p+"hover.tab", a.Hover.GetTab())
		locator(v, p+"hover.locator", a.Hover.GetLocator(), true)
	case *agentv1.ActRequest_PageDrag:
		d := a.PageDrag
		tabRef(v, p+"page_drag.tab", d.GetTab())
		locator(v, p+"page_drag.from", d.GetFrom(), true)
		locator(v, p+"page_drag.to", d.GetTo(), true)
		between(v, p+"page_drag.steps", d.GetSteps(), 0, MaxDragSteps)
	case *agentv1.ActRequest_SetViewport:
		s := a.SetViewport
		tabRef(v, p+"set_viewport.tab", s.GetTab())
		between(v, p+"set_viewport.width", s.GetWidth(), MinViewportWidth, MaxViewportEdge)
		between(v, p+"set_viewport.height", s.GetHeight(), MinViewportHeight, MaxViewportEdge)
		if f := s.GetDeviceScaleFactor(); f != 0 && !(f >= 0.5 && f <= 4) {
			v.Addf(p+"set_viewport.device_scale_factor", "must be 0 or 0.5..4, got %g", f)
		}
	case *agentv1.ActRequest_WaitFor:
		w := a.WaitFor
		tabRef(v, p+"wait_for.tab", w.GetTab())
		selector(v, p+"wait_for.selector", w.GetSelector())
		known(v, p+"wait_for.state", int32(w.GetState()), agentv1.WaitState_name)
		between(v, p+"wait_for.timeout_ms", w.GetTimeoutMs(), MinWaitForMs, MaxWaitForMs)
	case *agentv1.ActRequest_SecondaryAction:
		tabRef(v, p+"secondary_action.tab", a.SecondaryAction.GetTab())
		locator(v, p+"secondary_action.locator", a.SecondaryAction.GetLocator(), true)
	default:
		return false
	}
	pageActionTarget(v, r)
	return true
}

// pageActionTarget checks the request target of a page action that names its tab: it acts on that tab only,
// so a target naming another tab, or a window, display or app, would be recorded (and gated) as the target of
// an action done elsewhere. new_tab names a browser, not a tab, and takes any tab target as its context.
func pageActionTarget(v *errdefs.Violations, r *agentv1.ActRequest) {
	if r.GetNewTab() != nil {
		return
	}
	var ref *agentv1.TabRef
	m := r.ProtoReflect()
	if fd := m.WhichOneof(m.Descriptor().Oneofs().ByName("action")); fd != nil && fd.Message() != nil {
		if tf := fd.Message().Fields().ByName("tab"); tf != nil && m.Get(fd).Message().Has(tf) {
			ref, _ = m.Get(fd).Message().Get(tf).Message().Interface().(*agentv1.TabRef)
		}
	}
	if ref == nil {
		return
	}
	switch k := r.GetTarget().GetKind().(type) {
	case nil:
	case *agentv1.Target_Tab:
		// A malformed tab target is reported field by field already.
		if Engine(k.Tab.GetBrowserId()) != "" && ValidID(k.Tab.GetTabId()) && (k.Tab.GetBrowserId() != ref.GetBrowserId() || k.Tab.GetTabId() != ref.GetTabId()) {
			v.Addf("target.tab", "must be the action's tab %s/%s, got %s/%s", quoted(ref.GetBrowserId()), quoted(ref.GetTabId()),
				quoted(k.Tab.GetBrowserId()), quoted(k.Tab.GetTabId()))
		}
	default:
		v.Addf("target", "a page action takes a tab target or none, got %s", targetKind(k))
	}
}

// boundedText checks text of a form field: at most max bytes, valid UTF-8, no control characters but \n and \t.
func boundedText(v *errdefs.Violations, field, s string, max int) {
	if len(s) > max {
		v.Addf(field, "must be at most %d bytes, got %d", max, len(s))
		return
	}
	text(v, field, s)
}

// tabTarget checks a Target's tab.
func tabTarget(v *errdefs.Violations, field string, t *agentv1.TabTarget) {
	browserID(v, field+".browser_id", t.GetBrowserId())
	tabID(v, field+".tab_id", t.GetTabId())
}

// ListBrowsers checks r: engine is empty (Chromium), "chromium" or "firefox".
func ListBrowsers(r *agentv1.ListBrowsersRequest) error {
	var v errdefs.Violations
	switch e := r.GetEngine(); e {
	case "", EngineChromium, EngineFirefox:
	default:
		if len(e) > 16 {
			v.Addf("engine", "must be chromium or firefox, got %d bytes", len(e))
		} else {
			v.Addf("engine", "must be chromium or firefox, got %s", quoted(e))
		}
	}
	return v.Err()
}

// GetBrowser checks r: exactly one of browser_id and url.
func GetBrowser(r *agentv1.GetBrowserRequest) error {
	var v errdefs.Violations
	id, u := r.GetBrowserId(), r.GetUrl()
	switch {
	case id == "" && u == "":
		v.Addf("browser_id", "one of browser_id or url is required")
	case id != "" && u != "":
		v.Addf("url", "give browser_id or url, not both")
	}
	if id != "" {
		browserID(&v, "browser_id", id)
	}
	pageURL(&v, "url", u, false)
	return v.Err()
}

// ListTabs checks r.
func ListTabs(r *agentv1.ListTabsRequest) error {
	var v errdefs.Violations
	browserID(&v, "browser_id", r.GetBrowserId())
	return v.Err()
}

// SnapshotTab checks r.
func SnapshotTab(r *agentv1.SnapshotTabRequest) error {
	var v errdefs.Violations
	tabRef(&v, "tab", r.GetTab())
	SnapshotOptions(&v, "options", r.GetOptions())
	return v.Err()
}

// Extract checks r.
func Extract(r *agentv1.ExtractRequest) error {
	var v errdefs.Violations
	tabRef(&v, "tab", r.GetTab())
	if k := r.GetKind(); k == agentv1.ExtractKind_EXTRACT_KIND_UNSPECIFIED {
		v.Addf("kind", "required (A11Y, DOM or CONSOLE)")
	} else {
		known(&v, "kind", int32(k), agentv1.ExtractKind_name)
	}
	between(&v, "max_bytes", r.GetMaxBytes(), 0, MaxExtractBytes)
	return v.Err()
}

// CaptureTab checks r.
func CaptureTab(r *agentv1.CaptureTabRequest) error {
	var v errdefs.Violations
	tabRef(&v, "tab", r.GetTab())
	switch r.GetFormat() {
	case agentv1.ImageFormat_IMAGE_FORMAT_UNSPECIFIED, agentv1.ImageFormat_IMAGE_FORMAT_PNG:
		if r.GetQuality() != 0 {
			v.Addf("quality", "must be 0 for PNG, got %d", r.GetQuality())
		}
	case agentv1.ImageFormat_IMAGE_FORMAT_JPEG:
		between(&v, "quality", r.GetQuality(), 0, 100)
	default:
		v.Addf("format", "unknown image format %d", int32(r.GetFormat()))
	}
	if m := r.GetMaxEdge(); m != 0 && (m < MinMaxEdge || m > MaxMaxEdge) {
		v.Addf("max_edge", "must be 0 or %d..%d, got %d", MinMaxEdge, MaxMaxEdge, m)
	}
	return v.Err()
}
