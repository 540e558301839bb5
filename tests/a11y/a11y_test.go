// Package a11y tests accessibility end to end: the real glovebox-agent on an Xvfb desktop with an AT-SPI
// session, real GTK programs, and (for the session-scoped surface) the real glovebox-broker in front. Actions are
// verified through the program's own output, not through the agent's answer.
package a11y

import (
	"bufio"
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/a11ybus"
	"glovebox.dev/shared/testenv/desktop"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// python is Debian's interpreter, which has python3-gi.
const python = "/usr/bin/python3"

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// startAgent starts a desktop with an accessibility session and the agent on it.
func startAgent(t *testing.T) (*a11ybus.Session, *agenttest.Agent) {
	t.Helper()
	d := desktop.Start(t, desktop.Options{})
	s := a11ybus.Start(t, d)
	a := agenttest.Start(t, agenttest.Options{Desktop: d, Env: []string{"DBUS_SESSION_BUS_ADDRESS=" + s.Address}})
	return s, a
}

// program is a started GTK program with its stdout as lines.
type program struct {
	pid   int32
	mu    sync.Mutex
	lines []string
}

// start starts a program on the accessibility session; it is killed when the test ends.
func start(t *testing.T, s *a11ybus.Session, name string, args ...string) *program {
	t.Helper()
	return startCmd(t, s, s.Command(name, args...))
}

// startCmd starts c, made by s.Command, and reads its stdout.
func startCmd(t *testing.T, s *a11ybus.Session, c *exec.Cmd) *program {
	t.Helper()
	name := c.Path
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.StartProgram(t, c); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	p := &program{pid: int32(c.Process.Pid)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.mu.Unlock()
		}
	}()
	return p
}

// printed reports whether the program printed line.
func (p *program) printed(line string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Contains(p.lines, line)
}

