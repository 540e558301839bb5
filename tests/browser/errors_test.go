package browser_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

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

// hygienePage has a button under a cover, a field whose maxlength cuts what is filled, and a key log.
const hygienePage = `<!doctype html><html><head><title>hygiene</title></head><body>
<button id="under" style="position:absolute;left:20px;top:20px;width:120px;height:40px" onclick="document.title='clicked'">Under</button>
<div id="cover-x7" class="overlay-q9" style="position:absolute;left:0;top:0;width:300px;height:100px"></div>
<p style="margin-top:140px"><input id="short" aria-label="Short" maxlength="3"></p>
<input id="keys" aria-label="Keys"><span id="log"></span>
<script>document.getElementById('keys').addEventListener('keydown', e => { document.getElementById('log').textContent += e.key + ' ' })</script>
</body></html>`

// TestPageErrorHygiene drives Chromium through the real broker and agent into the page errors a caller must be
// able to act on: a covered element is TARGET_COVERED with the cover (page text) only in untrusted metadata, not
// NOT_FOUND with its id and class in the message; a fill the page cut is VALUE_MISMATCH with what was read
// back in untrusted metadata, not INTERNAL; a ref the snapshot never had is NOT_FOUND; a ref from before a
// navigation is STALE_REF with cause navigated. The key names the providers' tool shapes send (ARROWLEFT,
// ENTER) are pressed both as page keys and as desktop keys. Checked in the page over the test's own DevTools
// connection. Each failed before.
func TestPageErrorHygiene(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb", "openbox", "chromium")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, hygienePage)
	}))
	t.Cleanup(srv.Close)
	d := desktop.Start(t, desktop.Options{})
	port := chromium.Start(t, d)
	dt := &devtools{port: port}
	tab := dt.newTab(t, srv.URL+"/")
	dt.eval(t, tab, `new Promise(r => document.readyState === 'complete' ? r(true) : addEventListener('load', () => r(true)))`, new(bool))
	browserID := "chrome-" + strconv.Itoa(port)
	a := agenttest.Start(t, agenttest.Options{Desktop: d, ExtraArgs: []string{"-browser-port", strconv.Itoa(port), "-browser-profile", t.TempDir()}})
	b := brokertest.Start(t, a)
	conn := dialBroker(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cc := brokerv1.NewComputerServiceClient(conn)
	se, err := brokerv1.NewSessionServiceClient(conn).CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: b.Guest})
	if err != nil {
		t.Fatal(err)
	}
	s := se.GetSession().GetId()
	tabRef := &agentv1.TabRef{BrowserId: browserID, TabId: tab}
	act := func(r *agentv1.ActRequest) error {
		_, err := cc.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: r})
		return errgrpc.FromError(err)
	}
	sel := func(css string) *agentv1.Locator {
		return &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: css}}
	}
	eval := func(expr string) string {
		var v string
		dt.eval(t, tab, expr, &v)
		return v
	}
	md := errgrpc.Metadata

	// Covered.
	err = act(&agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: tabRef, Locator: sel("#under")}}})
	if !errors.Is(err, errdefs.ErrTargetCovered) || !strings.Contains(md(err)["untrusted_cover"], "cover-x7") || !strings.Contains(md(err)["untrusted_cover"], "overlay-q9") {
		t.Errorf("click under a cover: %v (metadata %v), want TARGET_COVERED naming the cover in untrusted_cover", err, md(err))
	}
	if err != nil && (strings.Contains(err.Error(), "cover-x7") || strings.Contains(err.Error(), "overlay-q9")) {
		t.Errorf("the message %q holds the page's id or class", err)
	}
	if got := eval(`document.title`); got != "hygiene" {
		t.Errorf("page title %q after the refused click", got)
	}

	// A fill the page cut (maxlength 3).
	err = act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Fill{Fill: &agentv1.Fill{Tab: tabRef, Locator: sel("#short"), Text: "abcdef"}}})
	if !errors.Is(err, errdefs.ErrValueMismatch) || md(err)["untrusted_read_back"] != "abc" || md(err)["read_back_bytes"] != "3" {
		t.Errorf("fill cut by maxlength: %v (metadata %v), want VALUE_MISMATCH with untrusted_read_back abc", err, md(err))
	}
	if got := eval(`document.getElementById('short').value`); got != "abc" {
		t.Errorf("field value %q, want abc", got)
	}

	// Provider key names, as page keys and as desktop keys (the field has the focus).
	if err := act(&agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: tabRef, Locator: sel("#keys")}}}); err != nil {
		t.Fatalf("click the key field: %v", err)
	}
	for _, k := range []string{"ARROWLEFT", "ENTER", "ESC", "PAGEDOWN"} {
		if err := act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Press{Press: &agentv1.Press{Tab: tabRef, Key: k}}}); err != nil {
			t.Errorf("press %s: %v", k, err)
		}
	}
	if err := act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Press{Press: &agentv1.Press{Tab: tabRef, Key: "ARROWSIDEWAYS"}}}); !errors.Is(err, errdefs.ErrInvalidArgument) {
		t.Errorf("press an unknown key: %v, want INVALID_ARGUMENT", err)
	}
	for _, k := range []string{"ArrowRight", "PageUp"} {
		if err := act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Key{Key: &agentv1.Key{Combo: k}}}); err != nil {
			t.Errorf("desktop key %s: %v", k, err)
		}
	}
	want := "ArrowLeft Enter Escape PageDown ArrowRight PageUp "
	var got string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if got = eval(`document.getElementById('log').textContent`); got == want || time.Now().After(deadline) {
			break
		}
	}
	if got != want {
		t.Errorf("the page saw keys %q, want %q", got, want)
	}

	// A ref the snapshot never had; a ref from before a navigation.
	snap, err := cc.SnapshotTab(ctx, &brokerv1.SnapshotTabRequest{SessionId: s, Request: &agentv1.SnapshotTabRequest{Tab: tabRef}})
	if err != nil {
		t.Fatal(err)
	}
	sid := snap.GetResponse().GetSnapshot().GetSnapshotId()
	byRef := func(ref string) *agentv1.Locator {
		return &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: &agentv1.ElementRef{SnapshotId: sid, Ref: ref}}}
	}
	err = act(&agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: tabRef, Locator: byRef("e99999")}}})
	if !errors.Is(err, errdefs.ErrNotFound) || md(err)[errgrpc.MetaCause] != errgrpc.CauseNoSuchRef {
		t.Errorf("ref never in the snapshot: %v (metadata %v), want NOT_FOUND cause %s", err, md(err), errgrpc.CauseNoSuchRef)
	}
	short := ref(t, snap.GetResponse().GetSnapshot(), "textbox", "Short")
	if err := act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Reload{Reload: &agentv1.Reload{Tab: tabRef}}}); err != nil {
		t.Fatalf("reload: %v", err)
	}
	err = act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Fill{Fill: &agentv1.Fill{Tab: tabRef, Locator: byRef(short.GetRef()), Text: "x"}}})
	if !errors.Is(err, errdefs.ErrStaleRef) || md(err)[errgrpc.MetaCause] != errgrpc.CauseNavigated {
		t.Errorf("ref from before a reload: %v (metadata %v), want STALE_REF cause %s", err, md(err), errgrpc.CauseNavigated)
	}
}
