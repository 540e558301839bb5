package console

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/coder/websocket"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/testpki"
)

// reason is the ErrorInfo reason of err as a client sees it.
func reason(err error) string {
	return errgrpc.ReasonString(errdefs.Reason(errgrpc.FromError(err)))
}

// TestConsole drives one guest's console through its four stories in order on one rig: the live view matches
// the screen, a person takes control and drives a GTK app, refusals, and a handoff from an agent's help
// request.
func TestConsole(t *testing.T) {
	ca := testpki.New(t)
	server, watcher := ca.Server(t, "localhost"), ca.Client(t, "watcher")
	tcpAddr := testenv.FreeAddr(t)
	r := newRig(t, func(cfg map[string]any) {
		cfg["listen"] = append(cfg["listen"].([]string), "tcp://"+tcpAddr)
		cfg["tls"] = map[string]any{"cert": server.CertFile, "key": server.KeyFile, "client_ca": ca.File}
		ps := cfg["principals"].([]map[string]any)
		// watcher may look at every guest but not take control.
		cfg["principals"] = append(ps, map[string]any{"name": "watcher", "cert_names": []string{"watcher"}, "guests": []string{"*"}})
	})
	watcherConn, err := grpc.NewClient("passthrough:///"+tcpAddr, grpc.WithTransportCredentials(credentials.NewTLS(
		&tls.Config{RootCAs: ca.Pool(), ServerName: "localhost", Certificates: []tls.Certificate{watcher.TLS}})))
	if err != nil {
		t.Fatal(err)
	}
	defer watcherConn.Close()

	t.Run("view", func(t *testing.T) { testView(t, r) })
	t.Run("control", func(t *testing.T) { testControl(t, r) })
	t.Run("refusals", func(t *testing.T) { testRefusals(t, r, watcherConn) })
	t.Run("handoff", func(t *testing.T) { testHandoff(t, r) })
	t.Run("cli", func(t *testing.T) { testCLI(t, r) })
}

// testCLI: glovebox view prints a link that opens once; help-request and help-requests go through the broker.
func testCLI(t *testing.T, r *rig) {
	out, err := r.glovebox(t, "view", r.broker.Guest, "-control", "-ttl", "2m")
	if err != nil {
		t.Fatalf("glovebox view: %v\n%s", err, out)
	}
	url := strings.Fields(out)[0]
	if !strings.HasPrefix(url, "http://"+r.console+"/link/") {
		t.Fatalf("glovebox view printed %q, want a link to the console at %s", out, r.console)
	}
	noRedirect := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the printed link: %s, want 303 to the console", resp.Status)
	}
	sid := r.session(t)
	id, err := r.glovebox(t, "help-request", "-s", sid, "-reason", "stuck on a dialog")
	if err != nil || !strings.HasPrefix(id, "h-") {
		t.Fatalf("glovebox help-request: %v %q", err, id)
	}
	list, err := r.glovebox(t, "help-requests", r.broker.Guest)
	if err != nil || !strings.Contains(list, id) || !strings.Contains(list, "HELP_STATE_PENDING") {
		t.Fatalf("glovebox help-requests: %v\n%s", err, list)
	}
}

// openConsole opens a link of mode in a new tab and waits for its first full frame.
func openConsole(t *testing.T, r *rig, mode brokerv1.ViewerMode) context.Context {
	t.Helper()
	tab := r.tab(t)
	run(t, tab, 30*time.Second, chromedp.Navigate(r.link(t, mode)))
	waitJS(t, tab, `!!(window.glovebox && window.glovebox.screen.firstFrameAt > 0 && window.glovebox.panels.state)`, 20*time.Second)
	return tab
}

