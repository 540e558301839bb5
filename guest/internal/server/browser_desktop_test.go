package server

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"

	"glovebox.dev/guest/internal/browser"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/testenv/chromium"
)

// reason is the ErrorInfo reason of err ("" for nil).
func reason(err error) string {
	if err == nil {
		return ""
	}
	st, _ := status.FromError(err)
	for _, d := range st.Details() {
		if r, ok := d.(interface{ GetReason() string }); ok {
			return r.GetReason()
		}
	}
	return "no reason: " + err.Error()
}

// TestBrowserPageActions drives one real Chromium (started once) through every page action and checks each
// effect in the page's own state, read over the test's own DevTools connection.
func TestBrowserPageActions(t *testing.T) {
	e := newChromeEnv(t)
	tab := e.newTab(t, e.url("/page"))

	t.Run("discovery", func(t *testing.T) {
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
		if found == nil || !found.GetDefaultWorkspace() || !strings.Contains(found.GetVersion(), "Chrome") || found.GetTabCount() < 1 {
			t.Fatalf("ListBrowsers = %v, want %s (default workspace, a version, tabs)", resp, e.id)
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
		for _, bad := range []string{"http://127.0.0.1:9222", "chromium", "chrome-0", "chrome-65536"} {
			_, err := e.br.ListTabs(context.Background(), &agentv1.ListTabsRequest{BrowserId: bad})
			if got := reason(err); got != "INVALID_ARGUMENT" {
				t.Errorf("ListTabs(%q): %s, want INVALID_ARGUMENT", bad, got)
			}
		}
		_, err = e.br.ListTabs(context.Background(), &agentv1.ListTabsRequest{BrowserId: "chrome-1"})
		if got := reason(err); got != "NOT_FOUND" {
			t.Errorf("ListTabs(chrome-1): %s, want NOT_FOUND", got)
		}
	})

	t.Run("two browsers on two ports", func(t *testing.T) {
		// A second browser on a port the agent was not configured with: found on its command line.
		port2 := chromium.Start(t, e.d)
		id2 := "chrome-" + strconv.Itoa(port2)
		resp, err := e.br.ListBrowsers(context.Background(), &agentv1.ListBrowsersRequest{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, b := range resp.GetBrowsers() {
			got[b.GetBrowserId()] = b.GetDefaultWorkspace()
		}
		if def, ok := got[e.id]; !ok || !def {
			t.Errorf("browsers %v: want %s as the default workspace", got, e.id)
		}
		if def, ok := got[id2]; !ok || def {
			t.Errorf("browsers %v: want %s, not default", got, id2)
		}
		tabs2, err := e.br.ListTabs(context.Background(), &agentv1.ListTabsRequest{BrowserId: id2})
		if err != nil || len(tabs2.GetTabs()) == 0 {
			t.Fatalf("tabs of %s: %v %v", id2, tabs2, err)
		}
		other := tabs2.GetTabs()[0].GetTabId()
		if tabs2.GetTabs()[0].GetBrowserId() != id2 || other == tab {
			t.Errorf("tab %v of the second browser", tabs2.GetTabs()[0])
		}
		// A tab of one browser named with the other's id is not found there.
		_, err = e.br.SnapshotTab(context.Background(), &agentv1.SnapshotTabRequest{Tab: &agentv1.TabRef{BrowserId: e.id, TabId: other}})
		if got := reason(err); got != "NOT_FOUND" {
			t.Errorf("tab of %s named on %s: %s, want NOT_FOUND", id2, e.id, got)
		}
		if _, err := e.br.SnapshotTab(context.Background(), &agentv1.SnapshotTabRequest{Tab: &agentv1.TabRef{BrowserId: id2, TabId: other}}); err != nil {
			t.Errorf("snapshot on %s: %v", id2, err)
		}
	})

	t.Run("click by ref", func(t *testing.T) {
		e.clearLog(t, tab)
		s := e.snapshot(t, tab)
		r := ref(t, s, "button", "Press me")
		resp, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{
			Tab: e.tab(tab), Locator: &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: r}}}}})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"click b1"}, e.pageLog(t, tab)); diff != "" {
			t.Errorf("page log (-want +got):\n%s", diff)
		}
		ft := resp.GetTarget()
		if ft.GetBrowserId() != e.id || ft.GetTabId() != tab || ft.GetElementRef() != r.GetRef() || ft.GetSnapshotId() != r.GetSnapshotId() ||
			ft.GetSource() != agentv1.TargetSource_TARGET_SOURCE_EXPLICIT {
			t.Errorf("frozen target %v", ft)
		}
	})

	t.Run("click covered is refused naming the cover", func(t *testing.T) {
		e.clearLog(t, tab)
		_, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{
			Tab: e.tab(tab), Locator: &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: "#under"}}}}})
		md := errgrpc.Metadata(errgrpc.FromError(err))
		if reason(err) != "TARGET_COVERED" || !strings.Contains(md["untrusted_cover"], `id="cover"`) || strings.Contains(err.Error(), "cover\"") {
			t.Fatalf("click under a cover: %v (metadata %v), want TARGET_COVERED naming #cover in untrusted_cover only", err, md)
		}
		if got := e.pageLog(t, tab); len(got) != 0 {
			t.Errorf("page saw %v", got)
		}
	})

	t.Run("fill unicode", func(t *testing.T) {
		want := "中文テキスト 😀👍 ok"
		resp, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Fill{Fill: &agentv1.Fill{
			Tab: e.tab(tab), Locator: &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: "#name"}}, Text: want}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := e.evalString(t, tab, "document.getElementById('name').value"); got != want {
			t.Errorf("page value %q, want %q", got, want)
		}
		if resp.GetValue() != want || resp.GetEffect() != agentv1.Effect_EFFECT_VERIFIED {
			t.Errorf("answer value %q effect %v", resp.GetValue(), resp.GetEffect())
		}
		// A second fill replaces everything.
		if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Fill{Fill: &agentv1.Fill{
			Tab: e.tab(tab), Locator: &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: "#name"}}, Text: "second"}}}); err != nil {
			t.Fatal(err)
		}
		if got := e.evalString(t, tab, "document.getElementById('name').value"); got != "second" {
			t.Errorf("after refill %q", got)
		}
	})

	t.Run("held shift across presses", func(t *testing.T) {
		e.eval(t, tab, "document.getElementById('ta').value=''; document.getElementById('ta').focus()")
		e.clearLog(t, tab)
		steps := []*agentv1.ActRequest{
			{Action: &agentv1.ActRequest_PageKeyDown{PageKeyDown: &agentv1.PageKeyDown{Tab: e.tab(tab), Key: "Shift"}}},
			{Action: &agentv1.ActRequest_Press{Press: &agentv1.Press{Tab: e.tab(tab), Key: "a"}}},
			{Action: &agentv1.ActRequest_Press{Press: &agentv1.Press{Tab: e.tab(tab), Key: "b"}}},
			{Action: &agentv1.ActRequest_PageKeyUp{PageKeyUp: &agentv1.PageKeyUp{Tab: e.tab(tab), Key: "Shift"}}},
			{Action: &agentv1.ActRequest_Press{Press: &agentv1.Press{Tab: e.tab(tab), Key: "c"}}},
		}
		for _, r := range steps {
			if _, err := e.do(t, r); err != nil {
				t.Fatal(err)
			}
		}
		want := []string{"down Shift shift", "down A shift", "down B shift", "down c"}
		if diff := cmp.Diff(want, e.pageLog(t, tab)); diff != "" {
			t.Errorf("keys seen (-want +got):\n%s", diff)
		}
		if got := e.evalString(t, tab, "document.getElementById('ta').value"); got != "ABc" {
			t.Errorf("textarea %q, want ABc", got)
		}
	})

	t.Run("set_value input and select", func(t *testing.T) {
		e.clearLog(t, tab)
		for _, c := range []struct{ sel, value, want string }{{"#name", "set directly", "set directly"}, {"#sel", "g", "g"}, {"#sel", "Red", "r"}} {
			resp, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_SetValue{SetValue: &agentv1.SetValue{
				Tab: e.tab(tab), Locator: &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: c.sel}}, Value: c.value}}})
			if err != nil {
				t.Fatal(err)
			}
			if got := e.evalString(t, tab, "document.querySelector('"+c.sel+"').value"); got != c.want || resp.GetValue() != c.want {
				t.Errorf("%s = %q (answered %q), want %q", c.sel, got, resp.GetValue(), c.want)
			}
		}
		want := []string{"input name", "change name", "input sel", "change sel", "input sel", "change sel"}
		if diff := cmp.Diff(want, e.pageLog(t, tab)); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
		_, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_SetValue{SetValue: &agentv1.SetValue{
			Tab: e.tab(tab), Locator: &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: "#sel"}}, Value: "blue"}}})
		if got := reason(err); got != "NOT_FOUND" {
			t.Errorf("missing option: %s, want NOT_FOUND", got)
		}
	})

	t.Run("select_text then type replaces the selection", func(t *testing.T) {
		e.eval(t, tab, "document.getElementById('ta').value = 'one two three two'")
		resp, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageSelectText{PageSelectText: &agentv1.PageSelectText{
			Tab: e.tab(tab), Locator: &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: "#ta"}},
			Match: &agentv1.TextMatch{Prefix: "three ", Text: "two"}}}})
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
			Tab: e.tab(tab), Locator: &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: "#ta"}}, Match: &agentv1.TextMatch{Text: "o"}}}})
		if got := reason(err); got != "TARGET_AMBIGUOUS" {
			t.Errorf("several matches: %s", got)
		}
	})

	t.Run("paste consumed vs default", func(t *testing.T) {
		e.clearLog(t, tab)
		e.eval(t, tab, "document.getElementById('ta').value = ''")
		resp, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Paste{Paste: &agentv1.Paste{
			Tab: e.tab(tab), Locator: &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: "#handled"}}, Text: "plain", Html: "<b>rich</b>"}}})
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
		resp, err = e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Paste{Paste: &agentv1.Paste{
			Tab: e.tab(tab), Locator: &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: "#ta"}}, Text: "pasted 中"}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := e.evalString(t, tab, "document.getElementById('ta').value"); got != "pasted 中" || resp.GetPastePath() != agentv1.PastePath_PASTE_PATH_INSERT_TEXT {
			t.Errorf("default paste: %q via %v", got, resp.GetPastePath())
		}
		e.eval(t, tab, "document.getElementById('ce').textContent = ''")
		resp, err = e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Paste{Paste: &agentv1.Paste{
			Tab: e.tab(tab), Locator: &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: "#ce"}}, Text: "x", Html: "<b>bold</b>"}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := e.evalString(t, tab, "document.getElementById('ce').innerHTML"); got != "<b>bold</b>" || resp.GetPastePath() != agentv1.PastePath_PASTE_PATH_INSERT_HTML {
			t.Errorf("contenteditable paste: %q via %v", got, resp.GetPastePath())
		}
	})

	t.Run("scroll pages in a container", func(t *testing.T) {
		resp, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageScroll{PageScroll: &agentv1.PageScroll{
			Tab: e.tab(tab), Locator: &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: "#box"}}, Dy: 2, Unit: agentv1.ScrollUnit_SCROLL_UNIT_PAGES}}})
		if err != nil {
			t.Fatal(err)
		}
		got := e.eval(t, tab, "document.getElementById('box').scrollTop")
		if got != "200" || resp.GetScrollBefore().GetY() != 0 || resp.GetScrollAfter().GetY() != 200 {
			t.Errorf("scrollTop %s, answered %v -> %v; want 0 -> 200", got, resp.GetScrollBefore(), resp.GetScrollAfter())
		}
	})

	t.Run("explicit tab while another is active", func(t *testing.T) {
		other := e.newTab(t, e.url("/other"))
		if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_ActivateTab{ActivateTab: &agentv1.ActivateTab{Tab: e.tab(other)}}}); err != nil {
			t.Fatal(err)
		}
		if got := e.evalString(t, other, "document.visibilityState"); got != "visible" {
			t.Fatalf("other tab %s, want visible (active)", got)
		}
		e.clearLog(t, tab)
		e.clearLog(t, other)
		if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{
			Tab: e.tab(tab), Locator: &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: "#b1"}}}}}); err != nil {
			t.Fatal(err)
		}
		if got := e.pageLog(t, tab); !cmp.Equal(got, []string{"click b1"}) {
			t.Errorf("named tab saw %v", got)
		}
		if got := e.pageLog(t, other); len(got) != 0 {
			t.Errorf("active tab saw %v", got)
		}
		// Refs of one tab are refused on another.
		s := e.snapshot(t, tab)
		_, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{
			Tab: e.tab(other), Locator: &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: ref(t, s, "button", "Press me")}}}}})
		if got := reason(err); got != "STALE_REF" {
			t.Errorf("ref of another tab: %s, want STALE_REF", got)
		}
	})

	t.Run("url matching two tabs is ambiguous", func(t *testing.T) {
		u := e.url("/twice")
		a, b := e.newTab(t, u), e.newTab(t, u)
		_, err := e.br.GetBrowser(context.Background(), &agentv1.GetBrowserRequest{Url: u})
		if got := reason(err); got != "TARGET_AMBIGUOUS" {
			t.Fatalf("GetBrowser(url of two tabs): %s", got)
		}
		cands := strings.Split(errgrpc.Metadata(errgrpc.FromError(err))["candidates"], ",")
		want := map[string]bool{e.id + "/" + a: true, e.id + "/" + b: true}
		if len(cands) != 2 || !want[cands[0]] || !want[cands[1]] {
			t.Errorf("candidates %v, want %s/%s and %s/%s", cands, e.id, a, e.id, b)
		}
		one, err := e.br.GetBrowser(context.Background(), &agentv1.GetBrowserRequest{Url: e.url("/page")})
		if err != nil || one.GetTab().GetTabId() != tab {
			t.Errorf("GetBrowser(/page) = %v, %v; want tab %s", one, err, tab)
		}
	})

	t.Run("stale and superseded refs", func(t *testing.T) {
		old := e.snapshot(t, tab)
		s := e.snapshot(t, tab)
		click := func(r *agentv1.ElementRef) error {
			_, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{
				Tab: e.tab(tab), Locator: &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: r}}}}})
			return err
		}
		if got := reason(click(ref(t, old, "button", "Press me"))); got != "SNAPSHOT_SUPERSEDED" {
			t.Errorf("older snapshot: %s", got)
		}
		// The element leaves the document: its ref is stale, never renumbered.
		e.eval(t, tab, "document.getElementById('b1').remove(); 0")
		if got := reason(click(ref(t, s, "button", "Press me"))); got != "STALE_REF" {
			t.Errorf("removed element: %s", got)
		}
		s = e.snapshot(t, tab)
		if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Reload{Reload: &agentv1.Reload{Tab: e.tab(tab), Hard: true}}}); err != nil {
			t.Fatal(err)
		}
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
	})

	t.Run("refused statically", func(t *testing.T) {
		for _, u := range []string{"file:///etc/passwd", "javascript:alert(1)", "data:text/html,<b>x</b>", "chrome://settings", "/relative"} {
			_, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: e.tab(tab), Url: u}}})
			if diff := cmp.Diff([]string{"action.navigate.url"}, violatedFields(t, err)); diff != "" {
				t.Errorf("navigate %s (-want +got):\n%s", u, diff)
			}
		}
		_, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_SetViewport{SetViewport: &agentv1.SetViewport{Tab: e.tab(tab), Width: 319, Height: 239}}})
		if diff := cmp.Diff([]string{"action.set_viewport.width", "action.set_viewport.height"}, violatedFields(t, err)); diff != "" {
			t.Errorf("small viewport (-want +got):\n%s", diff)
		}
		_, err = e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_SecondaryAction{SecondaryAction: &agentv1.SecondaryAction{
			Tab: e.tab(tab), Locator: &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: "button"}}}}})
		if got := reason(err); got != "UNSUPPORTED_ACTION" {
			t.Errorf("secondary_action: %s", got)
		}
	})

	t.Run("viewport, capture, extract", func(t *testing.T) {
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
		dom, err := e.br.Extract(context.Background(), &agentv1.ExtractRequest{Tab: e.tab(tab), Kind: agentv1.ExtractKind_EXTRACT_KIND_DOM, MaxBytes: 100})
		if err != nil || len(dom.GetContent()) > 100 || !dom.GetTruncated() || !strings.HasPrefix(dom.GetContent(), "<html") {
			t.Errorf("dom extract %q truncated=%v err=%v", dom.GetContent(), dom.GetTruncated(), err)
		}
	})

	t.Run("release_all releases page keys", func(t *testing.T) {
		if _, err := e.do(t, &agentv1.ActRequest{Owner: "holder", Action: &agentv1.ActRequest_PageKeyDown{PageKeyDown: &agentv1.PageKeyDown{Tab: e.tab(tab), Key: "Shift"}}}); err != nil {
			t.Fatal(err)
		}
		released := e.backend.ReleaseOwner(context.Background(), "holder")
		if diff := cmp.Diff([]string{"Shift"}, released); diff != "" {
			t.Errorf("released (-want +got):\n%s", diff)
		}
		e.eval(t, tab, "document.getElementById('ta').value=''; document.getElementById('ta').focus()")
		if _, err := e.do(t, &agentv1.ActRequest{Owner: "holder", Action: &agentv1.ActRequest_Press{Press: &agentv1.Press{Tab: e.tab(tab), Key: "x"}}}); err != nil {
			t.Fatal(err)
		}
		if got := e.evalString(t, tab, "document.getElementById('ta').value"); got != "x" {
			t.Errorf("after release, press x typed %q", got)
		}
	})
}

