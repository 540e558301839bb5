package broker

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	"glovebox.dev/host/internal/config"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
)

func tabTarget(browser, tab string) *agentv1.Target {
	return &agentv1.Target{Kind: &agentv1.Target_Tab{Tab: &agentv1.TabTarget{BrowserId: browser, TabId: tab}}}
}

func pageClick(tab *agentv1.TabRef) *agentv1.ActRequest {
	return &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: tab,
		Locator: &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: "#go"}}}}}
}

// TestPageTabDefault: a page action without a tab lands on the session's default tab (source SESSION); one
// naming its tab lands there (EXPLICIT) whatever the default; a session without a tab default is refused naming
// the field.
func TestPageTabDefault(t *testing.T) {
	tb, a := oneGuest(t)
	ctx := tb.as("agent")
	s, other := tb.session(t, "agent", "g1"), tb.session(t, "agent", "g1")
	if _, err := tb.SetSessionDefaults(ctx, &brokerv1.SetSessionDefaultsRequest{SessionId: s, DefaultTarget: tabTarget("chrome-9222", "TAB1")}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		session    string
		req        *agentv1.ActRequest
		wantTab    *agentv1.TabRef
		wantSource agentv1.TargetSource
	}{
		{s, pageClick(nil), &agentv1.TabRef{BrowserId: "chrome-9222", TabId: "TAB1"}, agentv1.TargetSource_TARGET_SOURCE_SESSION},
		{s, pageClick(&agentv1.TabRef{BrowserId: "chrome-9223", TabId: "TAB2"}), &agentv1.TabRef{BrowserId: "chrome-9223", TabId: "TAB2"}, agentv1.TargetSource_TARGET_SOURCE_EXPLICIT},
	}
	for i, tc := range tests {
		before := len(a.received())
		resp, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: tc.session, Request: tc.req})
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		got := a.received()[before]
		if diff := cmp.Diff(tc.wantTab, got.GetPageClick().GetTab(), protocmp.Transform()); diff != "" {
			t.Errorf("%d: agent's tab (-want +got):\n%s", i, diff)
		}
		if tt := got.GetTarget().GetTab(); tt.GetBrowserId() != tc.wantTab.GetBrowserId() || tt.GetTabId() != tc.wantTab.GetTabId() {
			t.Errorf("%d: agent's target %v", i, got.GetTarget())
		}
		if src := resp.GetResponse().GetTarget().GetSource(); src != tc.wantSource {
			t.Errorf("%d: source %v, want %v", i, src, tc.wantSource)
		}
	}
	_, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: other, Request: pageClick(nil)})
	if reason(err) != "INVALID_ARGUMENT" {
		t.Errorf("no tab and no default: %v", err)
	}
}

// TestNavigationPolicy: navigate and new_tab are held to the configured schemes and origins; a denial is
// POLICY_DENIED whatever confirm says, never reaches the agent, and is audited with its reason.
func TestNavigationPolicy(t *testing.T) {
	a := startFakeAgent(t)
	cfg := testConfig(config.Guest{Name: "g1", Endpoint: a.endpoint()})
	cfg.Policy.NavigationSchemes = []string{"https", "about"}
	cfg.Policy.NavigationOrigins = []string{"https://allowed.example", "https://127.0.0.1:8443"}
	tb := newTestBroker(t, cfg, nil)
	ctx := tb.as("agent")
	s := tb.session(t, "agent", "g1")
	tab := &agentv1.TabRef{BrowserId: "chrome-9222", TabId: "TAB1"}
	nav := func(u string, confirm bool) *agentv1.ActRequest {
		return &agentv1.ActRequest{Confirm: confirm, Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: tab, Url: u}}}
	}
	tests := []struct {
		name string
		req  *agentv1.ActRequest
		want string
	}{
		{"allowed origin", nav("https://allowed.example/path?q=1", false), ""},
		{"allowed origin default port", nav("https://ALLOWED.example:443/", false), ""},
		{"allowed ip and port", nav("https://127.0.0.1:8443/x", false), ""},
		{"about", nav("about:blank", false), ""},
		{"other origin", nav("https://evil.example/", false), "POLICY_DENIED"},
		{"other origin confirmed", nav("https://evil.example/", true), "POLICY_DENIED"},
		{"other port", nav("https://127.0.0.1:9000/", false), "POLICY_DENIED"},
		{"scheme not allowed", nav("http://allowed.example/", false), "POLICY_DENIED"},
		{"new tab elsewhere", &agentv1.ActRequest{Action: &agentv1.ActRequest_NewTab{NewTab: &agentv1.NewTab{BrowserId: "chrome-9222", Url: "https://evil.example/"}}}, "POLICY_DENIED"},
		{"new blank tab", &agentv1.ActRequest{Action: &agentv1.ActRequest_NewTab{NewTab: &agentv1.NewTab{BrowserId: "chrome-9222"}}}, ""},
		{"file refused statically", nav("file:///etc/passwd", false), "INVALID_ARGUMENT"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before, recs := len(a.received()), len(tb.audit.records("g1"))
			_, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: tc.req})
			if got := reason(err); (tc.want == "") != (err == nil) || err != nil && got != tc.want {
				t.Fatalf("err = %v (%s), want %q", err, got, tc.want)
			}
			if sent := len(a.received()) - before; (tc.want == "") != (sent == 1) {
				t.Errorf("agent received %d acts", sent)
			}
			if tc.want == "" {
				return
			}
			added := tb.audit.records("g1")[recs:]
			if len(added) != 1 || added[0].GetRpc() != RPCAct || added[0].GetReason() != tc.want {
				t.Errorf("audit records %v, want one refusal with reason %s", added, tc.want)
			}
		})
	}
}

