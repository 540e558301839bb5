// Package engines puts the browser engines behind one BrowserService and one set of page actions: Chromium
// (guest/internal/browser, over CDP, browser ids "chrome-<port>") and Firefox (guest/internal/bidi, over
// WebDriver BiDi, "firefox-<port>"). Each request goes to the engine its browser id names, and only there: a
// Firefox id never reaches the Chromium backend or the reverse, and no engine stands in for another.
// ListBrowsers lists both engines; start_default starts the default workspace browser of the engine asked for.
package engines

import (
	"context"
	"errors"
	"fmt"
	"strings"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/actions"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/validate"
)

// Backend is one engine's backend: the BrowserService reads and the page actions (the methods of
// server.BrowserIO, which this package cannot import: the server's tests use it).
type Backend interface {
	ListBrowsers(ctx context.Context, r *agentv1.ListBrowsersRequest) (*agentv1.ListBrowsersResponse, error)
	GetBrowser(ctx context.Context, r *agentv1.GetBrowserRequest) (*agentv1.GetBrowserResponse, error)
	ListTabs(ctx context.Context, r *agentv1.ListTabsRequest) (*agentv1.ListTabsResponse, error)
	SnapshotTab(ctx context.Context, r *agentv1.SnapshotTabRequest) (*agentv1.SnapshotTabResponse, error)
	Extract(ctx context.Context, r *agentv1.ExtractRequest) (*agentv1.ExtractResponse, error)
	CaptureTab(ctx context.Context, r *agentv1.CaptureTabRequest) (*agentv1.CaptureTabResponse, error)
	Act(ctx context.Context, r *agentv1.ActRequest, resp *agentv1.ActResponse) error
	ReleaseOwner(ctx context.Context, owner string) []string
}

// Router sends each request to the engine of the browser it names.
type Router struct {
	byEngine map[string]Backend
	order    []string
}

// New routes Chromium ids to chromium and Firefox ids to firefox.
func New(chromium, firefox Backend) *Router {
	return &Router{
		byEngine: map[string]Backend{validate.EngineChromium: chromium, validate.EngineFirefox: firefox},
		order:    []string{validate.EngineChromium, validate.EngineFirefox},
	}
}

// pick is the backend of a browser id; ids were validated, so an id of no engine is NOT_FOUND.
func (r *Router) pick(browserID string) (Backend, error) {
	if b, ok := r.byEngine[validate.Engine(browserID)]; ok {
		return b, nil
	}
	return nil, fmt.Errorf("browser %q: %w", browserID, errdefs.ErrNotFound)
}

// ListBrowsers lists both engines' browsers, Chromium's first; start_default goes to the engine asked for
// (Chromium when empty) only.
func (r *Router) ListBrowsers(ctx context.Context, req *agentv1.ListBrowsersRequest) (*agentv1.ListBrowsersResponse, error) {
	want := req.GetEngine()
	if want == "" {
		want = validate.EngineChromium
	}
	out := &agentv1.ListBrowsersResponse{}
	for _, e := range r.order {
		sub := &agentv1.ListBrowsersRequest{StartDefault: req.GetStartDefault() && e == want, Engine: e}
		resp, err := r.byEngine[e].ListBrowsers(ctx, sub)
		if err != nil {
			if sub.StartDefault {
				return nil, err
			}
			continue
		}
		out.Browsers = append(out.Browsers, resp.GetBrowsers()...)
	}
	return out, nil
}

