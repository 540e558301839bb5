package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errgrpc"
)

// engineCases is the browser test table both engines run: every effect is read back from the page's own state
// (e.eval), never from the agent's answer alone.
var engineCases = []struct {
	name string
	run  func(t *testing.T, e *pageEngine, tab string)
}{
	{"discovery says engine and version", func(t *testing.T, e *pageEngine, tab string) {
		resp, err := e.br.ListBrowsers(context.Background(), &agentv1.ListBrowsersRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var found *agentv1.Browser
		for _, b := range resp.GetBrowsers() {
			if b.GetBrowserId() == e.id {
				found = b
			}
		}
		prefix := map[string]string{"chromium": "Chrome/", "firefox": "Firefox/"}[e.name]
		if found == nil || found.GetEngine() != e.name || !strings.HasPrefix(found.GetVersion(), prefix) || !found.GetDefaultWorkspace() || found.GetTabCount() < 1 {
			t.Fatalf("ListBrowsers = %v, want %s: engine %s, version %s..., default workspace, tabs", resp, e.id, e.name, prefix)
		}
		tabs, err := e.br.ListTabs(context.Background(), &agentv1.ListTabsRequest{BrowserId: e.id})
		if err != nil {
			t.Fatal(err)
		}
		ok := false
		for _, x := range tabs.GetTabs() {
			ok = ok || x.GetTabId() == tab && x.GetUrl() == e.url("/page") && x.GetTitle() == "Glovebox test"
		}
		if !ok {
			t.Errorf("ListTabs %v lacks tab %s on /page", tabs, tab)
		}
	}},
	{"unknown engine refused naming the field", func(t *testing.T, e *pageEngine, _ string) {
		_, err := e.br.ListBrowsers(context.Background(), &agentv1.ListBrowsersRequest{StartDefault: true, Engine: "webkit"})
		if diff := cmp.Diff([]string{"engine"}, violatedFields(t, err)); diff != "" {
			t.Errorf("engine webkit (-want +got):\n%s", diff)
		}
	}},
	{"hard reload: Chromium reloads, Firefox refuses naming the engine", func(t *testing.T, e *pageEngine, tab string) {
		e.eval(t, tab, "window.__mark = 'before'")
		_, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Reload{Reload: &agentv1.Reload{Tab: e.tab(tab), Hard: true}}})
		mark := e.eval(t, tab, "window.__mark || null")
		switch e.name {
		case "chromium":
			if err != nil || mark != "null" {
				t.Errorf("hard reload: %v, page mark %s after; want a new document", err, mark)
			}
		case "firefox":
			if reason(err) != "UNSUPPORTED_ACTION" || !strings.Contains(err.Error(), "firefox") {
				t.Errorf("hard reload on firefox: %v, want UNSUPPORTED_ACTION naming firefox", err)
			}
			if mark != `"before"` {
				t.Errorf("the refused hard reload reloaded the page (mark %s)", mark)
			}
		}
	}},
	{"capture scaled by max_edge: Chromium only", func(t *testing.T, e *pageEngine, tab string) {
		img, err := e.br.CaptureTab(context.Background(), &agentv1.CaptureTabRequest{Tab: e.tab(tab), MaxEdge: 200})
		switch e.name {
		case "chromium":
			if im := img.GetImage(); err != nil || max(im.GetWidth(), im.GetHeight()) > 200 || im.GetScale() >= 1 {
				t.Errorf("capture max_edge 200: %v %dx%d scale %v", err, im.GetWidth(), im.GetHeight(), im.GetScale())
			}
		case "firefox":
			if reason(err) != "UNSUPPORTED_ACTION" || !strings.Contains(err.Error(), "firefox") {
				t.Errorf("capture max_edge on firefox: %v, want UNSUPPORTED_ACTION naming firefox", err)
			}
		}
	}},
	{"click by ref", func(t *testing.T, e *pageEngine, tab string) {
		e.clearLog(t, tab)
		s := e.snapshot(t, tab)
		r := ref(t, s, "button", "Press me")
		resp, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: e.tab(tab), Locator: byRef(r)}}})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"click b1"}, e.pageLog(t, tab)); diff != "" {
			t.Errorf("page log (-want +got):\n%s", diff)
		}
		if ft := resp.GetTarget(); ft.GetBrowserId() != e.id || ft.GetTabId() != tab || ft.GetElementRef() != r.GetRef() || ft.GetSnapshotId() != r.GetSnapshotId() {
			t.Errorf("frozen target %v", ft)
		}
	}},
	{"covered element refused naming the cover", func(t *testing.T, e *pageEngine, tab string) {
		e.clearLog(t, tab)
		_, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: e.tab(tab), Locator: sel("#under")}}})
		md := errgrpc.Metadata(errgrpc.FromError(err))
		if reason(err) != "TARGET_COVERED" || !strings.Contains(md["untrusted_cover"], `id="cover"`) || strings.Contains(err.Error(), "cover\"") {
			t.Fatalf("click under a cover: %v (metadata %v), want TARGET_COVERED naming #cover in untrusted_cover only", err, md)
		}
		if got := e.pageLog(t, tab); len(got) != 0 {
			t.Errorf("page saw %v", got)
		}
	}},
	{"fill read-back with CJK and emoji", func(t *testing.T, e *pageEngine, tab string) {
		for _, want := range []string{"中文テキスト 😀👍 ok", "second"} {
			resp, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Fill{Fill: &agentv1.Fill{Tab: e.tab(tab), Locator: sel("#name"), Text: want}}})
			if err != nil {
				t.Fatal(err)
			}
			if got := e.evalString(t, tab, "document.getElementById('name').value"); got != want {
				t.Errorf("page value %q, want %q", got, want)
			}
			if resp.GetValue() != want || resp.GetEffect() != agentv1.Effect_EFFECT_VERIFIED {
				t.Errorf("answer value %q effect %v", resp.GetValue(), resp.GetEffect())
			}
		}
	}},
	{"held shift across presses", func(t *testing.T, e *pageEngine, tab string) {
		e.eval(t, tab, "document.getElementById('ta').value=''; document.getElementById('ta').focus(); 0")
		e.clearLog(t, tab)
		for _, r := range []*agentv1.ActRequest{
			{Action: &agentv1.ActRequest_PageKeyDown{PageKeyDown: &agentv1.PageKeyDown{Tab: e.tab(tab), Key: "Shift"}}},
			{Action: &agentv1.ActRequest_Press{Press: &agentv1.Press{Tab: e.tab(tab), Key: "a"}}},
			{Action: &agentv1.ActRequest_Press{Press: &agentv1.Press{Tab: e.tab(tab), Key: "b"}}},
			{Action: &agentv1.ActRequest_PageKeyUp{PageKeyUp: &agentv1.PageKeyUp{Tab: e.tab(tab), Key: "Shift"}}},
			{Action: &agentv1.ActRequest_Press{Press: &agentv1.Press{Tab: e.tab(tab), Key: "c"}}},
		} {
			if _, err := e.do(t, r); err != nil {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff([]string{"down Shift shift", "down A shift", "down B shift", "down c"}, e.pageLog(t, tab)); diff != "" {
			t.Errorf("keys seen (-want +got):\n%s", diff)
		}
		if got := e.evalString(t, tab, "document.getElementById('ta').value"); got != "ABc" {
			t.Errorf("textarea %q, want ABc", got)
		}
	}},
	{"set_value input and select", func(t *testing.T, e *pageEngine, tab string) {
		e.clearLog(t, tab)
		for _, c := range []struct{ sel, value, want string }{{"#name", "set directly", "set directly"}, {"#sel", "g", "g"}, {"#sel", "Red", "r"}} {
			resp, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_SetValue{SetValue: &agentv1.SetValue{Tab: e.tab(tab), Locator: sel(c.sel), Value: c.value}}})
			if err != nil {
				t.Fatal(err)
			}
			if got := e.evalString(t, tab, "document.querySelector('"+c.sel+"').value"); got != c.want || resp.GetValue() != c.want {
				t.Errorf("%s = %q (answered %q), want %q", c.sel, got, resp.GetValue(), c.want)
			}
		}
		if diff := cmp.Diff([]string{"input name", "change name", "input sel", "change sel", "input sel", "change sel"}, e.pageLog(t, tab)); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
	}},
	{"select_text then type replaces the selection", func(t *testing.T, e *pageEngine, tab string) {
		e.eval(t, tab, "document.getElementById('ta').value = 'one two three two'")
		resp, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageSelectText{PageSelectText: &agentv1.PageSelectText{
			Tab: e.tab(tab), Locator: sel("#ta"), Match: &agentv1.TextMatch{Prefix: "three ", Text: "two"}}}})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&agentv1.TextRange{Start: 14, End: 17}, resp.GetSelection(), protocmp.Transform()); diff != "" {
			t.Errorf("selection (-want +got):\n%s", diff)
		}
		if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageType{PageType: &agentv1.PageType{Tab: e.tab(tab), Text: "2️⃣"}}}); err != nil {
			t.Fatal(err)
		}
		if got := e.evalString(t, tab, "document.getElementById('ta').value"); got != "one two three 2️⃣" {
			t.Errorf("textarea %q", got)
		}
		_, err = e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageSelectText{PageSelectText: &agentv1.PageSelectText{
			Tab: e.tab(tab), Locator: sel("#ta"), Match: &agentv1.TextMatch{Text: "o"}}}})
		if got := reason(err); got != "TARGET_AMBIGUOUS" {
			t.Errorf("several matches: %s", got)
		}
	}},
	{"paste events seen by the page", func(t *testing.T, e *pageEngine, tab string) {
		e.clearLog(t, tab)
		e.eval(t, tab, "document.getElementById('ta').value = ''")
		resp, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Paste{Paste: &agentv1.Paste{Tab: e.tab(tab), Locator: sel("#handled"), Text: "plain", Html: "<b>rich</b>"}}})
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetPastePath() != agentv1.PastePath_PASTE_PATH_EVENT {
			t.Errorf("path %v", resp.GetPastePath())
		}
		if diff := cmp.Diff([]string{"paste plain | <b>rich</b>"}, e.pageLog(t, tab)); diff != "" {
			t.Errorf("handler saw (-want +got):\n%s", diff)
		}
		if got := e.evalString(t, tab, "document.getElementById('handled').value"); got != "" {
			t.Errorf("consumed paste still inserted %q", got)
		}
		resp, err = e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Paste{Paste: &agentv1.Paste{Tab: e.tab(tab), Locator: sel("#ta"), Text: "pasted 中"}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := e.evalString(t, tab, "document.getElementById('ta').value"); got != "pasted 中" || resp.GetPastePath() != agentv1.PastePath_PASTE_PATH_INSERT_TEXT {
			t.Errorf("default paste: %q via %v", got, resp.GetPastePath())
		}
		e.eval(t, tab, "document.getElementById('ce').textContent = ''")
		resp, err = e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Paste{Paste: &agentv1.Paste{Tab: e.tab(tab), Locator: sel("#ce"), Text: "x", Html: "<b>bold</b>"}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := e.evalString(t, tab, "document.getElementById('ce').innerHTML"); got != "<b>bold</b>" || resp.GetPastePath() != agentv1.PastePath_PASTE_PATH_INSERT_HTML {
			t.Errorf("contenteditable paste: %q via %v", got, resp.GetPastePath())
		}
	}},
	{"scroll by pages in a container", func(t *testing.T, e *pageEngine, tab string) {
		e.eval(t, tab, "document.getElementById('box').scrollTop = 0")
		resp, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageScroll{PageScroll: &agentv1.PageScroll{
			Tab: e.tab(tab), Locator: sel("#box"), Dy: 2, Unit: agentv1.ScrollUnit_SCROLL_UNIT_PAGES}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := e.eval(t, tab, "document.getElementById('box').scrollTop"); got != "200" || resp.GetScrollBefore().GetY() != 0 || resp.GetScrollAfter().GetY() != 200 {
			t.Errorf("scrollTop %s, answered %v -> %v; want 0 -> 200", got, resp.GetScrollBefore(), resp.GetScrollAfter())
		}
	}},
	{"wait_for times out and succeeds", func(t *testing.T, e *pageEngine, tab string) {
		start := time.Now()
		_, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_WaitFor{WaitFor: &agentv1.WaitFor{Tab: e.tab(tab), Selector: "#never", TimeoutMs: 300}}})
		if got := reason(err); got != "TIMEOUT" {
			t.Errorf("wait_for an absent element: %s, want TIMEOUT", got)
		}
		if took := time.Since(start); took < 300*time.Millisecond || took > 10*time.Second {
			t.Errorf("wait_for of 300 ms took %v", took)
		}
		e.eval(t, tab, "setTimeout(() => { const p = document.createElement('p'); p.id = 'late'; p.textContent = 'late'; document.body.append(p); }, 200)")
		if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_WaitFor{WaitFor: &agentv1.WaitFor{Tab: e.tab(tab), Selector: "#late", TimeoutMs: 10000}}}); err != nil {
			t.Errorf("wait_for an element added later: %v", err)
		}
		if got := e.evalString(t, tab, "document.getElementById('late').textContent"); got != "late" {
			t.Errorf("page has %q", got)
		}
	}},
	{"explicit tab while another is active", func(t *testing.T, e *pageEngine, tab string) {
		other := e.newTab(t, e.url("/other"))
		if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_ActivateTab{ActivateTab: &agentv1.ActivateTab{Tab: e.tab(other)}}}); err != nil {
			t.Fatal(err)
		}
		if got := e.evalString(t, other, "document.visibilityState"); got != "visible" {
			t.Fatalf("other tab %s, want visible (active)", got)
		}
		e.clearLog(t, tab)
		e.clearLog(t, other)
		if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: e.tab(tab), Locator: sel("#b1")}}}); err != nil {
			t.Fatal(err)
		}
		// A tab in the background handles its input when Chromium gets to it: wait for the log, bounded.
		var got []string
		for deadline := time.Now().Add(3 * time.Second); ; {
			if got = e.pageLog(t, tab); len(got) > 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if !cmp.Equal(got, []string{"click b1"}) {
			t.Errorf("named tab saw %v within 3 s", got)
		}
		if got := e.pageLog(t, other); len(got) != 0 {
			t.Errorf("active tab saw %v", got)
		}
		s := e.snapshot(t, tab)
		_, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: e.tab(other), Locator: byRef(ref(t, s, "button", "Press me"))}}})
		if got := reason(err); got != "STALE_REF" {
			t.Errorf("ref of another tab: %s, want STALE_REF", got)
		}
		if got := e.pageLog(t, other); len(got) != 0 {
			t.Errorf("active tab saw %v", got)
		}
	}},
	{"viewport, capture, console", func(t *testing.T, e *pageEngine, tab string) {
		if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_SetViewport{SetViewport: &agentv1.SetViewport{Tab: e.tab(tab), Width: 640, Height: 480}}}); err != nil {
			t.Fatal(err)
		}
		if got := e.eval(t, tab, "[innerWidth, innerHeight]"); got != "[640,480]" {
			t.Errorf("viewport %s", got)
		}
		img, err := e.br.CaptureTab(context.Background(), &agentv1.CaptureTabRequest{Tab: e.tab(tab)})
		if err != nil {
			t.Fatal(err)
		}
		if im := img.GetImage(); im.GetWidth() != 640 || im.GetHeight() != 480 || http.DetectContentType(im.GetData()) != "image/png" {
			t.Errorf("capture %dx%d %s", im.GetWidth(), im.GetHeight(), http.DetectContentType(im.GetData()))
		}
		ex, err := e.br.Extract(context.Background(), &agentv1.ExtractRequest{Tab: e.tab(tab), Kind: agentv1.ExtractKind_EXTRACT_KIND_CONSOLE})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, m := range ex.GetConsole() {
			found = found || m.GetText() == "page ready 42" && m.GetLevel() == "log"
		}
		if !found {
			t.Errorf("console %v lacks 'page ready 42'", ex.GetConsole())
		}
		a11y, err := e.br.Extract(context.Background(), &agentv1.ExtractRequest{Tab: e.tab(tab), Kind: agentv1.ExtractKind_EXTRACT_KIND_A11Y})
		if err != nil || !strings.Contains(a11y.GetContent(), `button "Press me"`) {
			t.Errorf("a11y extract %q: %v", a11y.GetContent(), err)
		}
		if want := e.name == "firefox"; a11y.GetDomDerived() != want {
			t.Errorf("a11y extract dom_derived %v on %s, want %v", a11y.GetDomDerived(), e.name, want)
		}
	}},
	{"snapshot refs invalidated by navigation", func(t *testing.T, e *pageEngine, tab string) {
		old := e.snapshot(t, tab)
		s := e.snapshot(t, tab)
		click := func(r *agentv1.ElementRef) error {
			_, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: e.tab(tab), Locator: byRef(r)}}})
			return err
		}
		if got := reason(click(ref(t, old, "button", "Press me"))); got != "SNAPSHOT_SUPERSEDED" {
			t.Errorf("older snapshot: %s", got)
		}
		e.eval(t, tab, "document.getElementById('b1').remove(); 0")
		if got := reason(click(ref(t, s, "button", "Press me"))); got != "STALE_REF" {
			t.Errorf("removed element: %s", got)
		}
		s = e.snapshot(t, tab)
		if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Reload{Reload: &agentv1.Reload{Tab: e.tab(tab)}}}); err != nil {
			t.Fatal(err)
		}
		e.clearLog(t, tab)
		if got := reason(click(ref(t, s, "button", "Under"))); got != "STALE_REF" {
			t.Errorf("after reload: %s", got)
		}
		s = e.snapshot(t, tab)
		if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: e.tab(tab), Url: e.url("/page2")}}}); err != nil {
			t.Fatal(err)
		}
		if got := reason(click(ref(t, s, "button", "Under"))); got != "STALE_REF" {
			t.Errorf("after navigation: %s", got)
		}
		s = e.snapshot(t, tab)
		if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_History{History: &agentv1.History{Tab: e.tab(tab), Direction: agentv1.HistoryDirection_HISTORY_DIRECTION_BACK}}}); err != nil {
			t.Fatal(err)
		}
		if got := e.evalString(t, tab, "location.pathname"); got != "/page" {
			t.Errorf("after back: %s", got)
		}
		if got := reason(click(ref(t, s, "button", "Second button"))); got != "STALE_REF" {
			t.Errorf("after history: %s", got)
		}
		if got := e.pageLog(t, tab); len(got) != 0 {
			t.Errorf("a stale ref clicked something: %v", got)
		}
	}},
	{"closed tab is TARGET_GONE", func(t *testing.T, e *pageEngine, _ string) {
		tab := e.newTab(t, e.url("/closing"))
		e.snapshot(t, tab)
		go func() {
			time.Sleep(700 * time.Millisecond)
			e.closeOutside(tab)
		}()
		start := time.Now()
		_, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_WaitFor{WaitFor: &agentv1.WaitFor{Tab: e.tab(tab), Selector: "#never", TimeoutMs: 15000}}})
		if got := reason(err); got != "TARGET_GONE" {
			t.Errorf("wait_for on a tab closed meanwhile: %s (%v), want TARGET_GONE", got, err)
		}
		if took := time.Since(start); took > 8*time.Second {
			t.Errorf("wait_for on a tab closed meanwhile took %v", took)
		}
		_, err = e.br.SnapshotTab(context.Background(), &agentv1.SnapshotTabRequest{Tab: e.tab(tab)})
		if got := reason(err); got != "TARGET_GONE" && got != "NOT_FOUND" {
			t.Errorf("snapshot of the closed tab: %s", got)
		}
	}},
	{"crashed tab is TARGET_GONE with cause crashed; navigate brings it back", func(t *testing.T, e *pageEngine, tab string) {
		// Another site than the table's tab (localhost, not 127.0.0.1): Firefox gives it content processes of
		// its own, so only this tab crashes.
		crashed := e.newTab(t, strings.Replace(e.url("/crashing"), "127.0.0.1", "localhost", 1))
		e.snapshot(t, crashed)
		e.crash(t, crashed)
		click := func(tab string) error {
			_, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: e.tab(tab), Locator: sel("p")}}})
			return err
		}
		start := time.Now()
		err := click(crashed)
		if got, cause := reason(err), errgrpc.Metadata(errgrpc.FromError(err))[errgrpc.MetaCause]; got != "TARGET_GONE" || cause != errgrpc.CauseCrashed {
			t.Errorf("click on a crashed tab: %s cause %q (%v), want TARGET_GONE cause crashed", got, cause, err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("click on a crashed tab took %v", took)
		}
		_, err = e.br.SnapshotTab(context.Background(), &agentv1.SnapshotTabRequest{Tab: e.tab(crashed)})
		if got, cause := reason(err), errgrpc.Metadata(errgrpc.FromError(err))[errgrpc.MetaCause]; got != "TARGET_GONE" || cause != errgrpc.CauseCrashed {
			t.Errorf("snapshot of a crashed tab: %s cause %q (%v), want TARGET_GONE cause crashed", got, cause, err)
		}
		// The table's tab, on another site, still works. It is brought to the front first: what is checked here
		// is that the crash left it working, not input to a background tab (the explicit-tab case checks that;
		// a background Chromium tab's click once did not reach its page log within 3 s in CI).
		if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_ActivateTab{ActivateTab: &agentv1.ActivateTab{Tab: e.tab(tab)}}}); err != nil {
			t.Fatalf("activate the other tab: %v", err)
		}
		if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: e.tab(tab), Locator: sel("#b1")}}}); err != nil {
			t.Errorf("click on another tab: %v", err)
		}
		// The page handles its input when the browser gets to it: wait for the log, bounded.
		var got []string
		for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if got = e.pageLog(t, tab); len(got) > 0 || time.Now().After(deadline) {
				break
			}
		}
		if len(got) != 1 || got[0] != "click b1" {
			t.Errorf("the other tab's page log: %v within 3 s, want [click b1]", got)
		}
		if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: e.tab(crashed), Url: e.url("/back")}}}); err != nil {
			t.Fatalf("navigate the crashed tab: %v", err)
		}
		if got := e.evalString(t, crashed, "location.pathname"); got != "/back" {
			t.Errorf("after navigating the crashed tab, the page is at %q", got)
		}
		if err := click(crashed); err != nil {
			t.Errorf("click after navigating the crashed tab: %v", err)
		}
	}},
	{"one-call observe of a tab: budget, cursor pages, focused ref", func(t *testing.T, e *pageEngine, tab string) {
		if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: e.tab(tab), Url: e.url("/big")}}}); err != nil {
			t.Fatal(err)
		}
		if got := e.evalString(t, tab, "document.getElementById('in150').focus(), document.activeElement.id"); got != "in150" {
			t.Fatalf("the page's active element is %q", got)
		}
		target := &agentv1.Target{Kind: &agentv1.Target_Tab{Tab: &agentv1.TabTarget{BrowserId: e.id, TabId: tab}}}
		r, err := e.observe.Observe(context.Background(), &agentv1.ObserveRequest{Target: target, Snapshot: &agentv1.SnapshotOptions{MaxBytes: 4096}})
		if err != nil {
			t.Fatalf("observe: %v", err)
		}
		snap, f := r.GetSnapshot(), r.GetFocused()
		if n := proto.Size(snap); n > 4096 || snap.GetNextCursor() == "" || snap.GetTotal() < 600 {
			t.Errorf("snapshot %d bytes, cursor %q, total %d: want a first page within 4096 bytes of 600+ elements", n, snap.GetNextCursor(), snap.GetTotal())
		}
		if img := r.GetImage(); len(img.GetData()) == 0 || img.GetWidth() <= 0 || r.GetCursor() == nil {
			t.Errorf("image %dx%d (%d bytes), cursor %v: want the screenshot and the pointer", img.GetWidth(), img.GetHeight(), len(img.GetData()), r.GetCursor())
		}
		if f.GetName() != "Field 150" || f.GetRef() == "" {
			t.Fatalf("focused %v, want Field 150 with a ref", f)
		}
		// The pages together hold every element once; the focused one is on a later page.
		seen := map[string]int{}
		page := snap
		for i := 0; ; i++ {
			for _, el := range page.GetElements() {
				seen[el.GetRef()]++
				if el.GetRef() == f.GetRef() && i == 0 {
					t.Errorf("the focused field %s is on the first page; the test wants it past it", f.GetRef())
				}
			}
			if page.GetNextCursor() == "" {
				break
			}
			if i > 500 {
				t.Fatal("more than 500 pages")
			}
			resp, err := e.br.SnapshotTab(context.Background(), &agentv1.SnapshotTabRequest{Tab: e.tab(tab), Options: &agentv1.SnapshotOptions{Cursor: page.GetNextCursor(), MaxBytes: 4096}})
			if err != nil {
				t.Fatalf("page %d: %v", i+1, err)
			}
			page = resp.GetSnapshot()
			if page.GetSnapshotId() != snap.GetSnapshotId() || proto.Size(page) > 4096 {
				t.Fatalf("page %d: snapshot %s, %d bytes", i+1, page.GetSnapshotId(), proto.Size(page))
			}
		}
		for ref, n := range seen {
			if n != 1 {
				t.Errorf("ref %s on %d pages", ref, n)
			}
		}
		if len(seen) != int(snap.GetTotal()) || seen[f.GetRef()] != 1 {
			t.Errorf("pages hold %d elements (focused %s: %d), total %d", len(seen), f.GetRef(), seen[f.GetRef()], snap.GetTotal())
		}
		if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Fill{Fill: &agentv1.Fill{Tab: e.tab(tab), Text: "observed",
			Locator: byRef(&agentv1.ElementRef{SnapshotId: snap.GetSnapshotId(), Ref: f.GetRef()})}}}); err != nil {
			t.Fatalf("fill by the focused ref: %v", err)
		}
		if got := e.evalString(t, tab, "document.getElementById('in150').value"); got != "observed" {
			t.Errorf("Field 150 holds %q after the fill", got)
		}
		e.snapshot(t, tab)
		_, err = e.br.SnapshotTab(context.Background(), &agentv1.SnapshotTabRequest{Tab: e.tab(tab), Options: &agentv1.SnapshotOptions{Cursor: snap.GetNextCursor()}})
		if got := reason(err); got != "SNAPSHOT_SUPERSEDED" {
			t.Errorf("the cursor of a superseded snapshot: %s (%v)", got, err)
		}
	}},
	{"snapshot of a subtree by ref", func(t *testing.T, e *pageEngine, tab string) {
		root := ref(t, e.snapshot(t, tab), "combobox", "Color")
		resp, err := e.br.SnapshotTab(context.Background(), &agentv1.SnapshotTabRequest{Tab: e.tab(tab), Options: &agentv1.SnapshotOptions{Subtree: root}})
		if err != nil {
			t.Fatalf("subtree snapshot: %v", err)
		}
		s := resp.GetSnapshot()
		var got []string
		for _, el := range s.GetElements() {
			got = append(got, fmt.Sprintf("%d %s %s", el.GetDepth(), el.GetRole(), el.GetName()))
		}
		if len(got) < 3 || got[0] != "0 combobox Color" || !strings.Contains(strings.Join(got, ";"), " option Green") || strings.Contains(strings.Join(got, ";"), "Press me") {
			t.Fatalf("subtree of the Color select: %q, want the combobox at depth 0 and its options only", got)
		}
		if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_SetValue{SetValue: &agentv1.SetValue{Tab: e.tab(tab),
			Locator: byRef(&agentv1.ElementRef{SnapshotId: s.GetSnapshotId(), Ref: s.GetElements()[0].GetRef()}), Value: "g"}}}); err != nil {
			t.Fatalf("set_value by the subtree's root ref: %v", err)
		}
		if got := e.evalString(t, tab, "document.getElementById('sel').value"); got != "g" {
			t.Errorf("the select holds %q", got)
		}
		_, err = e.br.SnapshotTab(context.Background(), &agentv1.SnapshotTabRequest{Tab: e.tab(tab), Options: &agentv1.SnapshotOptions{Subtree: root}})
		if got := reason(err); got != "SNAPSHOT_SUPERSEDED" {
			t.Errorf("subtree by a ref of a superseded snapshot: %s (%v)", got, err)
		}
	}},
	{"a detached snapshot supersedes nothing", func(t *testing.T, e *pageEngine, tab string) {
		s := e.snapshot(t, tab)
		resp, err := e.br.SnapshotTab(context.Background(), &agentv1.SnapshotTabRequest{Tab: e.tab(tab), Options: &agentv1.SnapshotOptions{Detached: true, MaxBytes: 2048}})
		if err != nil {
			t.Fatalf("detached snapshot: %v", err)
		}
		if d := resp.GetSnapshot(); d.GetSnapshotId() != "" || d.GetNextCursor() != "" || proto.Size(d) > 2048 || !strings.Contains(d.GetText(), "Press me") {
			t.Errorf("detached snapshot: id %q, cursor %q, %d bytes, text %q", d.GetSnapshotId(), d.GetNextCursor(), proto.Size(d), d.GetText())
		}
		e.clearLog(t, tab)
		if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: e.tab(tab), Locator: byRef(ref(t, s, "button", "Press me"))}}}); err != nil {
			t.Fatalf("click by the ref of the snapshot before the detached one: %v", err)
		}
		if got := e.pageLog(t, tab); !cmp.Equal(got, []string{"click b1"}) {
			t.Errorf("page log %v, want [click b1]", got)
		}
	}},
	{"release_all releases page keys", func(t *testing.T, e *pageEngine, tab string) {
		if _, err := e.do(t, &agentv1.ActRequest{Owner: "holder", Action: &agentv1.ActRequest_PageKeyDown{PageKeyDown: &agentv1.PageKeyDown{Tab: e.tab(tab), Key: "Shift"}}}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"Shift"}, e.router.ReleaseOwner(context.Background(), "holder")); diff != "" {
			t.Errorf("released (-want +got):\n%s", diff)
		}
		e.eval(t, tab, "document.getElementById('ta').value=''; document.getElementById('ta').focus(); 0")
		if _, err := e.do(t, &agentv1.ActRequest{Owner: "holder", Action: &agentv1.ActRequest_Press{Press: &agentv1.Press{Tab: e.tab(tab), Key: "x"}}}); err != nil {
			t.Fatal(err)
		}
		if got := e.evalString(t, tab, "document.getElementById('ta').value"); got != "x" {
			t.Errorf("after release, press x typed %q", got)
		}
	}},
}

// TestBrowserEngines runs the browser test table on Chromium (CDP) and Firefox ESR (WebDriver BiDi), each on its
// own desktop behind the engine router.
func TestBrowserEngines(t *testing.T) {
	for _, eng := range []struct {
		name  string
		start func(testing.TB) *pageEngine
	}{{"chromium", newChromiumEngine}, {"firefox", newFirefoxEngine}} {
		t.Run(eng.name, func(t *testing.T) {
			e := eng.start(t)
			for _, c := range engineCases {
				t.Run(c.name, func(t *testing.T) {
					tab := e.newTab(t, e.url("/page"))
					c.run(t, e, tab)
				})
			}
		})
	}
}
