package atspi

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/testenv"
)

// TestRefs checks that a ref resolves only in the newest snapshot of its target, only on its own app, and
// only while its element exists.
func TestRefs(t *testing.T) {
	e := newEnv(t, Options{})
	a := e.startTestApp(t, "refsapp")
	b := e.startTestApp(t, "otherapp")
	ctx := context.Background()
	click := func(target *agentv1.Target, r *agentv1.ElementRef) error {
		_, err := e.act(t, target, func(q *agentv1.ActRequest) {
			q.Action = &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{Element: r}}
		})
		return err
	}

	old := snapApp(t, e, a.pid)
	oldButton := find(t, old, "push button", "Press me")
	fresh := snapApp(t, e, a.pid)
	wantReason(t, click(nil, ref(old, oldButton)), errdefs.ErrSnapshotSuperseded)
	a.reset()
	freshButton := find(t, fresh, "push button", "Press me")
	if err := click(nil, ref(fresh, freshButton)); err != nil {
		t.Fatalf("fresh ref: %v", err)
	}
	a.waitLine(t, "button clicked", 5*time.Second)

	// A ref of app A used with app B as the target is refused, and nothing is clicked.
	other := &agentv1.Target{Kind: &agentv1.Target_App{App: &agentv1.AppTarget{AppId: AppID(b.pid)}}}
	a.reset()
	wantReason(t, click(other, ref(fresh, freshButton)), errdefs.ErrStaleRef)
	own := &agentv1.Target{Kind: &agentv1.Target_App{App: &agentv1.AppTarget{AppId: AppID(a.pid)}}}
	if err := click(own, ref(fresh, freshButton)); err != nil {
		t.Fatalf("own app target: %v", err)
	}
	a.waitLine(t, "button clicked", 5*time.Second)

	// A ref into a window that closed is refused.
	apps, err := e.b.GetApp(ctx, &agentv1.GetAppRequest{AppId: AppID(a.pid)})
	if err != nil {
		t.Fatal(err)
	}
	var second string
	for _, w := range apps.App.Windows {
		if w.Name == "Second" {
			second = w.WindowId
		}
	}
	ws, err := e.b.SnapshotWindow(ctx, &agentv1.SnapshotWindowRequest{AppId: AppID(a.pid), WindowId: second})
	if err != nil {
		t.Fatal(err)
	}
	if ws.Snapshot.Elements[0].Role != "frame" || ws.Snapshot.Elements[0].Name != "Second" || len(ws.Snapshot.Elements) != 2 {
		t.Fatalf("window snapshot:\n%s", ws.Snapshot.Text)
	}
	secondButton := find(t, ws.Snapshot, "push button", "Second button")
	if _, err := a.stdin.Write([]byte("close\n")); err != nil {
		t.Fatal(err)
	}
	a.waitLine(t, "closed: Second", 5*time.Second)
	wantReason(t, click(nil, ref(ws.Snapshot, secondButton)), errdefs.ErrStaleRef)

	// Unknown snapshots and refs.
	// An id of another agent process is from an older generation; one this agent never handed out and a ref its
	// snapshot never had are NOT_FOUND, not STALE_REF (nothing went stale).
	wantReason(t, click(nil, &agentv1.ElementRef{SnapshotId: "as-00000000-1", Ref: "e1"}), errdefs.ErrGenerationChanged)
	wantReason(t, click(nil, &agentv1.ElementRef{SnapshotId: "as-made-up", Ref: "e1"}), errdefs.ErrNotFound)
	wantReason(t, click(nil, &agentv1.ElementRef{SnapshotId: fresh.SnapshotId, Ref: "e9999"}), errdefs.ErrNotFound)

	// An app that quit is gone, as for element actions (before, SnapshotApp said NOT_FOUND); one never seen
	// is not found.
	_ = b.cmd.Process.Kill()
	_, _ = b.cmd.Process.Wait()
	_, err = e.b.SnapshotApp(ctx, &agentv1.SnapshotAppRequest{AppId: AppID(b.pid)})
	wantReason(t, err, errdefs.ErrTargetGone)
	_, err = e.b.SnapshotApp(ctx, &agentv1.SnapshotAppRequest{AppId: "app:999999999"})
	wantReason(t, err, errdefs.ErrNotFound)
}

