package broker_test

import (
	"bufio"
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/status"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/agenttest"
)

// debianPython is Debian's interpreter, which has python3-gi.
const debianPython = "/usr/bin/python3"

// effectsApp is the GTK window of testdata/effects_app.py: it prints every click and text change with the
// wall-clock time, so what landed and when is read from the app, not from the agent.
type effectsApp struct {
	window uint32
	// geometry is the window's client area from xwininfo (not from the agent).
	x, y, w, h int32
	mu         sync.Mutex
	lines      []string
}

// startEffects starts an agent on a fresh desktop, a broker in front of it and the GTK app.
func startEffects(t *testing.T) (*agenttest.Agent, *brokerProc) {
	t.Helper()
	testenv.NeedCommands(t, "Xvfb", "openbox", "xdotool", "xwininfo", debianPython)
	a := agenttest.Start(t, agenttest.Options{})
	br := startBroker(t, map[string]string{"vm1": "unix://" + a.Socket})
	return a, br
}

// launchApp starts the GTK app on a's desktop and waits for its window.
func launchApp(t *testing.T, a *agenttest.Agent) *effectsApp {
	t.Helper()
	title := fmt.Sprintf("gb-effects-%d", time.Now().UnixNano())
	c := a.Desktop.Command(debianPython, filepath.Join(agenttest.RepoRoot(t), "tests/broker/testdata/effects_app.py"), title)
	c.Env = append(c.Env, "GTK_A11Y=none")
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	a.Desktop.StartProgram(t, c)
	app := &effectsApp{}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			app.mu.Lock()
			app.lines = append(app.lines, sc.Text())
			app.mu.Unlock()
		}
	}()
	app.window = a.Desktop.WaitWindow(t, title, 20*time.Second)
	app.waitFor(t, "ready", 10*time.Second)
	// Let the first paint and the window manager's placement finish before measuring anything.
	app.settle(t, a)
	return app
}

