package recording

import (
	"context"
	"testing"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// TestResolve: an element is found by role, name and path, never by its old ref: the same place is done, a
// moved one (another path) is resolved differently, a renamed one is not found even when its old ref still
// exists; one recorded from a window's snapshot is in the same place under the root of the app's.
func TestResolve(t *testing.T) {
	saved := &Element{Role: "push button", Name: "Save", Ref: "e4",
		Path: []PathStep{{Role: "frame", Name: "Editor"}, {Role: "tool bar"}}}
	tree := func(toolbarRole, name string) []*agentv1.Element {
		return []*agentv1.Element{
			{Ref: "e1", Role: "frame", Name: "Editor"},
			{Ref: "e2", Role: toolbarRole, ParentRef: "e1"},
			{Ref: "e3", Role: "push button", Name: "Open", ParentRef: "e2"},
			{Ref: "e9", Role: "push button", Name: name, ParentRef: "e2"},
			{Ref: "e4", Role: "push button", Name: "Quit", ParentRef: "e1"},
		}
	}
	for _, c := range []struct {
		name            string
		elems           []*agentv1.Element
		wantRef, status string
	}{
		{"same place, new ref", tree("tool bar", "Save"), "e9", StatusDone},
		{"moved into a panel", tree("panel", "Save"), "e9", StatusResolvedDifferently},
		{"renamed", tree("tool bar", "Save as"), "", StatusNotFound},
		{"under the app's root", append([]*agentv1.Element{{Ref: "e0", Role: "application", Name: "editor"}},
			withParent(tree("tool bar", "Save"), "e1", "e0")...), "e9", StatusDone},
	} {
		ref, status := Resolve(saved, c.elems)
		if ref != c.wantRef || status != c.status {
			t.Errorf("%s: %q %s, want %q %s", c.name, ref, status, c.wantRef, c.status)
		}
	}
}

// withParent gives the element ref of elems the parent parent.
func withParent(elems []*agentv1.Element, ref, parent string) []*agentv1.Element {
	for _, e := range elems {
		if e.GetRef() == ref {
			e.ParentRef = parent
		}
	}
	return elems
}

// TestRequestRefusesHashedText: a step whose text is only length + HMAC is not replayed with a made-up text.
func TestRequestRefusesHashedText(t *testing.T) {
	st := Step{Index: 3, Action: "type", Request: []byte(`{"owner":"s-1","type":{"text":{"length":5,"hmac_sha256":"ab"}}}`)}
	if _, err := Request(st); err == nil {
		t.Fatal("a hashed text was replayed")
	}
	st.RequestText = []byte(`{"owner":"s-1","target":{"window":{"windowId":7}},"type":{"text":"hello"}}`)
	r, err := Request(st)
	if err != nil || r.GetType().GetText() != "hello" || r.GetOwner() != "" || r.GetTarget() != nil {
		t.Fatalf("request %v, %v; want the kept text without owner and target", r, err)
	}
}

// launchActor records what a replay sends; its apps are what was launched.
type launchActor struct {
	launched []*agentv1.GetAppRequest
	acts     int
}

func (a *launchActor) Apps(context.Context) ([]*agentv1.App, error) {
	var apps []*agentv1.App
	for _, r := range a.launched {
		apps = append(apps, &agentv1.App{AppId: "app:1", Name: r.GetName()})
	}
	return apps, nil
}

func (a *launchActor) Snapshot(context.Context, string) (*agentv1.Snapshot, error) {
	return &agentv1.Snapshot{SnapshotId: "app:1.s2", Elements: []*agentv1.Element{{Ref: "e1", Role: "text"}}}, nil
}

func (a *launchActor) Act(context.Context, *agentv1.ActRequest) (uint64, error) {
	a.acts++
	return 9, nil
}

func (a *launchActor) Launch(_ context.Context, r *agentv1.GetAppRequest) (uint64, error) {
	a.launched = append(a.launched, r)
	return 8, nil
}

// TestReplayLaunchesTheApp: a recorded launch (GetApp with launch) is replayed with its name and arguments,
// so the element step after it finds the app on a desktop where it was not running. The old code skipped it
// ("not a successful Act") and the element step was not found.
func TestReplayLaunchesTheApp(t *testing.T) {
	steps := []Step{
		{Index: 0, Action: "GetApp", RPC: "/glovebox.broker.v1.ComputerService/GetApp", Code: "OK",
			Request: []byte(`{"name":"mousepad","launch":true,"args":["/tmp/notes.txt"],"launch_timeout_ms":30000}`)},
		{Index: 1, Action: "element_focus", RPC: "/glovebox.broker.v1.ComputerService/Act", Code: "OK",
			Request: []byte(`{"element_focus":{"element":{"snapshot_id":"app:7.s1","ref":"e5"}}}`),
			Element: &Element{AppID: "app:7", App: "mousepad", Role: "text"}},
	}
	a := &launchActor{}
	res := Replay(context.Background(), steps, a, false)
	if len(a.launched) != 1 || a.launched[0].GetName() != "mousepad" || !a.launched[0].GetLaunch() ||
		len(a.launched[0].GetArgs()) != 1 || a.launched[0].GetArgs()[0] != "/tmp/notes.txt" {
		t.Fatalf("launched %v, want mousepad /tmp/notes.txt", a.launched)
	}
	if res[0].Status != StatusDone || res[0].AuditSeq != 8 || res[1].Status != StatusDone || a.acts != 1 {
		t.Fatalf("results %+v, acts %d; want the launch and the element step done", res, a.acts)
	}
}