// TestBrowserCloseKeepsTabs proves that closing our DevTools connection (the backend) never closes the
// user's tab, even one we attached to and acted on.
func TestBrowserCloseKeepsTabs(t *testing.T) {
	e := newChromeEnv(t)
	tab := e.newTab(t, e.url("/page"))
	e.snapshot(t, tab)
	b2 := browser.New(browser.Config{Ports: []int{e.port}})
	if _, err := b2.SnapshotTab(context.Background(), &agentv1.SnapshotTabRequest{Tab: e.tab(tab)}); err != nil {
		t.Fatal(err)
	}
	b2.Close()
	e.backend.Close()
	time.Sleep(300 * time.Millisecond)
	if got := e.evalString(t, tab, "document.title"); got != "Glovebox test" {
		t.Errorf("tab title after close: %q", got)
	}
	tabs, err := browser.New(browser.Config{Ports: []int{e.port}}).ListTabs(context.Background(), &agentv1.ListTabsRequest{BrowserId: e.id})
	if err != nil {
		t.Fatal(err)
	}
	ok := false
	for _, x := range tabs.GetTabs() {
		ok = ok || x.GetTabId() == tab
	}
	if !ok {
		t.Errorf("tab %s gone after closing our connections: %v", tab, tabs)
	}
}