// settle waits until xwininfo reports the same geometry twice in a row, and records it.
func (app *effectsApp) settle(t *testing.T, a *agenttest.Agent) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var last [4]int32
	for {
		out, err := a.Desktop.Command("xwininfo", "-id", strconv.FormatUint(uint64(app.window), 10)).Output()
		if err != nil {
			t.Fatalf("xwininfo: %v", err)
		}
		var g [4]int32
		for _, line := range strings.Split(string(out), "\n") {
			k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
			if !ok {
				continue
			}
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			switch k {
			case "Absolute upper-left X":
				g[0] = int32(n)
			case "Absolute upper-left Y":
				g[1] = int32(n)
			case "Width":
				g[2] = int32(n)
			case "Height":
				g[3] = int32(n)
			}
		}
		if g == last && g[2] > 0 {
			app.x, app.y, app.w, app.h = g[0], g[1], g[2], g[3]
			return
		}
		last = g
		if time.Now().After(deadline) {
			t.Fatalf("window geometry never settled (last %v)", g)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// snapshot returns the lines printed so far.
func (app *effectsApp) snapshot() []string {
	app.mu.Lock()
	defer app.mu.Unlock()
	return append([]string(nil), app.lines...)
}

// waitFor waits until the app printed a line starting with prefix and returns it.
func (app *effectsApp) waitFor(t *testing.T, prefix string, timeout time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		for _, l := range app.snapshot() {
			if strings.HasPrefix(l, prefix) {
				return l
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("app did not print %q within %v; it printed %q", prefix, timeout, app.snapshot())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stamp is the time at the end of a printed line.
func stamp(t *testing.T, line string) time.Time {
	t.Helper()
	f := strings.Fields(line)
	ns, err := strconv.ParseInt(f[len(f)-1], 10, 64)
	if err != nil {
		t.Fatalf("line %q has no time: %v", line, err)
	}
	return time.Unix(0, ns)
}

// button is the center of the app's button (the upper 150 rows of its 300x200 window).
func (app *effectsApp) button() *agentv1.Point {
	return &agentv1.Point{X: app.x + app.w/2, Y: app.y + 60}
}

// entry is a point on the app's entry (below the button).
func (app *effectsApp) entry() *agentv1.Point {
	return &agentv1.Point{X: app.x + app.w/2, Y: app.y + app.h - 12}
}

func reasonOf(err error) agentv1.ErrorReason { return errdefs.Reason(errgrpc.FromError(err)) }

// TestWaitDoesNotHoldTheQueue: a 10 s wait in one session does not delay another session's click, which lands
// (by the app's own clock) within 50 ms of being sent. Before, the wait held the guest's mutation queue and the
// click landed after it, 10 s later. A wait is also allowed while a human holds control, and in an observe-only
// session, where mutations are refused.
func TestWaitDoesNotHoldTheQueue(t *testing.T) {
	a, br := startEffects(t)
	app := launchApp(t, a)
	cc := brokerv1.NewComputerServiceClient(br.Conn)
	waiter, clicker := br.session(t, "vm1"), br.session(t, "vm1")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	waited := make(chan error, 1)
	go func() {
		_, err := cc.Act(ctx, act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Wait{Wait: &agentv1.Wait{DurationMs: 10000}}}, waiter))
		waited <- err
	}()
	// Give the wait time to reach the broker's queue (where it used to sit for its 10 s).
	time.Sleep(300 * time.Millisecond)
	click := clickAt(app.button().X, app.button().Y)
	click.WatchMs = -1
	sent := time.Now()
	clicked, err := cc.Act(ctx, act(click, clicker))
	if err != nil {
		t.Fatal(err)
	}
	landed := stamp(t, app.waitFor(t, "click 1 ", 15*time.Second))
	if d := landed.Sub(sent); d > 50*time.Millisecond {
		t.Errorf("the click landed %v after it was sent, behind another session's wait (want < 50ms); broker timing %v, agent timing %v",
			d, clicked.GetTiming(), clicked.GetResponse().GetTiming())
	}
	select {
	case err := <-waited:
		if err != nil {
			t.Errorf("wait: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the 10 s wait did not answer within 20 s")
	}

	// Observations while a human holds control, and in an observe-only session.
	control := brokerv1.NewControlServiceClient(br.Conn)
	if _, err := control.AcquireControl(ctx, &brokerv1.AcquireControlRequest{Guest: "vm1", Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	wait := &agentv1.ActRequest{Action: &agentv1.ActRequest_Wait{Wait: &agentv1.Wait{DurationMs: 10}}}
	if _, err := cc.Act(ctx, act(wait, waiter)); err != nil {
		t.Errorf("wait while control is held: %v", err)
	}
	if _, err := cc.Act(ctx, act(clickAt(app.button().X, app.button().Y), waiter)); reasonOf(err) != agentv1.ErrorReason_ERROR_REASON_CONTROL_HELD {
		t.Errorf("click while control is held: %v, want CONTROL_HELD", err)
	}
	if _, err := control.ReleaseControl(ctx, &brokerv1.ReleaseControlRequest{Guest: "vm1"}); err != nil {
		t.Fatal(err)
	}
	obs, err := brokerv1.NewSessionServiceClient(br.Conn).CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: "vm1", Mode: brokerv1.SessionMode_SESSION_MODE_OBSERVE})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cc.Act(ctx, act(wait, obs.GetSession().GetId())); err != nil {
		t.Errorf("wait in an observe-only session: %v", err)
	}
	if got := len(app.snapshot()); got != 2 { // "ready" and one click
		t.Errorf("app printed %q, want only the one click", app.snapshot())
	}
}

// TestPausesBounded: an action whose pauses add up to more than 60 s would hold the queue past any deadline;
// it is refused naming the field, and nothing is typed.
func TestPausesBounded(t *testing.T) {
	a, br := startEffects(t)
	app := launchApp(t, a)
	cc := brokerv1.NewComputerServiceClient(br.Conn)
	s := br.session(t, "vm1")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := cc.Act(ctx, act(clickAt(app.entry().X, app.entry().Y), s)); err != nil {
		t.Fatal(err)
	}
	long := &agentv1.ActRequest{Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: strings.Repeat("x", 61), DelayMs: 1000}}}
	_, err := cc.Act(ctx, act(long, s))
	if reasonOf(err) != agentv1.ErrorReason_ERROR_REASON_INVALID_ARGUMENT || !strings.Contains(status.Convert(err).Message(), "request.action.type.delay_ms") {
		t.Fatalf("61 characters at 1 s each: %v, want INVALID_ARGUMENT naming request.action.type.delay_ms", err)
	}
	drag := &agentv1.ActRequest{Action: &agentv1.ActRequest_Drag{Drag: &agentv1.Drag{StepDelayMs: 100}}}
	for i := range 601 {
		drag.GetDrag().Path = append(drag.GetDrag().Path, &agentv1.Point{X: int32(10 + i%100), Y: 10})
	}
	if _, err := cc.Act(ctx, act(drag, s)); reasonOf(err) != agentv1.ErrorReason_ERROR_REASON_INVALID_ARGUMENT || !strings.Contains(status.Convert(err).Message(), "request.action.drag.step_delay_ms") {
		t.Fatalf("601 points at 100 ms each: %v, want INVALID_ARGUMENT naming request.action.drag.step_delay_ms", err)
	}
	// A marker typed after the refusals is the first text the entry sees.
	if _, err := cc.Act(ctx, act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: "k"}}}, s)); err != nil {
		t.Fatal(err)
	}
	if first := app.waitFor(t, "text ", 10*time.Second); !strings.HasPrefix(first, "text k ") {
		t.Errorf("the entry's first text is %q, want the marker alone (nothing of the refused request)", first)
	}
}