// waitLine waits until the program printed line.
func (p *program) waitLine(t *testing.T, line string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !p.printed(line) {
		if time.Now().After(deadline) {
			p.mu.Lock()
			defer p.mu.Unlock()
			t.Fatalf("program did not print %q within %v; it printed %q", line, timeout, p.lines)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// appID is the app id of a pid.
func appID(pid int32) string { return "app:" + itoa(pid) }

func itoa(n int32) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}

// waitOnBus polls list until an app with id shows up.
func waitOnBus(t *testing.T, id string, list func(ctx context.Context) ([]*agentv1.App, error)) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		apps, err := list(ctx)
		cancel()
		if err == nil && slices.ContainsFunc(apps, func(a *agentv1.App) bool { return a.GetAppId() == id }) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not on the accessibility bus within 20s (last: %v, apps %v)", id, err, apps)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// find returns the first element of role whose name (or, with byText, text) is want.
func find(t *testing.T, s *agentv1.Snapshot, role, want string, byText bool) *agentv1.Element {
	t.Helper()
	for _, el := range s.GetElements() {
		got := el.GetName()
		if byText {
			got = el.GetText()
		}
		if el.GetRole() == role && got == want {
			return el
		}
	}
	t.Fatalf("no %s %q in the snapshot:\n%s", role, want, s.GetText())
	return nil
}

// reason is the ErrorInfo reason of err as a client sees it.
func reason(err error) string {
	return errgrpc.ReasonString(errdefs.Reason(errgrpc.FromError(err)))
}

// TestBrokerElementActions drives the test app through the broker: the session's default app fills in the
// snapshot and the element actions (source SESSION), a click and a set_value land in the app (its own output), a
// ref of a superseded snapshot is refused and nothing happens, and the audit log's frozen target names the app
// and the snapshot acted on.
func TestBrokerElementActions(t *testing.T) {
	testenv.NeedCommands(t, python)
	s, agent := startAgent(t)
	app := start(t, s, python, filepath.Join(agenttest.RepoRoot(t), "guest/internal/atspi/testdata/a11yapp.py"), "brokerapp")
	app.waitLine(t, "ready", 20*time.Second)
	b := brokertest.Start(t, agent)
	conn, err := grpc.NewClient(b.URI, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	computer, sessions, audit := brokerv1.NewComputerServiceClient(conn), brokerv1.NewSessionServiceClient(conn), brokerv1.NewAuditServiceClient(conn)
	ctx := ctxT(t, 90*time.Second)

	sess, err := sessions.CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: b.Guest, Mode: brokerv1.SessionMode_SESSION_MODE_ACT})
	if err != nil {
		t.Fatal(err)
	}
	sid, id := sess.GetSession().GetId(), appID(app.pid)
	waitOnBus(t, id, func(ctx context.Context) ([]*agentv1.App, error) {
		r, err := computer.ListApps(ctx, &brokerv1.ListAppsRequest{SessionId: sid})
		return r.GetResponse().GetApps(), err
	})
	def := &agentv1.Target{Kind: &agentv1.Target_App{App: &agentv1.AppTarget{AppId: id}}}
	if _, err := sessions.SetSessionDefaults(ctx, &brokerv1.SetSessionDefaultsRequest{SessionId: sid, DefaultTarget: def}); err != nil {
		t.Fatal(err)
	}
	snapshot := func() *agentv1.Snapshot {
		t.Helper()
		r, err := computer.SnapshotApp(ctx, &brokerv1.SnapshotAppRequest{SessionId: sid})
		if err != nil {
			t.Fatalf("SnapshotApp: %v", err)
		}
		snap := r.GetResponse().GetSnapshot()
		if !snap.GetComplete() || snap.GetTarget().GetApp().GetAppId() != id {
			t.Fatalf("snapshot of %v complete=%v (%s), want the session's app %s", snap.GetTarget(), snap.GetComplete(), snap.GetIncompleteReason(), id)
		}
		return snap
	}
	act := func(r *agentv1.ActRequest) (*brokerv1.ActResponse, error) {
		return computer.Act(ctx, &brokerv1.ActRequest{SessionId: sid, Request: r})
	}
	clickReq := func(snap *agentv1.Snapshot, el *agentv1.Element) *agentv1.ActRequest {
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{
			Element: &agentv1.ElementRef{SnapshotId: snap.GetSnapshotId(), Ref: el.GetRef()}}}}
	}

	s1 := snapshot()
	button := find(t, s1, "push button", "Press me", false)
	entry := find(t, s1, "text", "hello world", true)

	resp, err := act(clickReq(s1, button))
	if err != nil {
		t.Fatalf("element_click: %v", err)
	}
	app.waitLine(t, "button clicked", 5*time.Second)
	ft := resp.GetResponse().GetTarget()
	if ft.GetAppId() != id || ft.GetSnapshotId() != s1.GetSnapshotId() || ft.GetElementRef() != button.GetRef() || ft.GetSource() != agentv1.TargetSource_TARGET_SOURCE_SESSION {
		t.Errorf("click's frozen target %v, want %s %s %s source SESSION", ft, id, s1.GetSnapshotId(), button.GetRef())
	}
	clickSeq := resp.GetAuditSeq()

	setReq := &agentv1.ActRequest{Action: &agentv1.ActRequest_ElementSetValue{ElementSetValue: &agentv1.ElementSetValue{
		Element: &agentv1.ElementRef{SnapshotId: s1.GetSnapshotId(), Ref: entry.GetRef()},
		Value:   &agentv1.ElementSetValue_Text{Text: "set through the broker"}}}}
	if _, err := act(setReq); err != nil {
		t.Fatalf("element_set_value: %v", err)
	}
	app.waitLine(t, "entry: set through the broker", 5*time.Second)

	s2 := snapshot()
	if s2.GetSnapshotId() == s1.GetSnapshotId() {
		t.Fatalf("second snapshot has the first one's id %s", s1.GetSnapshotId())
	}
	app.mu.Lock()
	app.lines = nil
	app.mu.Unlock()
	_, err = act(clickReq(s1, button))
	if got := reason(err); got != "SNAPSHOT_SUPERSEDED" {
		t.Fatalf("click with a ref of the superseded snapshot: %v (%s), want SNAPSHOT_SUPERSEDED", err, got)
	}
	time.Sleep(300 * time.Millisecond)
	if app.printed("button clicked") {
		t.Error("the app was clicked through a superseded ref")
	}

	recs, err := audit.ListAuditRecords(ctx, &brokerv1.ListAuditRecordsRequest{Guest: b.Guest, SessionId: sid, PageSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var click []*brokerv1.AuditRecord
	for _, r := range recs.GetRecords() {
		if r.GetSeq() == clickSeq || r.GetSeq() < clickSeq && r.GetRpc() == "/glovebox.broker.v1.ComputerService/Act" && r.GetPhase() == brokerv1.AuditPhase_AUDIT_PHASE_INTENT {
			click = append(click, r)
		}
	}
	if len(click) != 2 {
		t.Fatalf("click's audit records %v, want its intent and outcome", click)
	}
	for _, r := range click {
		ft := r.GetTarget()
		if ft.GetAppId() != id || ft.GetSnapshotId() != s1.GetSnapshotId() || ft.GetElementRef() != button.GetRef() {
			t.Errorf("%v record's frozen target %v, want app %s snapshot %s element %s", r.GetPhase(), ft, id, s1.GetSnapshotId(), button.GetRef())
		}
	}
	var sawSnap bool
	for _, r := range recs.GetRecords() {
		sawSnap = sawSnap || r.GetRpc() == "/glovebox.broker.v1.ComputerService/SnapshotApp" && r.GetTarget().GetSnapshotId() == s2.GetSnapshotId() && r.GetTarget().GetAppId() == id
	}
	if !sawSnap {
		t.Errorf("no SnapshotApp record naming %s and %s", id, s2.GetSnapshotId())
	}
}

// TestWidgetFactorySnapshot snapshots gtk3-widget-factory straight from the agent: a full tree of its first
// page, with widgets it is known to show.
func TestWidgetFactorySnapshot(t *testing.T) {
	testenv.NeedCommands(t, "gtk3-widget-factory")
	s, agent := startAgent(t)
	app := start(t, s, "gtk3-widget-factory")
	conn := agent.DialUnix(t)
	a11y := agentv1.NewAccessibilityServiceClient(conn)
	id := appID(app.pid)
	waitOnBus(t, id, func(ctx context.Context) ([]*agentv1.App, error) {
		r, err := a11y.ListApps(ctx, &agentv1.ListAppsRequest{})
		return r.GetApps(), err
	})
	ctx := ctxT(t, 60*time.Second)
	var snap *agentv1.Snapshot
	// The factory builds its pages after it appears on the bus: wait for a full first page.
	deadline := time.Now().Add(20 * time.Second)
	for {
		r, err := a11y.SnapshotApp(ctx, &agentv1.SnapshotAppRequest{AppId: id})
		if err != nil {
			t.Fatal(err)
		}
		snap = r.GetSnapshot()
		if len(snap.GetElements()) > 200 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !snap.GetComplete() {
		t.Errorf("snapshot incomplete: %s", snap.GetIncompleteReason())
	}
	if n := len(snap.GetElements()); n <= 200 {
		t.Fatalf("snapshot has %d elements, want > 200:\n%s", n, snap.GetText())
	}
	names := map[string]bool{}
	byRef := map[string]*agentv1.Element{}
	for _, el := range snap.GetElements() {
		names[el.GetRole()+" "+el.GetName()] = true
		byRef[el.GetRef()] = el
	}
	// Table cells and column headers are created on demand (the app's cache lacks them): each must still hang
	// under its own table, not under whatever element precedes it.
	for _, el := range snap.GetElements() {
		if r := el.GetRole(); r != "table cell" && r != "table column header" {
			continue
		}
		if p := byRef[el.GetParentRef()]; !strings.Contains(p.GetRole(), "table") {
			t.Errorf("%s %s %q has parent %s %q, want a table", el.GetRef(), el.GetRole(), el.GetName(), p.GetRole(), p.GetName())
		}
	}
	for _, want := range knownWidgets {
		if !names[want] {
			t.Errorf("no %q among the %d elements", want, len(snap.GetElements()))
		}
	}
	if t.Failed() {
		t.Logf("snapshot:\n%s", strings.TrimSpace(snap.GetText()))
	}
}

// knownWidgets are role and name of widgets gtk3-widget-factory (3.24) shows on its first page.
var knownWidgets = []string{
	"radio button Page 1", "check box Dark Theme", "menu item Donald Duck", "combo box Left",
	"toggle button togglebutton", "animation Spinner", "check box checkbutton", "spin button ",
}
