package validate

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

var testTab = &agentv1.TabRef{BrowserId: "chrome-9222", TabId: "8D2F0E6A4B1C4E9F9A3B2C1D0E9F8A7B"}

func sel(s string) *agentv1.Locator {
	return &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: s}}
}

func refLoc(snap, ref string) *agentv1.Locator {
	return &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: &agentv1.ElementRef{SnapshotId: snap, Ref: ref}}}
}

// validPageActions holds one valid request per page action, at the edges of the bounds.
func validPageActions() []*agentv1.ActRequest {
	rs := []*agentv1.ActRequest{
		{Action: &agentv1.ActRequest_NewTab{NewTab: &agentv1.NewTab{BrowserId: "chrome-1"}}},
		{Action: &agentv1.ActRequest_NewTab{NewTab: &agentv1.NewTab{BrowserId: "chrome-65535", Url: "https://example.com/"}}},
		{Action: &agentv1.ActRequest_CloseTab{CloseTab: &agentv1.CloseTab{Tab: testTab}}},
		{Action: &agentv1.ActRequest_ActivateTab{ActivateTab: &agentv1.ActivateTab{Tab: testTab}}},
		{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: testTab, Url: "about:blank", TimeoutMs: MaxNavigateMs}}},
		{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: testTab, Url: "HTTP://127.0.0.1:8080/a?b#c"}}},
		{Action: &agentv1.ActRequest_Reload{Reload: &agentv1.Reload{Tab: testTab, Hard: true}}},
		{Action: &agentv1.ActRequest_StopLoading{StopLoading: &agentv1.StopLoading{Tab: testTab}}},
		{Action: &agentv1.ActRequest_History{History: &agentv1.History{Tab: testTab, Direction: agentv1.HistoryDirection_HISTORY_DIRECTION_FORWARD}}},
		{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: testTab, Locator: refLoc("page-1", "e12"), Count: 3, Modifiers: []string{"shift", "ctrl", "alt", "meta"}}}},
		{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: testTab, Locator: &agentv1.Locator{Kind: &agentv1.Locator_Point{Point: &agentv1.Point{}}}}}},
		{Action: &agentv1.ActRequest_Fill{Fill: &agentv1.Fill{Tab: testTab, Locator: sel("#a > b"), Text: ""}}},
		{Action: &agentv1.ActRequest_Fill{Fill: &agentv1.Fill{Tab: testTab, Locator: sel("input"), Text: "中文 😀\n\t" + strings.Repeat("x", MaxFillBytes-13)}}},
		{Action: &agentv1.ActRequest_PageType{PageType: &agentv1.PageType{Tab: testTab, Text: "a", DelayMs: MaxTypeDelayMs}}},
		{Action: &agentv1.ActRequest_Press{Press: &agentv1.Press{Tab: testTab, Key: "Control+Shift+ArrowLeft", Repeat: MaxKeyRepeat}}},
		{Action: &agentv1.ActRequest_Press{Press: &agentv1.Press{Tab: testTab, Key: "Control++"}}},
		{Action: &agentv1.ActRequest_PageKeyDown{PageKeyDown: &agentv1.PageKeyDown{Tab: testTab, Key: "Shift"}}},
		{Action: &agentv1.ActRequest_PageKeyUp{PageKeyUp: &agentv1.PageKeyUp{Tab: testTab, Key: "é"}}},
		{Action: &agentv1.ActRequest_SetValue{SetValue: &agentv1.SetValue{Tab: testTab, Locator: sel("select"), Value: "g"}}},
		{Action: &agentv1.ActRequest_PageSelectText{PageSelectText: &agentv1.PageSelectText{Tab: testTab, Locator: sel("textarea"),
			Match: &agentv1.TextMatch{Prefix: "a ", Text: "b", Suffix: " c"}, Caret: agentv1.CaretPlacement_CARET_PLACEMENT_AFTER}}},
		{Action: &agentv1.ActRequest_Paste{Paste: &agentv1.Paste{Tab: testTab, Html: "<b>x</b>"}}},
		{Action: &agentv1.ActRequest_PageScroll{PageScroll: &agentv1.PageScroll{Tab: testTab, Dy: -MaxScrollPixels}}},
		{Action: &agentv1.ActRequest_PageScroll{PageScroll: &agentv1.PageScroll{Tab: testTab, Locator: sel("#box"), Dx: 0.5, Unit: agentv1.ScrollUnit_SCROLL_UNIT_PAGES}}},
		{Action: &agentv1.ActRequest_Hover{Hover: &agentv1.Hover{Tab: testTab, Locator: sel("a")}}},
		{Action: &agentv1.ActRequest_PageDrag{PageDrag: &agentv1.PageDrag{Tab: testTab, From: sel("#a"), To: refLoc("page-1", "e2"), Steps: MaxDragSteps}}},
		{Action: &agentv1.ActRequest_SetViewport{SetViewport: &agentv1.SetViewport{Tab: testTab, Width: MinViewportWidth, Height: MinViewportHeight, DeviceScaleFactor: 4}}},
		{Action: &agentv1.ActRequest_WaitFor{WaitFor: &agentv1.WaitFor{Tab: testTab, Selector: ".done", State: agentv1.WaitState_WAIT_STATE_HIDDEN, TimeoutMs: MinWaitForMs}}},
		{Action: &agentv1.ActRequest_SecondaryAction{SecondaryAction: &agentv1.SecondaryAction{Tab: testTab, Locator: sel("a")}}},
		{Target: &agentv1.Target{Kind: &agentv1.Target_Tab{Tab: &agentv1.TabTarget{BrowserId: testTab.BrowserId, TabId: testTab.TabId}}, SnapshotId: "page-3"},
			Action: &agentv1.ActRequest_Reload{Reload: &agentv1.Reload{Tab: testTab}}},
	}
	for _, r := range rs {
		r.Owner = "s1"
	}
	return rs
}