// TestEffectEvidence: a click on a GTK button that repaints reports DONE with a damage box inside the window
// (geometry from xwininfo) around the click; a click on the empty desktop and a key that does nothing report
// NO_VISIBLE_CHANGE. Before, every action reported DONE and no box.
func TestEffectEvidence(t *testing.T) {
	a, br := startEffects(t)
	cc := brokerv1.NewComputerServiceClient(br.Conn)
	s := br.session(t, "vm1")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	do := func(r *agentv1.ActRequest) *agentv1.ActResponse {
		t.Helper()
		resp, err := cc.Act(ctx, act(r, s))
		if err != nil {
			t.Fatal(err)
		}
		return resp.GetResponse()
	}

	// The empty desktop: the pointer is moved there first, so the click itself moves nothing.
	empty := &agentv1.Point{X: int32(a.Desktop.Width - 40), Y: int32(a.Desktop.Height - 40)}
	do(&agentv1.ActRequest{Action: &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{To: empty}}})
	if r := do(clickAt(empty.X, empty.Y)); r.GetEffect() != agentv1.Effect_EFFECT_NO_VISIBLE_CHANGE || r.GetDamage() != nil {
		t.Errorf("click on the empty desktop: effect %v damage %v, want NO_VISIBLE_CHANGE and no damage", r.GetEffect(), r.GetDamage())
	}
	if r := do(&agentv1.ActRequest{Action: &agentv1.ActRequest_Key{Key: &agentv1.Key{Combo: "F20"}}}); r.GetEffect() != agentv1.Effect_EFFECT_NO_VISIBLE_CHANGE {
		t.Errorf("a key nothing listens to: effect %v damage %v, want NO_VISIBLE_CHANGE", r.GetEffect(), r.GetDamage())
	}

	app := launchApp(t, a)
	at := app.button()
	// The first click focuses the window (its frame repaints too); the second only presses the button.
	do(clickAt(at.X, at.Y))
	app.waitFor(t, "click 1 ", 10*time.Second)
	r := do(clickAt(at.X, at.Y))
	app.waitFor(t, "click 2 ", 10*time.Second)
	box := r.GetDamage()
	if r.GetEffect() != agentv1.Effect_EFFECT_DONE || box == nil {
		t.Fatalf("click on a repainting button: effect %v damage %v, want DONE with a damage box", r.GetEffect(), box)
	}
	t.Logf("damage %v, window %dx%d+%d+%d (xwininfo), click at %v", box, app.w, app.h, app.x, app.y, at)
	inside := box.GetX() >= app.x && box.GetY() >= app.y && box.GetX()+box.GetWidth() <= app.x+app.w && box.GetY()+box.GetHeight() <= app.y+app.h
	// The button is the window's full width and at least its upper 150 rows (set_size_request 300x150); GTK
	// repaints all of it when it is pressed and relabelled.
	covers := box.GetX() <= app.x && box.GetY() <= app.y && box.GetX()+box.GetWidth() >= app.x+app.w && box.GetY()+box.GetHeight() >= app.y+150
	if !inside || !covers {
		t.Errorf("damage %v: want it inside the window %dx%d+%d+%d (xwininfo) and covering the button (the window's upper 150 rows)", box, app.w, app.h, app.x, app.y)
	}
	if r.GetTiming().GetSettleUs() == 0 {
		t.Errorf("timing %v: the watch took no time", r.GetTiming())
	}
	// watch_ms -1: delivered, not watched.
	off := clickAt(empty.X, empty.Y)
	off.WatchMs = -1
	if r := do(off); r.GetEffect() != agentv1.Effect_EFFECT_DONE || r.GetDamage() != nil {
		t.Errorf("unwatched click: effect %v damage %v, want DONE without damage", r.GetEffect(), r.GetDamage())
	}
}

