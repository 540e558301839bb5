package engines

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// fakeEngine is one engine's backend that records what it was asked: browser <id>, whose tabs show urls.
type fakeEngine struct {
	id    string
	urls  map[string]string // tab id -> url
	calls []string
	start []bool
}

func (f *fakeEngine) ListBrowsers(_ context.Context, r *agentv1.ListBrowsersRequest) (*agentv1.ListBrowsersResponse, error) {
	f.start = append(f.start, r.GetStartDefault())
	return &agentv1.ListBrowsersResponse{Browsers: []*agentv1.Browser{{BrowserId: f.id}}}, nil
}

func (f *fakeEngine) GetBrowser(_ context.Context, r *agentv1.GetBrowserRequest) (*agentv1.GetBrowserResponse, error) {
	var hits []string
	for tab, u := range f.urls {
		if u == r.GetUrl() {
			hits = append(hits, tab)
		}
	}
	sort.Strings(hits)
	switch len(hits) {
	case 0:
		return nil, fmt.Errorf("no tab: %w", errdefs.ErrNotFound)
	case 1:
		return &agentv1.GetBrowserResponse{Browser: &agentv1.Browser{BrowserId: f.id}, Tab: &agentv1.Tab{BrowserId: f.id, TabId: hits[0]}}, nil
	}
	for i := range hits {
		hits[i] = f.id + "/" + hits[i]
	}
	return nil, errgrpc.WithMetadata(fmt.Errorf("several: %w", errdefs.ErrTargetAmbiguous), map[string]string{"candidates": strings.Join(hits, ",")})
}

func (f *fakeEngine) ListTabs(context.Context, *agentv1.ListTabsRequest) (*agentv1.ListTabsResponse, error) {
	f.calls = append(f.calls, "ListTabs")
	return &agentv1.ListTabsResponse{}, nil
}

func (f *fakeEngine) SnapshotTab(context.Context, *agentv1.SnapshotTabRequest) (*agentv1.SnapshotTabResponse, error) {
	f.calls = append(f.calls, "SnapshotTab")
	return &agentv1.SnapshotTabResponse{}, nil
}

func (f *fakeEngine) Extract(context.Context, *agentv1.ExtractRequest) (*agentv1.ExtractResponse, error) {
	f.calls = append(f.calls, "Extract")
	return &agentv1.ExtractResponse{}, nil
}

func (f *fakeEngine) CaptureTab(context.Context, *agentv1.CaptureTabRequest) (*agentv1.CaptureTabResponse, error) {
	f.calls = append(f.calls, "CaptureTab")
	return &agentv1.CaptureTabResponse{}, nil
}

func (f *fakeEngine) Act(_ context.Context, r *agentv1.ActRequest, _ *agentv1.ActResponse) error {
	f.calls = append(f.calls, fmt.Sprintf("Act %T", r.GetAction()))
	return nil
}

func (f *fakeEngine) ReleaseOwner(context.Context, string) []string { return []string{f.id} }

// TestRouting: every request reaches the engine its browser id names and no other; start_default reaches only the
// engine asked for; a URL shown on both engines is ambiguous with every candidate.
func TestRouting(t *testing.T) {
	ctx := context.Background()
	c := &fakeEngine{id: "chrome-9222", urls: map[string]string{"C1": "https://a.example/", "C2": "https://c.example/"}}
	f := &fakeEngine{id: "firefox-9223", urls: map[string]string{"F1": "https://a.example/", "F2": "https://f.example/"}}
	r := New(c, f)
	ff := &agentv1.TabRef{BrowserId: "firefox-9223", TabId: "F1"}
	r.ListTabs(ctx, &agentv1.ListTabsRequest{BrowserId: "firefox-9223"})
	r.SnapshotTab(ctx, &agentv1.SnapshotTabRequest{Tab: ff})
	r.Extract(ctx, &agentv1.ExtractRequest{Tab: ff})
	r.CaptureTab(ctx, &agentv1.CaptureTabRequest{Tab: ff})
	r.Act(ctx, &agentv1.ActRequest{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: ff, Url: "about:blank"}}}, &agentv1.ActResponse{})
	r.Act(ctx, &agentv1.ActRequest{Action: &agentv1.ActRequest_NewTab{NewTab: &agentv1.NewTab{BrowserId: "chrome-9222"}}}, &agentv1.ActResponse{})
	if diff := cmp.Diff([]string{"ListTabs", "SnapshotTab", "Extract", "CaptureTab", "Act *agentv1.ActRequest_Navigate"}, f.calls); diff != "" {
		t.Errorf("firefox calls (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Act *agentv1.ActRequest_NewTab"}, c.calls); diff != "" {
		t.Errorf("chromium calls (-want +got):\n%s", diff)
	}
	if err := r.Act(ctx, &agentv1.ActRequest{Action: &agentv1.ActRequest_ReleaseAll{ReleaseAll: &agentv1.ReleaseAll{}}}, &agentv1.ActResponse{}); !errors.Is(err, errdefs.ErrNotFound) {
		t.Errorf("an action naming no browser: %v, want NOT_FOUND", err)
	}

	for _, tc := range []struct {
		engine       string
		start        bool
		wantC, wantF bool
	}{{"", true, true, false}, {"chromium", true, true, false}, {"firefox", true, false, true}, {"firefox", false, false, false}} {
		c.start, f.start = nil, nil
		resp, err := r.ListBrowsers(ctx, &agentv1.ListBrowsersRequest{StartDefault: tc.start, Engine: tc.engine})
		if err != nil || len(resp.GetBrowsers()) != 2 {
			t.Errorf("ListBrowsers %q: %v %v, want both engines' browsers", tc.engine, resp, err)
		}
		if c.start[0] != tc.wantC || f.start[0] != tc.wantF {
			t.Errorf("start_default %v engine %q reached chromium %v firefox %v", tc.start, tc.engine, c.start[0], f.start[0])
		}
	}

	one, err := r.GetBrowser(ctx, &agentv1.GetBrowserRequest{Url: "https://f.example/"})
	if err != nil || one.GetTab().GetTabId() != "F2" {
		t.Errorf("url on firefox only: %v %v", one, err)
	}
	_, err = r.GetBrowser(ctx, &agentv1.GetBrowserRequest{Url: "https://a.example/"})
	if !errors.Is(err, errdefs.ErrTargetAmbiguous) || errgrpc.Metadata(err)["candidates"] != "chrome-9222/C1,firefox-9223/F1" {
		t.Errorf("url on both engines: %v (candidates %q), want TARGET_AMBIGUOUS with both", err, errgrpc.Metadata(err)["candidates"])
	}
	if _, err := r.GetBrowser(ctx, &agentv1.GetBrowserRequest{Url: "https://none.example/"}); !errors.Is(err, errdefs.ErrNotFound) {
		t.Errorf("url on no engine: %v", err)
	}
	if diff := cmp.Diff([]string{"chrome-9222", "firefox-9223"}, r.ReleaseOwner(ctx, "o")); diff != "" {
		t.Errorf("released (-want +got):\n%s", diff)
	}
}