// canvasImage reads the console canvas's pixels from the page.
func canvasImage(t *testing.T, tab context.Context) image.Image {
	t.Helper()
	url := eval[string](t, tab, 20*time.Second, `document.getElementById('screen').toDataURL('image/png')`)
	b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(url, "data:image/png;base64,"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// agentImage takes a PNG screenshot through a broker session.
func agentImage(t *testing.T, r *rig, sid string) image.Image {
	t.Helper()
	resp, err := brokerv1.NewComputerServiceClient(r.conn).CaptureScreenshot(ctxT(t, 20*time.Second), &brokerv1.CaptureScreenshotRequest{
		SessionId: sid, Request: &agentv1.CaptureScreenshotRequest{Options: &agentv1.ScreenshotOptions{Format: agentv1.ImageFormat_IMAGE_FORMAT_PNG}}})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(resp.GetResponse().GetImage().GetData()))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// differing is the fraction of pixels whose colour differs by more than JPEG's noise in any channel.
func differing(a, b image.Image) float64 {
	if a.Bounds() != b.Bounds() {
		return 1
	}
	n, bad := 0, 0
	for y := a.Bounds().Min.Y; y < a.Bounds().Max.Y; y++ {
		for x := a.Bounds().Min.X; x < a.Bounds().Max.X; x++ {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			n++
			if diff(r1, r2) > 48 || diff(g1, g2) > 48 || diff(b1, b2) > 48 {
				bad++
			}
		}
	}
	return float64(bad) / float64(n)
}

func diff(a, b uint32) uint32 {
	a, b = a>>8, b>>8
	if a > b {
		return a - b
	}
	return b - a
}

func testView(t *testing.T, r *rig) {
	sid := r.session(t)
	// An xterm printing what the test writes into a FIFO, at the top left.
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	testenv.NeedCommands(t, "xterm")
	r.d.StartProgram(t, r.d.Command("xterm", "-T", "console-xterm", "-geometry", "50x6+0+0", "-e", "sh", "-c", "exec cat < "+fifo))
	r.d.WaitWindow(t, "console-xterm", 20*time.Second)
	opened := make(chan *os.File, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			opened <- f
		}
	}()
	var w *os.File
	select {
	case w = <-opened:
	case <-time.After(20 * time.Second):
		t.Fatal("the xterm's cat did not open the fifo within 20s")
	}
	defer w.Close()

	tab := openConsole(t, r, brokerv1.ViewerMode_VIEWER_MODE_VIEW)
	// The page's canvas shows the guest: its pixels match an agent screenshot taken at the same moment. The
	// screen may change between the two reads (an xterm starting up), so a few tries are allowed.
	var frac float64
	for try := 0; try < 10; try++ {
		agent := agentImage(t, r, sid)
		canvas := canvasImage(t, tab)
		if frac = differing(agent, canvas); frac <= 0.01 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if frac > 0.01 {
		t.Fatalf("canvas and agent screenshot differ in %.2f%% of the pixels (want <= 1%%)", frac*100)
	}
	t.Logf("canvas vs agent screenshot: %.3f%% of pixels differ", frac*100)

	// Text printed in the xterm appears on the canvas within 500 ms.
	arm := `window.__changed = new Promise((resolve) => {
	  const c = document.getElementById('screen'), g = c.getContext('2d');
	  const h = () => { const d = g.getImageData(0, 0, 320, 140).data; let s = 0; for (let i = 0; i < d.length; i += 4) s = (s * 31 + d[i] + d[i+1] * 7 + d[i+2] * 13) | 0; return s; };
	  const base = h(), t0 = performance.now();
	  const tick = () => { if (h() !== base) resolve(true); else if (performance.now() - t0 > 10000) resolve(false); else requestAnimationFrame(tick); };
	  tick();
	}); true`
	eval[bool](t, tab, 10*time.Second, arm)
	start := time.Now()
	fmt.Fprintln(w, "GLOVEBOX-CONSOLE-MARK")
	changed := eval[bool](t, tab, 15*time.Second, `window.__changed`)
	took := time.Since(start)
	if !changed {
		t.Fatal("the xterm's text never appeared on the canvas within 10s")
	}
	t.Logf("xterm text on the canvas after %v", took)
	if took > 500*time.Millisecond {
		t.Errorf("the xterm's text reached the canvas after %v, want within 500ms", took)
	}
	// The canvas is now the first full frame with tiles drawn over it: it still matches the screen.
	for try := 0; try < 10; try++ {
		if frac = differing(agentImage(t, r, sid), canvasImage(t, tab)); frac <= 0.01 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if frac > 0.01 {
		t.Fatalf("after tiles, canvas and agent screenshot differ in %.2f%% of the pixels (want <= 1%%)", frac*100)
	}
}

// pageXY is where guest point (x, y) is on the page, through the canvas's layout.
func pageXY(t testing.TB, tab context.Context, x, y int32) (float64, float64) {
	t.Helper()
	p := eval[[]float64](t, tab, 10*time.Second, fmt.Sprintf(`(() => { const c = document.getElementById('screen'); const r = c.getBoundingClientRect();
	  return [r.left + %d * r.width / c.width, r.top + %d * r.height / c.height]; })()`, x, y))
	return p[0], p[1]
}

func center(el *agentv1.Element) (int32, int32) {
	b := el.GetBounds()
	return b.GetX() + b.GetWidth()/2, b.GetY() + b.GetHeight()/2
}

func testControl(t *testing.T, r *rig) {
	sid := r.session(t)
	snap := r.snapshotApp(t, sid)
	button := element(t, snap, "push button", "Press")
	entry := findRole(t, snap, "text")
	tab := openConsole(t, r, brokerv1.ViewerMode_VIEWER_MODE_CONTROL)
	run(t, tab, 10*time.Second, chromedp.Click(chromedp.CSS("#take")))
	waitJS(t, tab, `document.body.dataset.control === 'mine'`, 10*time.Second)

	// A session's Act is refused meanwhile, and nothing happens in the app.
	before := len(r.app.events("clicked"))
	bx, by := center(button)
	cc := brokerv1.NewComputerServiceClient(r.conn)
	_, err := cc.Act(ctxT(t, 10*time.Second), &brokerv1.ActRequest{SessionId: sid, Request: &agentv1.ActRequest{
		Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{At: &agentv1.Point{X: bx, Y: by}}}}})
	if got := reason(err); got != "CONTROL_HELD" {
		t.Fatalf("a session's click while the person holds control: %v (reason %s), want CONTROL_HELD", err, got)
	}

	// A click on the canvas presses the GTK button.
	px, py := pageXY(t, tab, bx, by)
	run(t, tab, 10*time.Second, chromedp.MouseClickXY(px, py))
	deadline := time.Now().Add(10 * time.Second)
	for len(r.app.events("clicked")) != before+1 {
		if time.Now().After(deadline) {
			t.Fatalf("the app saw %d clicks after the canvas click, want %d", len(r.app.events("clicked")), before+1)
		}
		time.Sleep(10 * time.Millisecond)
	}

	// Typing through the page reaches the GTK entry.
	const canary = "Grüße 你好"
	ex, ey := center(entry)
	px, py = pageXY(t, tab, ex, ey)
	run(t, tab, 10*time.Second, chromedp.MouseClickXY(px, py))
	run(t, tab, 20*time.Second, chromedp.SendKeys(chromedp.CSS("#keys"), canary), chromedp.KeyEvent(kb.Enter))
	r.app.waitText(t, canary, 20*time.Second)

	// Release; the agent's ref from before the takeover is refused without the caller echoing a generation.
	run(t, tab, 10*time.Second, chromedp.Click(chromedp.CSS("#release")))
	waitJS(t, tab, `document.body.dataset.control === 'free'`, 10*time.Second)
	clicks := len(r.app.events("clicked"))
	_, err = cc.Act(ctxT(t, 10*time.Second), &brokerv1.ActRequest{SessionId: sid, Request: &agentv1.ActRequest{
		Action: &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{Element: &agentv1.ElementRef{
			SnapshotId: snap.GetSnapshotId(), Ref: button.GetRef()}}}}})
	if got := reason(err); got != "GENERATION_CHANGED" {
		t.Fatalf("element_click with the pre-takeover ref: %v (reason %s), want GENERATION_CHANGED", err, got)
	}
	if n := len(r.app.events("clicked")); n != clicks {
		t.Fatalf("the app saw %d clicks after the refused ref, want %d", n, clicks)
	}

	// The typed text is in no audit file and no broker log line; audit prove finds it as a human record.
	files, _ := filepath.Glob(filepath.Join(r.broker.AuditDir, "*", "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if bytes.Contains(b, []byte(canary)) || bytes.Contains(b, []byte("你好")) {
			t.Fatalf("audit file %s contains the typed text", f)
		}
	}
	if strings.Contains(r.broker.Log.String(), "你好") {
		t.Fatal("the broker's log contains the typed text")
	}
	out, err := r.glovebox(t, "audit", "prove", "-key", r.broker.KeyFile, "-text", canary, "-dir", r.broker.AuditDir, "-guest", r.broker.Guest)
	if err != nil {
		files, _ := filepath.Glob(filepath.Join(r.broker.AuditDir, r.broker.Guest, "*"))
		for _, f := range files {
			b, _ := os.ReadFile(f)
			for _, line := range strings.Split(string(b), "\n") {
				if strings.Contains(line, "Console/Input") && strings.Contains(line, `"type"`) {
					t.Log(line)
				}
			}
		}
		t.Fatalf("audit prove: %v\n%s", err, out)
	}
	seqs := provenSeqs(out)
	if len(seqs) == 0 {
		t.Fatalf("audit prove found no record of the typed text:\n%s", out)
	}
	for _, seq := range seqs {
		rec := auditRecord(t, r, seq)
		if rec["source"] != "AUDIT_SOURCE_HUMAN" || rec["principal"] != "tester" {
			t.Fatalf("record %d proving the typed text: source %v principal %v, want a human record of tester", seq, rec["source"], rec["principal"])
		}
	}
}

// findRole returns the first element of role.
func findRole(t testing.TB, s *agentv1.Snapshot, role string) *agentv1.Element {
	t.Helper()
	for _, el := range s.GetElements() {
		if el.GetRole() == role {
			return el
		}
	}
	t.Fatalf("no %s in the snapshot", role)
	return nil
}

// provenSeqs reads the sequence numbers `audit prove` printed ("seq N ..." words).
func provenSeqs(out string) []uint64 {
	var seqs []uint64
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		for i := 0; i+1 < len(f); i++ {
			if f[i] == "seq" {
				var n uint64
				if _, err := fmt.Sscan(strings.TrimRight(f[i+1], ":,"), &n); err == nil {
					seqs = append(seqs, n)
				}
			}
		}
	}
	return seqs
}