// TestMutationReports: every mutation answers its effect, frozen target and timing with the broker's stages
// (queue, audit fsyncs); WriteClipboard is checked against xclip. Before, WriteClipboard answered only a length
// and no broker answer had timing.
func TestMutationReports(t *testing.T) {
	a, br := startEffects(t)
	testenv.NeedCommands(t, "xclip")
	cc := brokerv1.NewComputerServiceClient(br.Conn)
	s := br.session(t, "vm1")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g, err := brokerv1.NewGuestServiceClient(br.Conn).GetGuest(ctx, &brokerv1.GetGuestRequest{Name: "vm1"})
	if err != nil {
		t.Fatal(err)
	}
	gen := g.GetGuest().GetGeneration()
	w, err := cc.WriteClipboard(ctx, &brokerv1.WriteClipboardRequest{SessionId: s, Request: &agentv1.WriteClipboardRequest{Text: "reported"}})
	if err != nil {
		t.Fatal(err)
	}
	if w.GetResponse().GetEffect() != agentv1.Effect_EFFECT_VERIFIED || w.GetResponse().GetTarget().GetGeneration() != gen ||
		w.GetResponse().GetTiming().GetTotalUs() == 0 {
		t.Errorf("WriteClipboard: effect %v target %v timing %v, want VERIFIED, generation %d, a timing", w.GetResponse().GetEffect(),
			w.GetResponse().GetTarget(), w.GetResponse().GetTiming(), gen)
	}
	checkBrokerTiming(t, "WriteClipboard", w.GetTiming())
	out, err := a.Desktop.Command("xclip", "-o", "-selection", "clipboard").Output()
	if err != nil || string(out) != "reported" {
		t.Errorf("xclip reads %q (%v), want the text written", out, err)
	}
	r, err := cc.Act(ctx, act(clickAt(5, 5), s))
	if err != nil {
		t.Fatal(err)
	}
	checkBrokerTiming(t, "Act", r.GetTiming())
}

// checkBrokerTiming checks that a mutation's broker timing has its stages: the two durable audit records and
// the guest call, within the total.
func checkBrokerTiming(t *testing.T, rpc string, tm *brokerv1.MutationTiming) {
	t.Helper()
	if tm.GetIntentAuditUs() <= 0 || tm.GetOutcomeAuditUs() <= 0 || tm.GetGuestUs() <= 0 || tm.GetTotalUs() < tm.GetGuestUs()+tm.GetIntentAuditUs() {
		t.Errorf("%s broker timing %v: want intent and outcome audit, guest call, all within the total", rpc, tm)
	}
}

