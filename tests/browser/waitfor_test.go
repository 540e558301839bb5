package browser_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
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

// clickTimePage records the wall-clock time (ms) of a click on its button, for the test to read over its own
// DevTools connection.
const clickTimePage = `<!doctype html><title>t</title><button id="b" style="width:200px;height:80px"
onclick="window.clickedAt = Date.now()">b</button>`

// TestWaitForDoesNotHoldTheQueue: a 10 s wait_for in one session (on a selector that never shows) does not
// delay another session's page click, which lands (by the page's own clock) within 50 ms of being sent. Before,
// wait_for held the broker's and the agent's mutation queues and the click landed after it. wait_for is also
// allowed while a human holds control. ListBrowsers with start_default reports its effect, target and timing.
func TestWaitForDoesNotHoldTheQueue(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb", "openbox", "chromium")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, clickTimePage)
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
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cc := brokerv1.NewComputerServiceClient(conn)
	sessions := brokerv1.NewSessionServiceClient(conn)
	session := func() string {
		se, err := sessions.CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: b.Guest})
		if err != nil {
			t.Fatal(err)
		}
		return se.GetSession().GetId()
	}
	waiter, clicker := session(), session()
	onTab := &agentv1.TabRef{BrowserId: browserID, TabId: tab}
	waitFor := func(ms int32) *agentv1.ActRequest {
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_WaitFor{WaitFor: &agentv1.WaitFor{Tab: onTab, Selector: "#never",
			State: agentv1.WaitState_WAIT_STATE_VISIBLE, TimeoutMs: ms}}}
	}

	waited := make(chan error, 1)
	go func() {
		_, err := cc.Act(ctx, &brokerv1.ActRequest{SessionId: waiter, Request: waitFor(10000)})
		waited <- err
	}()
	// Give the wait_for time to reach the queues (where it used to sit for its 10 s).
	time.Sleep(300 * time.Millisecond)
	click := &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: onTab,
		Locator: &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: "#b"}}}}}
	sent := time.Now()
	clicked, err := cc.Act(ctx, &brokerv1.ActRequest{SessionId: clicker, Request: click})
	if err != nil {
		t.Fatal(err)
	}
	var at float64
	dt.eval(t, tab, `window.clickedAt || 0`, &at)
	if at == 0 {
		t.Fatal("the page saw no click")
	}
	if d := time.UnixMilli(int64(at)).Sub(sent); d > 50*time.Millisecond {
		t.Errorf("the click landed %v after it was sent, behind another session's wait_for (want < 50ms); broker timing %v, agent timing %v",
			d, clicked.GetTiming(), clicked.GetResponse().GetTiming())
	}
	select {
	case err := <-waited:
		if !errorsIs(err, errdefs.ErrTimeout) {
			t.Errorf("wait_for on a selector that never shows: %v, want TIMEOUT", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the 10 s wait_for did not answer within 20 s")
	}

	control := brokerv1.NewControlServiceClient(conn)
	if _, err := control.AcquireControl(ctx, &brokerv1.AcquireControlRequest{Guest: b.Guest, Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cc.Act(ctx, &brokerv1.ActRequest{SessionId: waiter, Request: waitFor(100)}); !errorsIs(err, errdefs.ErrTimeout) {
		t.Errorf("wait_for while control is held: %v, want it to run (TIMEOUT)", err)
	}
	if _, err := control.ReleaseControl(ctx, &brokerv1.ReleaseControlRequest{Guest: b.Guest}); err != nil {
		t.Fatal(err)
	}

	lb, err := cc.ListBrowsers(ctx, &brokerv1.ListBrowsersRequest{SessionId: clicker, Request: &agentv1.ListBrowsersRequest{StartDefault: true}})
	if err != nil {
		t.Fatal(err)
	}
	r := lb.GetResponse()
	if r.GetEffect() != agentv1.Effect_EFFECT_VERIFIED || r.GetTarget().GetBrowserId() != browserID || r.GetTiming().GetTotalUs() == 0 ||
		lb.GetTiming().GetIntentAuditUs() <= 0 || lb.GetTiming().GetOutcomeAuditUs() <= 0 {
		t.Errorf("ListBrowsers(start_default): effect %v target %v timing %v broker timing %v, want VERIFIED on %s with both timings",
			r.GetEffect(), r.GetTarget(), r.GetTiming(), lb.GetTiming(), browserID)
	}
}

func errorsIs(err, class error) bool { return errors.Is(errgrpc.FromError(err), class) }