func TestValidPageActions(t *testing.T) {
	for _, r := range validPageActions() {
		if err := ActRequest(r); err != nil {
			t.Errorf("%T: %v", r.GetAction(), cut(err.Error()))
		}
	}
}

// fieldNames are the fields err's BadRequest names, without their descriptions.
func fieldNames(err error) []string {
	var out []string
	for _, f := range fields(err) {
		name, _, _ := strings.Cut(f, ": ")
		out = append(out, name)
	}
	return out
}

func TestBadPageActions(t *testing.T) {
	nav := func(u string) *agentv1.ActRequest {
		return &agentv1.ActRequest{Owner: "s1", Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: testTab, Url: u}}}
	}
	act := func(a any) *agentv1.ActRequest {
		r := &agentv1.ActRequest{Owner: "s1"}
		switch x := a.(type) {
		case *agentv1.PageClick:
			r.Action = &agentv1.ActRequest_PageClick{PageClick: x}
		case *agentv1.Fill:
			r.Action = &agentv1.ActRequest_Fill{Fill: x}
		case *agentv1.Press:
			r.Action = &agentv1.ActRequest_Press{Press: x}
		case *agentv1.PageKeyDown:
			r.Action = &agentv1.ActRequest_PageKeyDown{PageKeyDown: x}
		case *agentv1.SetViewport:
			r.Action = &agentv1.ActRequest_SetViewport{SetViewport: x}
		case *agentv1.PageScroll:
			r.Action = &agentv1.ActRequest_PageScroll{PageScroll: x}
		case *agentv1.WaitFor:
			r.Action = &agentv1.ActRequest_WaitFor{WaitFor: x}
		case *agentv1.Paste:
			r.Action = &agentv1.ActRequest_Paste{Paste: x}
		case *agentv1.PageSelectText:
			r.Action = &agentv1.ActRequest_PageSelectText{PageSelectText: x}
		case *agentv1.NewTab:
			r.Action = &agentv1.ActRequest_NewTab{NewTab: x}
		case *agentv1.History:
			r.Action = &agentv1.ActRequest_History{History: x}
		case *agentv1.PageType:
			r.Action = &agentv1.ActRequest_PageType{PageType: x}
		}
		return r
	}
	tests := []struct {
		name string
		req  *agentv1.ActRequest
		want []string
	}{
		{"file url", nav("file:///etc/passwd"), []string{"action.navigate.url"}},
		{"page_type pauses over a minute", act(&agentv1.PageType{Tab: testTab, Text: strings.Repeat("a", 61), DelayMs: 1000}), []string{"action.page_type.delay_ms"}},
		{"javascript url", nav("javascript:alert(1)"), []string{"action.navigate.url"}},
		{"data url", nav("data:text/html,<b>x</b>"), []string{"action.navigate.url"}},
		{"chrome url", nav("chrome://settings"), []string{"action.navigate.url"}},
		{"relative url", nav("/x"), []string{"action.navigate.url"}},
		{"no host", nav("http:///x"), []string{"action.navigate.url"}},
		{"empty url", nav(""), []string{"action.navigate.url"}},
		{"huge url", nav("https://a.example/" + strings.Repeat("a", MaxURLBytes)), []string{"action.navigate.url"}},
		{"no tab", &agentv1.ActRequest{Owner: "s1", Action: &agentv1.ActRequest_Reload{Reload: &agentv1.Reload{}}}, []string{"action.reload.tab"}},
		{"browser is a url", act(&agentv1.NewTab{BrowserId: "http://127.0.0.1:9222"}), []string{"action.new_tab.browser_id"}},
		{"browser is a command", act(&agentv1.NewTab{BrowserId: "chromium"}), []string{"action.new_tab.browser_id"}},
		{"browser port 0", act(&agentv1.NewTab{BrowserId: "chrome-0"}), []string{"action.new_tab.browser_id"}},
		{"browser port leading zero", act(&agentv1.NewTab{BrowserId: "chrome-09222"}), []string{"action.new_tab.browser_id"}},
		{"browser port too big", act(&agentv1.NewTab{BrowserId: "chrome-65536"}), []string{"action.new_tab.browser_id"}},
		{"bad tab id", act(&agentv1.PageClick{Tab: &agentv1.TabRef{BrowserId: "chrome-1", TabId: "a b"}, Locator: sel("a")}), []string{"action.page_click.tab.tab_id"}},
		{"click without locator", act(&agentv1.PageClick{Tab: testTab}), []string{"action.page_click.locator"}},
		{"empty locator", act(&agentv1.PageClick{Tab: testTab, Locator: &agentv1.Locator{}}), []string{"action.page_click.locator"}},
		{"click bad fields", act(&agentv1.PageClick{Tab: testTab, Locator: refLoc("", "e 1"), Button: 9, Count: 4, Modifiers: []string{"super"}}),
			[]string{"action.page_click.locator.ref.snapshot_id", "action.page_click.locator.ref.ref", "action.page_click.button", "action.page_click.count", "action.page_click.modifiers[0]"}},
		{"negative point", act(&agentv1.PageClick{Tab: testTab, Locator: &agentv1.Locator{Kind: &agentv1.Locator_Point{Point: &agentv1.Point{X: -1}}}}), []string{"action.page_click.locator.point.x"}},
		{"empty selector", act(&agentv1.Fill{Tab: testTab, Locator: sel("")}), []string{"action.fill.locator.selector"}},
		{"fill too long", act(&agentv1.Fill{Tab: testTab, Locator: sel("a"), Text: strings.Repeat("x", MaxFillBytes+1)}), []string{"action.fill.text"}},
		{"fill control char", act(&agentv1.Fill{Tab: testTab, Locator: sel("a"), Text: "a\x00"}), []string{"action.fill.text"}},
		{"unknown key", act(&agentv1.Press{Tab: testTab, Key: "Ctrl+Fn"}), []string{"action.press.key"}},
		{"trailing plus", act(&agentv1.Press{Tab: testTab, Key: "Control+"}), []string{"action.press.key"}},
		{"repeat", act(&agentv1.Press{Tab: testTab, Key: "a", Repeat: 101}), []string{"action.press.repeat"}},
		{"key down combo", act(&agentv1.PageKeyDown{Tab: testTab, Key: "Shift+a"}), []string{"action.page_key_down.key"}},
		{"small viewport", act(&agentv1.SetViewport{Tab: testTab, Width: 319, Height: 239}), []string{"action.set_viewport.width", "action.set_viewport.height"}},
		{"viewport scale", act(&agentv1.SetViewport{Tab: testTab, Width: 800, Height: 600, DeviceScaleFactor: math.NaN()}), []string{"action.set_viewport.device_scale_factor"}},
		{"scroll zero", act(&agentv1.PageScroll{Tab: testTab}), []string{"action.page_scroll"}},
		{"scroll pages too far", act(&agentv1.PageScroll{Tab: testTab, Dy: 101, Unit: agentv1.ScrollUnit_SCROLL_UNIT_PAGES}), []string{"action.page_scroll.dy"}},
		{"scroll inf", act(&agentv1.PageScroll{Tab: testTab, Dx: math.Inf(1)}), []string{"action.page_scroll.dx"}},
		{"wait too short", act(&agentv1.WaitFor{Tab: testTab, Selector: "a", TimeoutMs: 99}), []string{"action.wait_for.timeout_ms"}},
		{"wait too long", act(&agentv1.WaitFor{Tab: testTab, Selector: "a", TimeoutMs: 30001, State: 3}), []string{"action.wait_for.state", "action.wait_for.timeout_ms"}},
		{"paste nothing", act(&agentv1.Paste{Tab: testTab}), []string{"action.paste.text"}},
		{"paste bad utf8", act(&agentv1.Paste{Tab: testTab, Html: "\xff"}), []string{"action.paste.html"}},
		{"select text empty", act(&agentv1.PageSelectText{Tab: testTab, Locator: sel("a"), Match: &agentv1.TextMatch{Prefix: "x"}, Caret: 7}),
			[]string{"action.page_select_text.match.text", "action.page_select_text.caret"}},
		{"history unspecified", act(&agentv1.History{Tab: testTab}), []string{"action.history.direction"}},
		{"tab target", &agentv1.ActRequest{Owner: "s1", Target: &agentv1.Target{Kind: &agentv1.Target_Tab{Tab: &agentv1.TabTarget{}}},
			Action: &agentv1.ActRequest_Reload{Reload: &agentv1.Reload{Tab: testTab}}}, []string{"target.tab.browser_id", "target.tab.tab_id"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, fieldNames(ActRequest(tc.req))); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBrowserReads(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"get neither", GetBrowser(&agentv1.GetBrowserRequest{}), []string{"browser_id"}},
		{"get both", GetBrowser(&agentv1.GetBrowserRequest{BrowserId: "chrome-1", Url: "about:blank"}), []string{"url"}},
		{"get by file url", GetBrowser(&agentv1.GetBrowserRequest{Url: "file:///x"}), []string{"url"}},
		{"tabs of a url", ListTabs(&agentv1.ListTabsRequest{BrowserId: "ws://127.0.0.1:9222/devtools/browser"}), []string{"browser_id"}},
		{"snapshot", SnapshotTab(&agentv1.SnapshotTabRequest{Options: &agentv1.SnapshotOptions{MaxNodes: 20001, MaxDepth: -1}}),
			[]string{"tab", "options.max_nodes", "options.max_depth"}},
		{"extract", Extract(&agentv1.ExtractRequest{Tab: testTab, MaxBytes: MaxExtractBytes + 1}), []string{"kind", "max_bytes"}},
		{"capture", CaptureTab(&agentv1.CaptureTabRequest{Tab: testTab, Quality: 5, MaxEdge: 8}), []string{"quality", "max_edge"}},
		{"unknown engine", ListBrowsers(&agentv1.ListBrowsersRequest{StartDefault: true, Engine: "webkit"}), []string{"engine"}},
		{"engine in capitals", ListBrowsers(&agentv1.ListBrowsersRequest{Engine: "Firefox"}), []string{"engine"}},
		{"firefox port 0", ListTabs(&agentv1.ListTabsRequest{BrowserId: "firefox-0"}), []string{"browser_id"}},
		{"firefox leading zero", ListTabs(&agentv1.ListTabsRequest{BrowserId: "firefox-09223"}), []string{"browser_id"}},
		{"engine name as browser id", ListTabs(&agentv1.ListTabsRequest{BrowserId: "firefox"}), []string{"browser_id"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, fieldNames(tc.err)); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
	for _, err := range []error{
		GetBrowser(&agentv1.GetBrowserRequest{BrowserId: "chrome-9222"}), GetBrowser(&agentv1.GetBrowserRequest{Url: "https://a.example/"}),
		ListTabs(&agentv1.ListTabsRequest{BrowserId: "chrome-9222"}), SnapshotTab(&agentv1.SnapshotTabRequest{Tab: testTab}),
		ListTabs(&agentv1.ListTabsRequest{BrowserId: "firefox-9223"}), GetBrowser(&agentv1.GetBrowserRequest{BrowserId: "firefox-1"}),
		ListBrowsers(&agentv1.ListBrowsersRequest{}), ListBrowsers(&agentv1.ListBrowsersRequest{StartDefault: true, Engine: "chromium"}),
		ListBrowsers(&agentv1.ListBrowsersRequest{StartDefault: true, Engine: "firefox"}),
		Extract(&agentv1.ExtractRequest{Tab: testTab, Kind: agentv1.ExtractKind_EXTRACT_KIND_CONSOLE}),
		CaptureTab(&agentv1.CaptureTabRequest{Tab: testTab, Format: agentv1.ImageFormat_IMAGE_FORMAT_JPEG, Quality: 100, MaxEdge: 16}),
	} {
		if err != nil {
			t.Errorf("valid read refused: %v", err)
		}
	}
}

// TestEngine: each browser id names its engine; anything else names none.
func TestEngine(t *testing.T) {
	for id, want := range map[string]string{"chrome-9222": EngineChromium, "firefox-9223": EngineFirefox, "firefox-65535": EngineFirefox,
		"firefox-65536": "", "chromium-9222": "", "chrome-": "", "firefox-1a": "", "": ""} {
		if got := Engine(id); got != want {
			t.Errorf("Engine(%q) = %q, want %q", id, got, want)
		}
	}
}

func FuzzPageAction(f *testing.F) {
	for _, r := range validPageActions() {
		b, _ := proto.Marshal(r)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var r agentv1.ActRequest
		if proto.Unmarshal(b, &r) != nil {
			return
		}
		err := ActRequest(&r)
		checkResult(t, err)
		if err != nil {
			return
		}
		// A valid navigation never goes to a scheme other than http, https or about.
		u := r.GetNavigate().GetUrl() + r.GetNewTab().GetUrl()
		if u != "" {
			if s, _, _ := strings.Cut(strings.ToLower(u), ":"); s != "http" && s != "https" && s != "about" {
				t.Fatalf("valid navigation to %q", u)
			}
		}
		// A valid viewport is at least 320x240.
		if v := r.GetSetViewport(); v != nil && (v.GetWidth() < MinViewportWidth || v.GetHeight() < MinViewportHeight) {
			t.Fatalf("valid viewport %dx%d", v.GetWidth(), v.GetHeight())
		}
	})
}

// cut shortens a message for a test log.
func cut(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// TestPageActionTarget: a page action acts on the tab it names, so a request target naming another tab, or a
// window, display or app, is refused (it would be recorded as the target of an action done elsewhere).
func TestPageActionTarget(t *testing.T) {
	reload := func(target *agentv1.Target) *agentv1.ActRequest {
		return &agentv1.ActRequest{Owner: "s1", Target: target, Action: &agentv1.ActRequest_Reload{Reload: &agentv1.Reload{Tab: testTab}}}
	}
	tab := func(b, id string) *agentv1.Target {
		return &agentv1.Target{Kind: &agentv1.Target_Tab{Tab: &agentv1.TabTarget{BrowserId: b, TabId: id}}}
	}
	for _, ok := range []*agentv1.Target{nil, {}, tab(testTab.BrowserId, testTab.TabId), {SnapshotId: "s-1"}} {
		if err := ActRequest(reload(ok)); err != nil {
			t.Errorf("target %v: %v", ok, err)
		}
	}
	for _, bad := range []*agentv1.Target{
		tab(testTab.BrowserId, "OTHER"),
		tab("chrome-9333", testTab.TabId),
		{Kind: &agentv1.Target_Window{Window: &agentv1.WindowTarget{WindowId: 5}}},
		{Kind: &agentv1.Target_Display{Display: &agentv1.DisplayTarget{DisplayId: "display-0"}}},
		{Kind: &agentv1.Target_App{App: &agentv1.AppTarget{AppId: "app:12"}}},
	} {
		err := ActRequest(reload(bad))
		if err == nil || !strings.Contains(err.Error(), "target") {
			t.Errorf("target %v: %v, want a violation of target", bad, err)
		}
	}
	// new_tab names a browser, not a tab: a tab target of that browser is its context.
	nt := &agentv1.ActRequest{Owner: "s1", Target: tab(testTab.BrowserId, testTab.TabId),
		Action: &agentv1.ActRequest_NewTab{NewTab: &agentv1.NewTab{BrowserId: testTab.BrowserId}}}
	if err := ActRequest(nt); err != nil {
		t.Errorf("new_tab with a tab target: %v", err)
	}
}
