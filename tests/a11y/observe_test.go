package a11y

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/a11ybus"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// observed is the test app under a started agent.
type observed struct {
	s     *a11ybus.Session
	agent *agenttest.Agent
	app   *program
	id    string
	win   string // the AT-SPI window id of the main window
}

// startObserved starts the agent and the test app of package atspi, and finds its main window.
func startObserved(t *testing.T) *observed {
	t.Helper()
	testenv.NeedCommands(t, python, "xdotool", "import")
	s, agent := startAgent(t)
	app := start(t, s, python, filepath.Join(agenttest.RepoRoot(t), "guest/internal/atspi/testdata/a11yapp.py"), "observeapp")
	app.waitLine(t, "ready", 20*time.Second)
	o := &observed{s: s, agent: agent, app: app, id: appID(app.pid)}
	a11y := agentv1.NewAccessibilityServiceClient(agent.DialUnix(t))
	waitOnBus(t, o.id, func(ctx context.Context) ([]*agentv1.App, error) {
		r, err := a11y.ListApps(ctx, &agentv1.ListAppsRequest{})
		for _, a := range r.GetApps() {
			for _, w := range a.GetWindows() {
				if a.GetAppId() == o.id && w.GetName() == "A11y Test" {
					o.win = w.GetWindowId()
				}
			}
		}
		return r.GetApps(), err
	})
	if o.win == "" {
		t.Fatal("no window A11y Test")
	}
	return o
}

// rootPixels is an independent capture of the whole screen (ImageMagick's import).
func rootPixels(t *testing.T, display string) image.Image {
	t.Helper()
	c := exec.Command("import", "-display", display, "-window", "root", "png:-")
	out, err := c.Output()
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// differing returns the bounding box of the pixels that differ between a and b, and how many differ.
func differing(a, b image.Image) (image.Rectangle, int) {
	var box image.Rectangle
	n := 0
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			if r1>>8 != r2>>8 || g1>>8 != g2>>8 || b1>>8 != b2>>8 {
				box = box.Union(image.Rect(x, y, x+1, y+1))
				n++
			}
		}
	}
	return box, n
}