// TestBatch: a batch of clicks and typing lands in order (the app's output); a batch with a bad third action is
// refused whole before anything happens; a batch whose second action fails at run time stops there, with the
// first action's result and the failure. Before, there was no batch.
func TestBatch(t *testing.T) {
	a, br := startEffects(t)
	app := launchApp(t, a)
	cc := brokerv1.NewComputerServiceClient(br.Conn)
	s := br.session(t, "vm1")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, e := app.button(), app.entry()
	typ := func(text string) *agentv1.ActRequest {
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: text}}}
	}
	batch := func(acts ...*agentv1.ActRequest) (*brokerv1.ActBatchResponse, error) {
		return cc.ActBatch(ctx, &brokerv1.ActBatchRequest{SessionId: s, Request: &agentv1.ActBatchRequest{Actions: acts}})
	}

	// Refused whole: the third action's click count is out of bounds; the first two would have landed.
	bad := clickAt(b.X, b.Y)
	bad.GetClick().Count = 7
	_, err := batch(clickAt(b.X, b.Y), clickAt(e.X, e.Y), bad, typ("zz"))
	if reasonOf(err) != agentv1.ErrorReason_ERROR_REASON_INVALID_ARGUMENT || !strings.Contains(status.Convert(err).Message(), "request.actions[2].action.click.count") {
		t.Fatalf("batch with a bad third action: %v, want INVALID_ARGUMENT naming request.actions[2].action.click.count", err)
	}

	resp, err := batch(clickAt(b.X, b.Y), clickAt(e.X, e.Y), typ("ab"), clickAt(b.X, b.Y))
	if err != nil {
		t.Fatal(err)
	}
	if f := resp.GetResponse().GetFailure(); f != nil || len(resp.GetResponse().GetResults()) != 4 {
		t.Fatalf("batch: %d results, failure %v, want 4 and none", len(resp.GetResponse().GetResults()), f)
	}
	checkBrokerTiming(t, "ActBatch", resp.GetTiming())
	app.waitFor(t, "click 2 ", 10*time.Second)
	var got []string
	for _, l := range app.snapshot()[1:] { // after "ready"
		f := strings.Fields(l)
		got = append(got, strings.Join(f[:len(f)-1], " "))
	}
	want := []string{"click 1", "text a", "text ab", "click 2"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the app saw %q, want %q: nothing of the refused batch, then this one in order", got, want)
	}
	for i, r := range resp.GetResponse().GetResults() {
		if r.GetTarget().GetSource() == agentv1.TargetSource_TARGET_SOURCE_UNSPECIFIED || r.GetTiming() == nil {
			t.Errorf("result %d: target %v timing %v, want both", i, r.GetTarget(), r.GetTiming())
		}
	}

	// Fails at run time at action 1 (a window that does not exist is checked just before input): action 0 was
	// done, action 2 was not attempted.
	gone := clickAt(b.X, b.Y)
	gone.Target = &agentv1.Target{Kind: &agentv1.Target_Window{Window: &agentv1.WindowTarget{WindowId: 0x7ffffff0}}}
	resp, err = batch(clickAt(b.X, b.Y), gone, clickAt(b.X, b.Y))
	if err != nil {
		t.Fatal(err)
	}
	f := resp.GetResponse().GetFailure()
	if f.GetIndex() != 1 || f.GetReason() != agentv1.ErrorReason_ERROR_REASON_TARGET_GONE || len(resp.GetResponse().GetResults()) != 1 {
		t.Fatalf("batch failing at action 1: %d results, failure %v, want 1 result and TARGET_GONE at index 1", len(resp.GetResponse().GetResults()), f)
	}
	app.waitFor(t, "click 3 ", 10*time.Second)
	deadline := time.Now().Add(500 * time.Millisecond)
	for time.Now().Before(deadline) {
		for _, l := range app.snapshot() {
			if strings.HasPrefix(l, "click 4 ") {
				t.Fatalf("the action after the failure was done: %q", app.snapshot())
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
}
