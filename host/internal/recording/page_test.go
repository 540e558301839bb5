package recording

import (
	"context"
	"testing"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// tabsActor answers a fixed list of tabs and records the page actions sent.
type tabsActor struct {
	tabs []*agentv1.Tab
	sent []*agentv1.ActRequest
}

func (a *tabsActor) Apps(context.Context) ([]*agentv1.App, error)                   { return nil, nil }
func (a *tabsActor) Snapshot(context.Context, string) (*agentv1.Snapshot, error)    { return nil, nil }
func (a *tabsActor) Tabs(context.Context) ([]*agentv1.Tab, error)                   { return a.tabs, nil }
func (a *tabsActor) Launch(context.Context, *agentv1.GetAppRequest) (uint64, error) { return 0, nil }
func (a *tabsActor) SnapshotTab(context.Context, *agentv1.TabRef) (*agentv1.Snapshot, error) {
	return &agentv1.Snapshot{}, nil
}
func (a *tabsActor) Act(_ context.Context, r *agentv1.ActRequest) (uint64, error) {
	a.sent = append(a.sent, r)
	return uint64(len(a.sent)), nil
}

// TestReplayMapsTabs: a page step's recorded tab goes to the replay guest's tab with the recorded URL (not to
// the recorded ids), later steps of that tab to the same one even after its URL changed; with no URL match and
// several tabs the step is not found and the replay stops; new_tab goes to the guest's one browser.
func TestReplayMapsTabs(t *testing.T) {
	navigate := func(i int, tab, url string) Step {
		return Step{Index: i, RPC: "/glovebox.broker.v1.ComputerService/Act", Action: "navigate", Code: "OK",
			Request: []byte(`{"navigate":{"tab":{"browserId":"chrome-1","tabId":"` + tab + `"},"url":"https://x.test/next"}}`),
			Tab:     &TabDesc{BrowserID: "chrome-1", TabID: tab, URL: url}}
	}
	a := &tabsActor{tabs: []*agentv1.Tab{
		{BrowserId: "chrome-2", TabId: "B1", Url: "about:blank"},
		{BrowserId: "chrome-2", TabId: "B2", Url: "https://x.test/page"},
	}}
	newTab := Step{Index: 2, RPC: "/glovebox.broker.v1.ComputerService/Act", Action: "new_tab", Code: "OK",
		Request: []byte(`{"newTab":{"browserId":"chrome-1","url":"https://x.test/other"}}`)}
	res := Replay(context.Background(), []Step{
		navigate(0, "A1", "https://x.test/page"), navigate(1, "A1", "https://x.test/next"), newTab, navigate(3, "A9", "https://x.test/gone"), navigate(4, "A1", ""),
	}, a, false)
	want := []string{StatusDone, StatusDone, StatusDone, StatusNotFound, StatusSkipped}
	for i, r := range res {
		if r.Status != want[i] {
			t.Errorf("step %d: %s (%s), want %s", i, r.Status, r.Detail, want[i])
		}
	}
	if len(a.sent) != 3 || a.sent[0].GetNavigate().GetTab().GetTabId() != "B2" || a.sent[1].GetNavigate().GetTab().GetTabId() != "B2" ||
		a.sent[0].GetNavigate().GetTab().GetBrowserId() != "chrome-2" || a.sent[2].GetNewTab().GetBrowserId() != "chrome-2" {
		t.Errorf("sent %v", a.sent)
	}
}