// fakeBrowser is the fake agent's BrowserService: browser chrome-9222 with tab TAB1, chrome-9223 with TAB2.
type fakeBrowser struct {
	agentv1.UnimplementedBrowserServiceServer
}

func (fakeBrowser) ListTabs(ctx context.Context, r *agentv1.ListTabsRequest) (*agentv1.ListTabsResponse, error) {
	tab, ok := map[string]string{"chrome-9222": "TAB1", "chrome-9223": "TAB2"}[r.GetBrowserId()]
	if !ok {
		return nil, fmt.Errorf("browser %s: %w", r.GetBrowserId(), errdefs.ErrNotFound)
	}
	return &agentv1.ListTabsResponse{Tabs: []*agentv1.Tab{{TabId: tab, Url: "about:blank"}}}, nil
}

// TestDefaultTabChecked: a default tab must be one the guest lists (ListTabs through the guest connection);
// otherwise the refusal names the field, and the session keeps its previous default.
func TestDefaultTabChecked(t *testing.T) {
	tb, _ := oneGuest(t)
	ctx := tb.as("agent")
	s := tb.session(t, "agent", "g1")
	tests := []struct {
		name       string
		target     *agentv1.Target
		wantReason string
		wantField  string
	}{
		{"listed", tabTarget("chrome-9222", "TAB1"), "", ""},
		{"other browser's tab", tabTarget("chrome-9222", "TAB2"), "NOT_FOUND", "default_target.tab.tab_id"},
		{"unknown browser", tabTarget("chrome-9999", "TAB1"), "NOT_FOUND", "default_target.tab.browser_id"},
		{"not a browser id", tabTarget("http://127.0.0.1:9222", "TAB1"), "INVALID_ARGUMENT", "default_target.tab.browser_id"},
		{"no tab", tabTarget("chrome-9222", ""), "INVALID_ARGUMENT", "default_target.tab.tab_id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			se, err := tb.SetSessionDefaults(ctx, &brokerv1.SetSessionDefaultsRequest{SessionId: s, DefaultTarget: tc.target})
			if got := reason(err); got != tc.wantReason && !(tc.wantReason == "" && err == nil) {
				t.Fatalf("err = %v (%s), want %q", err, got, tc.wantReason)
			}
			if err != nil && !strings.Contains(err.Error(), tc.wantField) {
				t.Errorf("err = %v, want it to name %s", err, tc.wantField)
			}
			if err == nil {
				if diff := cmp.Diff(tc.target, se.GetDefaultTarget(), protocmp.Transform()); diff != "" {
					t.Errorf("default target (-want +got):\n%s", diff)
				}
			}
		})
	}
	// The refusals left the listed default in place.
	se, err := tb.GetSession(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tabTarget("chrome-9222", "TAB1"), se.GetDefaultTarget(), protocmp.Transform()); diff != "" {
		t.Errorf("default after refusals (-want +got):\n%s", diff)
	}
}