// TestGetApp finds apps by name (two of a name are ambiguous) and by id, and launches them without a shell.
func TestGetApp(t *testing.T) {
	e := newEnv(t, Options{})
	ctx := context.Background()
	a1 := e.startTestApp(t, "twinapp")
	a2 := e.startTestApp(t, "twinapp")
	_, err := e.b.GetApp(ctx, &agentv1.GetAppRequest{Name: "TwinApp"})
	wantReason(t, err, errdefs.ErrTargetAmbiguous)
	got := strings.Split(errgrpc.Metadata(err)["candidates"], ",")
	if want := []string{AppID(a1.pid), AppID(a2.pid)}; strings.Join(got, ",") != strings.Join(want, ",") && strings.Join(got, ",") != want[1]+","+want[0] {
		t.Errorf("candidates %q, want %q", got, want)
	}
	r, err := e.b.GetApp(ctx, &agentv1.GetAppRequest{AppId: AppID(a2.pid)})
	if err != nil || r.App.Name != "twinapp" || r.Pid != a2.pid || len(r.App.Windows) != 2 || !strings.EqualFold(r.App.Toolkit, "GTK") {
		t.Fatalf("GetApp by id = %v, %v", r, err)
	}
	_, err = e.b.GetApp(ctx, &agentv1.GetAppRequest{Name: "nosuchapp"})
	wantReason(t, err, errdefs.ErrNotFound)

	// Launches: the launched process inherits this environment.
	t.Setenv("DISPLAY", e.s.Desktop.Display)
	dir := t.TempDir()
	script, err := os.ReadFile("testdata/a11yapp.py")
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(dir, "gbtestapp")
	if err := os.WriteFile(prog, script, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	data := filepath.Join(dir, "share")
	if err := os.MkdirAll(filepath.Join(data, "applications"), 0o755); err != nil {
		t.Fatal(err)
	}
	entry := "[Desktop Entry]\nType=Application\nName=GB Test\nExec=\"" + prog + "\" desktopapp %U\n"
	if err := os.WriteFile(filepath.Join(data, "applications", "dev.glovebox.Test.desktop"), []byte(entry), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_DATA_HOME", data)
	kill := func(pid int32) { t.Cleanup(func() { _ = syscall.Kill(int(pid), syscall.SIGKILL) }) }

	for _, tc := range []struct{ name, launch, appName string }{
		{"absolute path", prog, "abspathapp"},
		{"PATH", "gbtestapp", "pathapp"},
		{"desktop entry", "dev.glovebox.Test", "desktopapp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := &agentv1.GetAppRequest{Name: tc.launch, Launch: true, LaunchTimeoutMs: 15000}
			if tc.appName != "desktopapp" {
				req.Args = []string{tc.appName}
			}
			r, err := e.b.GetApp(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			kill(r.Pid)
			if !r.Launched || !r.Accessible || r.App.GetName() != tc.appName || r.App.GetPid() != r.Pid {
				t.Fatalf("GetApp = %v", r)
			}
		})
	}
	t.Run("xterm is not accessible", func(t *testing.T) {
		testenv.NeedCommands(t, "xterm")
		start := time.Now()
		r, err := e.b.GetApp(ctx, &agentv1.GetAppRequest{Name: "xterm", Launch: true, LaunchTimeoutMs: 1500})
		if err != nil {
			t.Fatal(err)
		}
		kill(r.Pid)
		if !r.Launched || r.Accessible || r.App != nil || r.Pid <= 0 || time.Since(start) > 5*time.Second {
			t.Fatalf("GetApp(xterm) = %v after %v", r, time.Since(start))
		}
	})
	t.Run("shell metacharacters are never run by a shell", func(t *testing.T) {
		marker := filepath.Join(dir, "pwned")
		for _, name := range []string{"true; touch " + marker, "$(touch " + marker + ")", "`touch " + marker + "`", "gbtestapp && touch " + marker} {
			_, err := e.b.GetApp(ctx, &agentv1.GetAppRequest{Name: name, Launch: true, LaunchTimeoutMs: 500})
			wantReason(t, err, errdefs.ErrNotFound)
		}
		time.Sleep(200 * time.Millisecond)
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("a shell ran the name")
		}
	})
}

func TestSplitExec(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"gedit %U", []string{"gedit"}},
		{`"/opt/My App/run" --flag=%f x%%y`, []string{"/opt/My App/run", "--flag=", "x%y"}},
		{`sh -c "echo \"hi\" \$HOME"`, []string{"sh", "-c", `echo "hi" $HOME`}},
		{`prog\sname %i %c %k`, []string{"prog", "name"}},
		{`"prog\sname" %F`, []string{"prog name"}},
	}
	for _, tt := range tests {
		got, err := SplitExec(tt.in)
		if err != nil || strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("SplitExec(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{`"unterminated`, "%U", "prog %z"} {
		if _, err := SplitExec(bad); err == nil {
			t.Errorf("SplitExec(%q) succeeded", bad)
		}
	}
}