// TestObserve takes one-call observations of the test app: the screenshot's pixels are those of a separate
// capture by ImageMagick (but for the blinking caret in the focused entry), its scale maps it back, the focused
// element is the entry the app itself reports focused, with a ref that acts, the snapshot is within its default
// budget, and with no target the active window (as xdotool reports it) is the one observed.
func TestObserve(t *testing.T) {
	o := startObserved(t)
	conn := o.agent.DialUnix(t)
	obs, actc := agentv1.NewObserveServiceClient(conn), agentv1.NewActServiceClient(conn)
	ctx := ctxT(t, 60*time.Second)
	target := &agentv1.Target{Kind: &agentv1.Target_App{App: &agentv1.AppTarget{AppId: o.id, WindowId: o.win}}}

	// Focus the entry through its ref, and wait for the app to say it has the focus.
	r, err := obs.Observe(ctx, &agentv1.ObserveRequest{Target: target, OmitScreenshot: true})
	if err != nil {
		t.Fatal(err)
	}
	entry := find(t, r.GetSnapshot(), "text", "hello world", true)
	o.app.mu.Lock()
	o.app.lines = nil
	o.app.mu.Unlock()
	if _, err := actc.Act(ctx, &agentv1.ActRequest{Owner: "observe", Action: &agentv1.ActRequest_ElementFocus{ElementFocus: &agentv1.ElementFocus{
		Element: &agentv1.ElementRef{SnapshotId: r.GetSnapshot().GetSnapshotId(), Ref: entry.GetRef()}}}}); err != nil {
		t.Fatalf("element_focus: %v", err)
	}
	o.app.waitLine(t, "focus: entry", 5*time.Second)

	// The app prints its focus-in before its accessible reports the state: poll, bounded.
	deadline := time.Now().Add(5 * time.Second)
	for {
		r, err = obs.Observe(ctx, &agentv1.ObserveRequest{Target: target})
		if err != nil {
			t.Fatal(err)
		}
		if r.GetFocused() != nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	ref := rootPixels(t, o.agent.Desktop.Display)
	s, f := r.GetSnapshot(), r.GetFocused()
	if n := proto.Size(s); n > 16384 || n == 0 {
		t.Errorf("snapshot is %d bytes, want 1..16384 (Observe's default budget)", n)
	}
	if s.GetTarget().GetApp().GetAppId() != o.id || s.GetTarget().GetApp().GetWindowId() != o.win {
		t.Errorf("snapshot target %v, want %s %s", s.GetTarget(), o.id, o.win)
	}
	if f.GetRole() != "text" || f.GetText() != "hello world" || f.GetRef() == "" {
		t.Fatalf("focused %v, want the entry (text \"hello world\") with a ref; entry %v", f, find(t, s, "text", "hello world", true))
	}
	// The focused ref is the snapshot's own entry.
	if e := find(t, s, "text", "hello world", true); e.GetRef() != f.GetRef() {
		t.Errorf("focused ref %s, the snapshot's entry is %s", f.GetRef(), e.GetRef())
	}
	if _, err := actc.Act(ctx, &agentv1.ActRequest{Owner: "observe", Action: &agentv1.ActRequest_ElementSetValue{ElementSetValue: &agentv1.ElementSetValue{
		Element: &agentv1.ElementRef{SnapshotId: s.GetSnapshotId(), Ref: f.GetRef()}, Value: &agentv1.ElementSetValue_Text{Text: "observed"}}}}); err != nil {
		t.Fatalf("set_value through the focused ref: %v", err)
	}
	o.app.waitLine(t, "entry: observed", 5*time.Second)

	img := r.GetImage()
	if img.GetScale() != 1 || img.GetWidth() != int32(ref.Bounds().Dx()) || img.GetHeight() != int32(ref.Bounds().Dy()) {
		t.Errorf("image %dx%d scale %v, want %v scale 1", img.GetWidth(), img.GetHeight(), img.GetScale(), ref.Bounds().Size())
	}
	got, err := png.Decode(bytes.NewReader(img.GetData()))
	if err != nil {
		t.Fatal(err)
	}
	box, n := differing(got, ref)
	eb := f.GetBounds()
	entryBox := image.Rect(int(eb.GetX()), int(eb.GetY()), int(eb.GetX()+eb.GetWidth()), int(eb.GetY()+eb.GetHeight()))
	if n > 0 && !box.In(entryBox) {
		t.Errorf("%d pixels differ from ImageMagick's capture, in %v: outside the focused entry %v", n, box, entryBox)
	}
	if c := r.GetCursor(); c == nil {
		t.Error("no cursor")
	} else {
		out, err := o.agent.Desktop.Command("xdotool", "getmouselocation").Output()
		want := "x:" + strconv.Itoa(int(c.GetX())) + " y:" + strconv.Itoa(int(c.GetY())) + " "
		if err != nil || !strings.HasPrefix(string(out), want) {
			t.Errorf("cursor %v, xdotool says %q (%v)", c, out, err)
		}
	}

	// Scaled: the scale maps the image back to the screen.
	r, err = obs.Observe(ctx, &agentv1.ObserveRequest{Target: target, Screenshot: &agentv1.ScreenshotOptions{MaxEdge: 640}, OmitSnapshot: true})
	if err != nil {
		t.Fatal(err)
	}
	if w := r.GetImage().GetWidth(); w != 640 || r.GetImage().GetScale() != 640/float64(ref.Bounds().Dx()) || r.GetSnapshot() != nil {
		t.Errorf("scaled image %dx%d scale %v snapshot %v", w, r.GetImage().GetHeight(), r.GetImage().GetScale(), r.GetSnapshot() != nil)
	}

	// No target: the active window.
	out, err := o.agent.Desktop.Command("xdotool", "getactivewindow").Output()
	if err != nil {
		t.Fatalf("xdotool getactivewindow: %v", err)
	}
	active, _ := strconv.ParseUint(strings.TrimSpace(string(out)), 10, 32)
	r, err = obs.Observe(ctx, &agentv1.ObserveRequest{OmitScreenshot: true, Snapshot: &agentv1.SnapshotOptions{MaxBytes: 4096}})
	if err != nil {
		t.Fatal(err)
	}
	if r.GetWindow().GetId() != uint32(active) || r.GetSnapshot().GetTarget().GetApp().GetAppId() != o.id {
		t.Errorf("observed window %d of %s, xdotool's active window is %d of %s (reason %q)", r.GetWindow().GetId(),
			r.GetSnapshot().GetTarget().GetApp().GetAppId(), active, o.id, r.GetSnapshotUnavailableReason())
	}
	if n := proto.Size(r.GetSnapshot()); n > 4096 {
		t.Errorf("snapshot %d bytes, over 4096", n)
	}

	_, err = obs.Observe(ctx, &agentv1.ObserveRequest{Target: &agentv1.Target{Kind: &agentv1.Target_Display{Display: &agentv1.DisplayTarget{}}}})
	if reason(err) != "INVALID_ARGUMENT" || !strings.Contains(err.Error(), "target.display") {
		t.Errorf("display target: %v, want INVALID_ARGUMENT naming target.display", err)
	}
	_, err = obs.Observe(ctx, &agentv1.ObserveRequest{Snapshot: &agentv1.SnapshotOptions{MaxBytes: 100, Find: &agentv1.ElementFind{NameRegex: "(("}}})
	if reason(err) != "INVALID_ARGUMENT" || !strings.Contains(err.Error(), "snapshot.max_bytes") || !strings.Contains(err.Error(), "snapshot.find.name_regex") {
		t.Errorf("bad options: %v, want INVALID_ARGUMENT naming snapshot.max_bytes and snapshot.find.name_regex", err)
	}
}

// TestBrokerObserve observes through the broker: the session's default app is observed within a 4 KiB budget,
// observations go on while a human holds control (a click is refused meanwhile), an observe-only session may
// observe, and the audit log has the record.
func TestBrokerObserve(t *testing.T) {
	o := startObserved(t)
	b := brokertest.Start(t, o.agent)
	conn := dialBroker(t, b)
	computer, sessions, ctl := brokerv1.NewComputerServiceClient(conn), brokerv1.NewSessionServiceClient(conn), brokerv1.NewControlServiceClient(conn)
	ctx := ctxT(t, 60*time.Second)
	sess, err := sessions.CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: b.Guest, Mode: brokerv1.SessionMode_SESSION_MODE_ACT})
	if err != nil {
		t.Fatal(err)
	}
	sid := sess.GetSession().GetId()
	def := &agentv1.Target{Kind: &agentv1.Target_App{App: &agentv1.AppTarget{AppId: o.id, WindowId: o.win}}}
	if _, err := sessions.SetSessionDefaults(ctx, &brokerv1.SetSessionDefaultsRequest{SessionId: sid, DefaultTarget: def}); err != nil {
		t.Fatal(err)
	}
	observe := func(sid string) (*brokerv1.ObserveResponse, error) {
		return computer.Observe(ctx, &brokerv1.ObserveRequest{SessionId: sid, Request: &agentv1.ObserveRequest{Snapshot: &agentv1.SnapshotOptions{MaxBytes: 4096}}})
	}
	r, err := observe(sid)
	if err != nil {
		t.Fatal(err)
	}
	s := r.GetResponse().GetSnapshot()
	if n := proto.Size(s); n > 4096 {
		t.Errorf("snapshot %d bytes, over 4096", n)
	}
	if r.GetTarget().GetSource() != agentv1.TargetSource_TARGET_SOURCE_SESSION || r.GetTarget().GetAppId() != o.id ||
		r.GetTarget().GetSnapshotId() != s.GetSnapshotId() || s.GetGeneration() != r.GetTarget().GetGeneration() {
		t.Errorf("frozen target %v, snapshot %s generation %d", r.GetTarget(), s.GetSnapshotId(), s.GetGeneration())
	}
	if len(r.GetResponse().GetImage().GetData()) == 0 {
		t.Error("no screenshot")
	}

	_, err = computer.Observe(ctx, &brokerv1.ObserveRequest{SessionId: sid, Request: &agentv1.ObserveRequest{Snapshot: &agentv1.SnapshotOptions{MaxTokens: 10}}})
	if reason(err) != "INVALID_ARGUMENT" || !strings.Contains(err.Error(), "request.snapshot.max_tokens") {
		t.Errorf("Observe with max_tokens 10: %v, want INVALID_ARGUMENT naming request.snapshot.max_tokens", err)
	}

	// A page of a snapshot taken before a hand-over is fenced like an action on its refs.
	paged, err := computer.SnapshotApp(ctx, &brokerv1.SnapshotAppRequest{SessionId: sid, Request: &agentv1.SnapshotAppRequest{Options: &agentv1.SnapshotOptions{MaxBytes: 2048}}})
	if err != nil || paged.GetResponse().GetSnapshot().GetNextCursor() == "" {
		t.Fatalf("paged SnapshotApp: %v, cursor %q", err, paged.GetResponse().GetSnapshot().GetNextCursor())
	}

	if _, err := ctl.AcquireControl(ctx, &brokerv1.AcquireControlRequest{Guest: b.Guest, Reason: "human at the console"}); err != nil {
		t.Fatal(err)
	}
	if _, err := observe(sid); err != nil {
		t.Errorf("Observe while a human holds control: %v", err)
	}
	_, err = computer.Act(ctx, &brokerv1.ActRequest{SessionId: sid, Request: &agentv1.ActRequest{Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{}}}})
	if reason(err) != "CONTROL_HELD" {
		t.Errorf("click while a human holds control: %v, want CONTROL_HELD", err)
	}
	if _, err := ctl.ReleaseControl(ctx, &brokerv1.ReleaseControlRequest{Guest: b.Guest}); err != nil {
		t.Fatal(err)
	}
	_, err = computer.SnapshotApp(ctx, &brokerv1.SnapshotAppRequest{SessionId: sid, Request: &agentv1.SnapshotAppRequest{
		Options: &agentv1.SnapshotOptions{Cursor: paged.GetResponse().GetSnapshot().GetNextCursor()}}})
	if reason(err) != "GENERATION_CHANGED" || !strings.Contains(err.Error(), "request.options.cursor") {
		t.Errorf("the next page of a snapshot from before the hand-over: %v, want GENERATION_CHANGED naming request.options.cursor", err)
	}

	ro, err := sessions.CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: b.Guest, Mode: brokerv1.SessionMode_SESSION_MODE_OBSERVE})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := observe(ro.GetSession().GetId()); err != nil || r.GetTarget().GetSource() != agentv1.TargetSource_TARGET_SOURCE_ACTIVE {
		t.Errorf("Observe in an observe-only session without defaults: %v, source %v (want ACTIVE)", err, r.GetTarget().GetSource())
	}

	recs := brokertest.AuditRecords(t, b.AuditDir, b.Guest)
	n := 0
	for _, rec := range recs {
		if rec.GetRpc() == "/glovebox.broker.v1.ComputerService/Observe" && rec.GetCode() == "OK" {
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d Observe records with code OK, want 3", n)
	}
}

// dialBroker connects to a started broker.
func dialBroker(t *testing.T, b *brokertest.Broker) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(b.URI, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}
