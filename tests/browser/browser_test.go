package browser_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/chromium"
	"glovebox.dev/shared/testenv/desktop"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// canary is the text filled; it must never reach the audit files in clear.
const canary = "canary fill z7q3 東京🙂"

// formPage keeps its state in the DOM, where the test reads it over its own DevTools connection.
const formPage = `<!doctype html><html><head><title>E2E form</title></head><body>
<button id="b" onclick="document.getElementById('count').textContent = String(++window.__n)">Press me</button>
<span id="count">0</span>
<p><input id="name" aria-label="Name"></p>
<script>window.__n = 0</script></body></html>`

// TestBrowserThroughBroker drives a real Chromium through the real broker and agent: a session's default tab,
// ListBrowsers/ListTabs, SnapshotTab, click by ref and fill, checked in the page over the test's own
// DevTools connection and in the audit files (target frozen from the SESSION, filled text only as
// length+HMAC); the broker's navigation policy refuses other schemes and origins; page actions are
// CONTROL_HELD while a human holds control.
func TestBrowserThroughBroker(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb", "openbox", "chromium")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/form" {
			fmt.Fprint(w, formPage)
			return
		}
		fmt.Fprintf(w, `<!doctype html><title>%s</title><p>%s</p>`, r.URL.Path, r.URL.Path)
	}))
	t.Cleanup(srv.Close)

	d := desktop.Start(t, desktop.Options{})
	port := chromium.Start(t, d)
	dt := &devtools{port: port}
	tab := dt.newTab(t, srv.URL+"/form")
	dt.eval(t, tab, `new Promise(r => document.readyState === 'complete' ? r(true) : addEventListener('load', () => r(true)))`, new(bool))
	browserID := "chrome-" + strconv.Itoa(port)

	a := agenttest.Start(t, agenttest.Options{Desktop: d, ExtraArgs: []string{"-browser-port", strconv.Itoa(port), "-browser-profile", t.TempDir()}})
	b := brokertest.StartConfig(t, a, func(cfg map[string]any) {
		cfg["policy"] = map[string]any{"navigation_schemes": []string{"http", "about"}, "navigation_origins": []string{srv.URL}}
	})
	conn := dialBroker(t, b)
	ctx := context.Background()
	cc := brokerv1.NewComputerServiceClient(conn)
	se, err := brokerv1.NewSessionServiceClient(conn).CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: b.Guest})
	if err != nil {
		t.Fatal(err)
	}
	s := se.GetSession().GetId()
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	count := func() string {
		var c string
		dt.eval(t, tab, `document.getElementById('count').textContent`, &c)
		return c
	}

	// The browser and the tab, found through the broker.
	lb, err := cc.ListBrowsers(ctx, &brokerv1.ListBrowsersRequest{SessionId: s})
	must("ListBrowsers", err)
	var found *agentv1.Browser
	for _, br := range lb.GetResponse().GetBrowsers() {
		if br.GetBrowserId() == browserID {
			found = br
		}
	}
	if found == nil || found.GetTabCount() < 2 || !found.GetDefaultWorkspace() {
		t.Fatalf("ListBrowsers: %v, want %s (the default workspace browser) with at least 2 tabs", lb.GetResponse().GetBrowsers(), browserID)
	}
	lt, err := cc.ListTabs(ctx, &brokerv1.ListTabsRequest{SessionId: s, Request: &agentv1.ListTabsRequest{BrowserId: browserID}})
	must("ListTabs", err)
	var tabURL string
	for _, tb := range lt.GetResponse().GetTabs() {
		if tb.GetTabId() == tab {
			tabURL = tb.GetUrl()
		}
	}
	if tabURL != srv.URL+"/form" {
		t.Fatalf("ListTabs: %v, want tab %s on %s/form", lt.GetResponse().GetTabs(), tab, srv.URL)
	}

	// The session's default tab: one the guest does not list is refused naming the field.
	sessions := brokerv1.NewSessionServiceClient(conn)
	_, err = sessions.SetSessionDefaults(ctx, &brokerv1.SetSessionDefaultsRequest{SessionId: s, DefaultTarget: tabTarget(browserID, "NO-SUCH-TAB")})
	if !errors.Is(errgrpc.FromError(err), errdefs.ErrNotFound) || !strings.Contains(err.Error(), "default_target.tab.tab_id") {
		t.Errorf("default tab not on the guest: %v, want NOT_FOUND naming default_target.tab.tab_id", err)
	}
	_, err = sessions.SetSessionDefaults(ctx, &brokerv1.SetSessionDefaultsRequest{SessionId: s, DefaultTarget: tabTarget(browserID, tab)})
	must("SetSessionDefaults", err)

	// Snapshot, click and fill on the default tab.
	snap, err := cc.SnapshotTab(ctx, &brokerv1.SnapshotTabRequest{SessionId: s})
	must("SnapshotTab", err)
	button, field := ref(t, snap.GetResponse().GetSnapshot(), "button", "Press me"), ref(t, snap.GetResponse().GetSnapshot(), "textbox", "Name")
	clickReq := &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Locator: &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: button}}}}}
	fillReq := &agentv1.ActRequest{Action: &agentv1.ActRequest_Fill{Fill: &agentv1.Fill{Locator: &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: field}}, Text: canary}}}
	wantTarget := &agentv1.FrozenTarget{BrowserId: browserID, TabId: tab, Source: agentv1.TargetSource_TARGET_SOURCE_SESSION}
	frozen := protocmp.FilterField(&agentv1.FrozenTarget{}, "generation", cmp.Ignore())
	onlyTab := protocmp.IgnoreFields(&agentv1.FrozenTarget{}, "snapshot_id", "element_ref")
	for _, r := range []*agentv1.ActRequest{clickReq, fillReq} {
		resp, err := cc.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: r})
		must(fmt.Sprintf("Act %T", r.GetAction()), err)
		if diff := cmp.Diff(wantTarget, resp.GetResponse().GetTarget(), protocmp.Transform(), frozen, onlyTab); diff != "" {
			t.Errorf("Act %T target (-want +got):\n%s", r.GetAction(), diff)
		}
	}
	var value string
	dt.eval(t, tab, `document.getElementById('name').value`, &value)
	if got := count(); got != "1" || value != canary {
		t.Errorf("page after click and fill: count %q, field %q; want 1 and the text filled", got, value)
	}

	// Navigation policy: another origin and another scheme are refused; the page stays.
	for _, u := range []string{"http://127.0.0.1:1/elsewhere", strings.Replace(srv.URL, "http://", "https://", 1) + "/form"} {
		_, err := cc.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: &agentv1.ActRequest{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Url: u}}}})
		if !errors.Is(errgrpc.FromError(err), errdefs.ErrPolicyDenied) {
			t.Errorf("navigate %s: %v, want POLICY_DENIED", u, err)
		}
	}
	var href string
	dt.eval(t, tab, `location.href`, &href)
	if href != srv.URL+"/form" {
		t.Errorf("page at %s after refused navigations", href)
	}

	// Control held: page actions refused, observations served, the page untouched.
	ctl := brokerv1.NewControlServiceClient(conn)
	_, err = ctl.AcquireControl(ctx, &brokerv1.AcquireControlRequest{Guest: b.Guest, Reason: "human at the console"})
	must("AcquireControl", err)
	for _, r := range []*agentv1.ActRequest{clickReq, fillReq} {
		if _, err := cc.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: r}); !errors.Is(errgrpc.FromError(err), errdefs.ErrControlHeld) {
			t.Errorf("Act %T while held: %v, want CONTROL_HELD", r.GetAction(), err)
		}
	}
	_, err = cc.SnapshotTab(ctx, &brokerv1.SnapshotTabRequest{SessionId: s})
	must("SnapshotTab while held", err)
	if got := count(); got != "1" {
		t.Errorf("count %q after clicks while held, want 1", got)
	}
	_, err = ctl.ReleaseControl(ctx, &brokerv1.ReleaseControlRequest{Guest: b.Guest})
	must("ReleaseControl", err)

	// An allowed navigation goes through.
	_, err = cc.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: &agentv1.ActRequest{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Url: srv.URL + "/second"}}}})
	must("navigate to an allowed origin", err)
	dt.eval(t, tab, `location.href`, &href)
	if href != srv.URL+"/second" {
		t.Errorf("page at %s after navigate, want %s/second", href, srv.URL)
	}

	checkAudit(t, b, browserID, tab)
}