// auditRecord reads record seq of the guest's log from its files (not through the broker).
func auditRecord(t *testing.T, r *rig, seq uint64) map[string]any {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(r.broker.AuditDir, r.broker.Guest, "*"))
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil && fmt.Sprint(m["seq"]) == fmt.Sprint(seq) {
				fh.Close()
				return m
			}
		}
		fh.Close()
	}
	t.Fatalf("no audit record %d in %s", seq, r.broker.AuditDir)
	return nil
}

// auditHas reports whether the guest's audit files hold a record of rpc whose line contains every want.
func auditHas(t *testing.T, r *rig, rpc string, want ...string) bool {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(r.broker.AuditDir, r.broker.Guest, "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, line := range strings.Split(string(b), "\n") {
			if !strings.Contains(line, rpc) {
				continue
			}
			ok := true
			for _, w := range want {
				ok = ok && strings.Contains(line, w)
			}
			if ok {
				return true
			}
		}
	}
	return false
}

// waitAudit waits until auditHas holds.
func waitAudit(t *testing.T, r *rig, rpc string, want ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !auditHas(t, r, rpc, want...) {
		if time.Now().After(deadline) {
			t.Fatalf("no audit record of %s with %q within 10s", rpc, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func testRefusals(t *testing.T, r *rig, watcherConn *grpc.ClientConn) {
	noRedirect := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(url string) *http.Response {
		t.Helper()
		resp, err := noRedirect.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}

	t.Run("reused token", func(t *testing.T) {
		url := r.link(t, brokerv1.ViewerMode_VIEWER_MODE_VIEW)
		if resp := get(url); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("first use: %s, want 303", resp.Status)
		}
		if resp := get(url); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("second use: %s, want 403", resp.Status)
		}
		waitAudit(t, r, "Console/OpenLink", "already used", "PERMISSION_DENIED")
	})

	t.Run("expired token", func(t *testing.T) {
		resp, err := brokerv1.NewConsoleServiceClient(r.conn).CreateViewerLink(ctxT(t, 10*time.Second),
			&brokerv1.CreateViewerLinkRequest{Guest: r.broker.Guest, Mode: brokerv1.ViewerMode_VIEWER_MODE_VIEW, TtlSeconds: 1})
		if err != nil {
			t.Fatal(err)
		}
		for time.Now().Before(resp.GetExpiresAt().AsTime().Add(50 * time.Millisecond)) {
			time.Sleep(50 * time.Millisecond)
		}
		if got := get(resp.GetUrl()); got.StatusCode != http.StatusForbidden {
			t.Fatalf("expired link: %s, want 403", got.Status)
		}
		waitAudit(t, r, "Console/OpenLink", "expired", resp.GetLinkId())
	})

	t.Run("input on a VIEW socket", func(t *testing.T) {
		sid := r.session(t)
		button := element(t, r.snapshotApp(t, sid), "push button", "Press")
		bx, by := center(button)
		tab := openConsole(t, r, brokerv1.ViewerMode_VIEWER_MODE_VIEW)
		before := len(r.app.events("clicked"))
		eval[bool](t, tab, 10*time.Second, fmt.Sprintf(`window.glovebox.conn.send({t: 'down', b: 0, x: %d, y: %d});
		  window.glovebox.conn.send({t: 'up', b: 0, x: %d, y: %d}); true`, bx, by, bx, by))
		waitJS(t, tab, `document.getElementById('error').textContent.includes('VIEW')`, 10*time.Second)
		waitAudit(t, r, "Console/Refused", "input on a VIEW console")
		if n := len(r.app.events("clicked")); n != before {
			t.Fatalf("the app saw %d clicks after VIEW input, want %d", n, before)
		}
	})

	t.Run("wrong origin", func(t *testing.T) {
		// A cookie of a real link, then a WebSocket from another origin with it.
		resp, err := noRedirect.Get(r.link(t, brokerv1.ViewerMode_VIEWER_MODE_CONTROL))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		cookies := resp.Cookies()
		if len(cookies) != 1 || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode {
			t.Fatalf("link cookie: %+v, want one HttpOnly SameSite=Strict cookie", cookies)
		}
		h := http.Header{}
		h.Set("Origin", "http://evil.example")
		h.Set("Cookie", cookies[0].Name+"="+cookies[0].Value)
		ctx := ctxT(t, 10*time.Second)
		c, wsResp, err := websocket.Dial(ctx, "ws://"+r.console+"/ws", &websocket.DialOptions{HTTPHeader: h})
		if err == nil {
			c.CloseNow()
			t.Fatal("a WebSocket from another origin was accepted")
		}
		if wsResp == nil || wsResp.StatusCode != http.StatusForbidden {
			t.Fatalf("cross-origin WebSocket: %v, want 403", err)
		}
		waitAudit(t, r, "Console/Refused", "origin")
	})

	t.Run("CONTROL without the control right", func(t *testing.T) {
		_, err := brokerv1.NewConsoleServiceClient(watcherConn).CreateViewerLink(ctxT(t, 10*time.Second),
			&brokerv1.CreateViewerLinkRequest{Guest: r.broker.Guest, Mode: brokerv1.ViewerMode_VIEWER_MODE_CONTROL})
		if got := reason(err); got != "POLICY_DENIED" {
			t.Fatalf("watcher's CONTROL link: %v (reason %s), want POLICY_DENIED", err, got)
		}
		waitAudit(t, r, "ConsoleService/CreateViewerLink", `"watcher"`, "POLICY_DENIED")
	})
}

func testHandoff(t *testing.T, r *rig) {
	sid := r.session(t)
	hc := brokerv1.NewHandoffServiceClient(r.conn)
	ctx := ctxT(t, 60*time.Second)
	st, err := hc.WatchSessionEvents(ctx, &brokerv1.WatchSessionEventsRequest{SessionId: sid})
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan *brokerv1.SessionEvent, 16)
	go func() {
		for {
			resp, err := st.Recv()
			if err != nil {
				close(events)
				return
			}
			events <- resp.GetEvent()
		}
	}()
	help, err := hc.RequestHelp(ctx, &brokerv1.RequestHelpRequest{SessionId: sid, Reason: "a captcha", Instructions: "solve it, then release"})
	if err != nil {
		t.Fatal(err)
	}
	id := help.GetHelp().GetId()
	tab := openConsole(t, r, brokerv1.ViewerMode_VIEWER_MODE_CONTROL)
	sel := fmt.Sprintf(`#help li[data-id="%s"] button.take-help`, id)
	waitJS(t, tab, fmt.Sprintf(`!!document.querySelector('%s')`, sel), 10*time.Second)
	run(t, tab, 10*time.Second, chromedp.Click(chromedp.CSS(sel)))
	waitJS(t, tab, `document.body.dataset.control === 'mine'`, 10*time.Second)
	run(t, tab, 10*time.Second, chromedp.SetValue(chromedp.CSS("#release-note"), "solved it"), chromedp.Click(chromedp.CSS("#release")))

	next := func(what string) *brokerv1.SessionEvent {
		t.Helper()
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("event stream ended before %s", what)
			}
			return ev
		case <-time.After(20 * time.Second):
			t.Fatalf("no %s event within 20s", what)
		}
		return nil
	}
	acq := next("control acquired").GetControlAcquired()
	if acq == nil || acq.GetHolder() != "tester" {
		t.Fatalf("first event: %v, want control acquired by tester", acq)
	}
	if taken := next("help taken").GetHelpTaken(); taken.GetHelpId() != id || taken.GetBy() != "tester" {
		t.Fatalf("second event: %v, want help %s taken by tester", taken, id)
	}
	rel := next("control released").GetControlReleased()
	if rel == nil || rel.GetGeneration() != acq.GetGeneration()+1 {
		t.Fatalf("third event: %v, want control released with generation %d", rel, acq.GetGeneration()+1)
	}
	ans := next("help answered").GetHelpAnswered()
	if ans.GetHelpId() != id || ans.GetNote() != "solved it" || ans.GetGeneration() != rel.GetGeneration() {
		t.Fatalf("fourth event: %v, want help %s answered with the note and generation %d", ans, id, rel.GetGeneration())
	}
}