// GetBrowser finds a browser by id on its engine, or the one tab of either engine showing a URL (several across
// the engines are TARGET_AMBIGUOUS with every candidate).
func (r *Router) GetBrowser(ctx context.Context, req *agentv1.GetBrowserRequest) (*agentv1.GetBrowserResponse, error) {
	if id := req.GetBrowserId(); id != "" {
		b, err := r.pick(id)
		if err != nil {
			return nil, err
		}
		return b.GetBrowser(ctx, req)
	}
	var found *agentv1.GetBrowserResponse
	var cands []string
	for _, e := range r.order {
		resp, err := r.byEngine[e].GetBrowser(ctx, req)
		switch {
		case err == nil:
			found = resp
			cands = append(cands, resp.GetBrowser().GetBrowserId()+"/"+resp.GetTab().GetTabId())
		case errors.Is(err, errdefs.ErrTargetAmbiguous):
			if c := errgrpc.Metadata(err)["candidates"]; c != "" {
				cands = append(cands, strings.Split(c, ",")...)
			}
		case errors.Is(err, errdefs.ErrNotFound):
		default:
			return nil, err
		}
	}
	switch {
	case len(cands) == 0:
		return nil, fmt.Errorf("no tab shows that url: %w", errdefs.ErrNotFound)
	case len(cands) == 1 && found != nil:
		return found, nil
	}
	return nil, errgrpc.WithMetadata(fmt.Errorf("%d tabs show that url: %w", len(cands), errdefs.ErrTargetAmbiguous),
		map[string]string{"candidates": strings.Join(cands, ",")})
}

// ListTabs lists a browser's tabs.
func (r *Router) ListTabs(ctx context.Context, req *agentv1.ListTabsRequest) (*agentv1.ListTabsResponse, error) {
	b, err := r.pick(req.GetBrowserId())
	if err != nil {
		return nil, err
	}
	return b.ListTabs(ctx, req)
}

// SnapshotTab snapshots a tab on its engine.
func (r *Router) SnapshotTab(ctx context.Context, req *agentv1.SnapshotTabRequest) (*agentv1.SnapshotTabResponse, error) {
	b, err := r.pick(req.GetTab().GetBrowserId())
	if err != nil {
		return nil, err
	}
	return b.SnapshotTab(ctx, req)
}

// Extract reads a tab on its engine.
func (r *Router) Extract(ctx context.Context, req *agentv1.ExtractRequest) (*agentv1.ExtractResponse, error) {
	b, err := r.pick(req.GetTab().GetBrowserId())
	if err != nil {
		return nil, err
	}
	return b.Extract(ctx, req)
}

// CaptureTab captures a tab on its engine.
func (r *Router) CaptureTab(ctx context.Context, req *agentv1.CaptureTabRequest) (*agentv1.CaptureTabResponse, error) {
	b, err := r.pick(req.GetTab().GetBrowserId())
	if err != nil {
		return nil, err
	}
	return b.CaptureTab(ctx, req)
}

// Act performs a page action on the engine of the browser it names (new_tab's browser_id, else its tab's).
func (r *Router) Act(ctx context.Context, req *agentv1.ActRequest, resp *agentv1.ActResponse) error {
	id := ""
	if nt, ok := req.GetAction().(*agentv1.ActRequest_NewTab); ok {
		id = nt.NewTab.GetBrowserId()
	} else if ref, _ := actions.TabOf(req); ref != nil {
		id = ref.GetBrowserId()
	}
	b, err := r.pick(id)
	if err != nil {
		return err
	}
	return b.Act(ctx, req, resp)
}

// ReleaseOwner releases the keys owner holds on every engine's tabs.
func (r *Router) ReleaseOwner(ctx context.Context, owner string) []string {
	var released []string
	for _, e := range r.order {
		released = append(released, r.byEngine[e].ReleaseOwner(ctx, owner)...)
	}
	return released
}

// observer is an engine that answers the one-call observation's tab part (both engines' backends do).
type observer interface {
	Observe(ctx context.Context, tab *agentv1.TabRef, o *agentv1.SnapshotOptions) (*agentv1.Snapshot, *agentv1.Element, error)
}

// Observe answers the one-call observation's snapshot and focused element of a tab on its engine; an engine
// without it would say so explicitly.
func (r *Router) Observe(ctx context.Context, tab *agentv1.TabRef, o *agentv1.SnapshotOptions) (*agentv1.Snapshot, *agentv1.Element, error) {
	b, err := r.pick(tab.GetBrowserId())
	if err != nil {
		return nil, nil, err
	}
	ob, ok := b.(observer)
	if !ok {
		return nil, nil, fmt.Errorf("the one-call observation of a tab is not supported on engine %s (use SnapshotTab and CaptureTab): %w",
			validate.Engine(tab.GetBrowserId()), errdefs.ErrUnsupportedAction)
	}
	return ob.Observe(ctx, tab, o)
}