// TestDesktopActionTakesOnlyDesktopDefaults: a desktop action without a target in a session whose default is
// a tab or an app goes to the agent without a target (the active window, source ACTIVE), and neither the
// answer nor the audit records name the tab or app it did not act in; a window default still applies.
func TestDesktopActionTakesOnlyDesktopDefaults(t *testing.T) {
	tb, a := oneGuest(t)
	ctx := tb.as("agent")
	const window = 0x400001
	tests := []struct {
		name       string
		def        *agentv1.Target
		wantSource agentv1.TargetSource
		wantWindow uint32
	}{
		{"tab default", tabTarget("chrome-9222", "TAB1"), agentv1.TargetSource_TARGET_SOURCE_ACTIVE, 0},
		{"app default", appTarget("app:42", ""), agentv1.TargetSource_TARGET_SOURCE_ACTIVE, 0},
		{"window default", windowTarget(window), agentv1.TargetSource_TARGET_SOURCE_SESSION, window},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := tb.session(t, "agent", "g1")
			if _, err := tb.SetSessionDefaults(ctx, &brokerv1.SetSessionDefaultsRequest{SessionId: s, DefaultTarget: tc.def}); err != nil {
				t.Fatal(err)
			}
			before, recs := len(a.received()), len(tb.audit.records("g1"))
			resp, err := tb.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: click(1, 1, agentv1.MouseButton_MOUSE_BUTTON_LEFT)})
			if err != nil {
				t.Fatal(err)
			}
			got := a.received()[before].GetTarget()
			if got.GetTab() != nil || got.GetApp() != nil || got.GetWindow().GetWindowId() != tc.wantWindow {
				t.Errorf("agent's target %v, want window %d and no tab or app", got, tc.wantWindow)
			}
			if src := resp.GetResponse().GetTarget().GetSource(); src != tc.wantSource {
				t.Errorf("source %v, want %v", src, tc.wantSource)
			}
			added := tb.audit.records("g1")[recs:]
			if len(added) != 2 {
				t.Fatalf("audit records %v, want intent and outcome", added)
			}
			for _, rec := range added {
				if ft := rec.GetTarget(); ft.GetTabId() != "" || ft.GetBrowserId() != "" || ft.GetAppId() != "" || ft.GetSource() != tc.wantSource {
					t.Errorf("%v record's target %v, want source %v and no tab or app", rec.GetPhase(), ft, tc.wantSource)
				}
			}
		})
	}
}

// TestListBrowsersEngineChecked: an unknown engine for start_default is refused naming request.engine, before the
// guest is asked, and audited; chromium and firefox pass the check.
func TestListBrowsersEngineChecked(t *testing.T) {
	tb, _ := oneGuest(t)
	ctx := tb.as("agent")
	s := tb.session(t, "agent", "g1")
	recs := len(tb.audit.records("g1"))
	_, err := tb.ListBrowsers(ctx, &brokerv1.ListBrowsersRequest{SessionId: s, Request: &agentv1.ListBrowsersRequest{StartDefault: true, Engine: "webkit"}})
	if got := reason(err); got != "INVALID_ARGUMENT" || !strings.Contains(err.Error(), "request.engine: must be chromium or firefox") {
		t.Fatalf("engine webkit: %v (%s), want INVALID_ARGUMENT naming request.engine", err, got)
	}
	if added := tb.audit.records("g1")[recs:]; len(added) != 1 || added[0].GetReason() != "INVALID_ARGUMENT" {
		t.Errorf("audit records %v, want one refusal", added)
	}
	for _, e := range []string{"chromium", "firefox", ""} {
		// The fake agent has no ListBrowsers: a request that passed the check is answered UNIMPLEMENTED by it.
		_, err := tb.ListBrowsers(ctx, &brokerv1.ListBrowsersRequest{SessionId: s, Request: &agentv1.ListBrowsersRequest{Engine: e}})
		if got := reason(err); got == "INVALID_ARGUMENT" {
			t.Errorf("engine %q refused: %v", e, err)
		}
	}
}