// checkAudit checks the audit files: the click and fill records carry the frozen tab with source SESSION, the
// filled text appears only as length+HMAC (the test computes the HMAC with the key file), the policy and
// control refusals are recorded with their reasons, and the canary appears nowhere in clear.
func checkAudit(t *testing.T, b *brokertest.Broker, browserID, tab string) {
	t.Helper()
	key, err := os.ReadFile(b.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(canary))
	wantText := map[string]any{"length": float64(len(canary)), "hmac_sha256": hex.EncodeToString(mac.Sum(nil))}

	type seen struct {
		action, phase, reason string
	}
	var got []seen
	for _, rec := range brokertest.AuditRecords(t, b.AuditDir, b.Guest) {
		if rec.GetRpc() != "/glovebox.broker.v1.ComputerService/Act" {
			continue
		}
		args := rec.GetArgs().AsMap()
		action := ""
		for _, name := range []string{"page_click", "fill", "navigate"} {
			if args[name] != nil {
				action = name
			}
		}
		if action == "" {
			continue
		}
		got = append(got, seen{action, rec.GetPhase().String(), rec.GetReason()})
		if action == "navigate" || rec.GetReason() != "" {
			continue
		}
		tgt := rec.GetTarget()
		if tgt.GetBrowserId() != browserID || tgt.GetTabId() != tab || tgt.GetSource() != agentv1.TargetSource_TARGET_SOURCE_SESSION {
			t.Errorf("audit %d %s %v: target %v, want %s/%s from SESSION", rec.GetSeq(), action, rec.GetPhase(), tgt, browserID, tab)
		}
		if action == "fill" {
			text, _ := args["fill"].(map[string]any)["text"]
			if diff := cmp.Diff(wantText, text); diff != "" {
				t.Errorf("audit %d fill.text (-want +got):\n%s", rec.GetSeq(), diff)
			}
		}
	}
	const intent, outcome, complete = "AUDIT_PHASE_INTENT", "AUDIT_PHASE_OUTCOME", "AUDIT_PHASE_COMPLETE"
	want := []seen{
		{"page_click", intent, ""}, {"page_click", outcome, ""},
		{"fill", intent, ""}, {"fill", outcome, ""},
		{"navigate", complete, "POLICY_DENIED"}, {"navigate", complete, "POLICY_DENIED"},
		{"page_click", complete, "CONTROL_HELD"}, {"fill", complete, "CONTROL_HELD"},
		{"navigate", intent, ""}, {"navigate", outcome, ""},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(seen{})); diff != "" {
		t.Errorf("audited page actions (-want +got):\n%s", diff)
	}
	text := auditText(t, b.AuditDir)
	for _, needle := range []string{canary, "z7q3", "東京", "canary"} {
		if strings.Contains(text, needle) {
			t.Errorf("the audit files contain %q", needle)
		}
	}
}

func tabTarget(browserID, tab string) *agentv1.Target {
	return &agentv1.Target{Kind: &agentv1.Target_Tab{Tab: &agentv1.TabTarget{BrowserId: browserID, TabId: tab}}}
}

// ref finds the element with role and name in s.
func ref(t testing.TB, s *agentv1.Snapshot, role, name string) *agentv1.ElementRef {
	t.Helper()
	for _, el := range s.GetElements() {
		if el.GetRole() == role && el.GetName() == name {
			return &agentv1.ElementRef{SnapshotId: s.GetSnapshotId(), Ref: el.GetRef()}
		}
	}
	t.Fatalf("no %s %q in the snapshot:\n%s", role, name, s.GetText())
	return nil
}
