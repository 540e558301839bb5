package server

import (
	"context"
	"fmt"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// Browser is the browser backend (the engines: Chromium over CDP, Firefox over WebDriver BiDi): the BrowserService
// reads and the page actions of Act.
type Browser interface {
	capable
	BrowserIO
}

// BrowserIO is the part of the browser backend that does not depend on this package, so the backend
// (guest/internal/browser) can be tested through these services without an import cycle.
type BrowserIO interface {
	ListBrowsers(ctx context.Context, r *agentv1.ListBrowsersRequest) (*agentv1.ListBrowsersResponse, error)
	GetBrowser(ctx context.Context, r *agentv1.GetBrowserRequest) (*agentv1.GetBrowserResponse, error)
	ListTabs(ctx context.Context, r *agentv1.ListTabsRequest) (*agentv1.ListTabsResponse, error)
	SnapshotTab(ctx context.Context, r *agentv1.SnapshotTabRequest) (*agentv1.SnapshotTabResponse, error)
	// Observe snapshots a tab for a one-call observation and answers its focused element (nil: none).
	Observe(ctx context.Context, tab *agentv1.TabRef, o *agentv1.SnapshotOptions) (*agentv1.Snapshot, *agentv1.Element, error)
	Extract(ctx context.Context, r *agentv1.ExtractRequest) (*agentv1.ExtractResponse, error)
	CaptureTab(ctx context.Context, r *agentv1.CaptureTabRequest) (*agentv1.CaptureTabResponse, error)
	// Act performs a validated page action inside the agent's mutation queue on the tab it names (never another),
	// and fills resp's target ids (browser, tab, element) and the action's results.
	Act(ctx context.Context, r *agentv1.ActRequest, resp *agentv1.ActResponse) error
	// ReleaseOwner releases every key the owner holds with page_key_down, on every tab, and names them.
	ReleaseOwner(ctx context.Context, owner string) []string
}

// AdaptBrowser turns a BrowserIO (such as *engines.Router) into a Browser that is available: browsers are
// found per request, so the backend itself is always there.
func AdaptBrowser(b BrowserIO) Browser { return adaptedBrowser{b} }

type adaptedBrowser struct{ BrowserIO }

// Capability reports the backend available.
func (adaptedBrowser) Capability() Capability { return Available }

// browserService serves BrowserService: it validates each request completely, then asks the backend.
type browserService struct {
	agentv1.UnimplementedBrowserServiceServer
	s *Services
}

func newBrowserService(s *Services) *browserService { return &browserService{s: s} }

func (b *browserService) backend() (Browser, error) {
	if b.s.b().Browser == nil {
		return nil, fmt.Errorf("browser: %s: %w", b.s.missing(agentv1.Backend_BACKEND_BROWSER), errdefs.ErrCapabilityUnavailable)
	}
	return b.s.b().Browser, nil
}

// serveBrowser validates r, then calls the backend.
func serveBrowser[Req, Resp any](b *browserService, ctx context.Context, r Req, check func(Req) error, call func(Browser, context.Context, Req) (Resp, error)) (Resp, error) {
	var zero Resp
	if err := check(r); err != nil {
		return zero, err
	}
	br, err := b.backend()
	if err != nil {
		return zero, err
	}
	return call(br, ctx, r)
}

// ListBrowsers lists the browsers; see browser.proto.
func (b *browserService) ListBrowsers(ctx context.Context, r *agentv1.ListBrowsersRequest) (*agentv1.ListBrowsersResponse, error) {
	rep := b.s.beginReport()
	resp, err := serveBrowser(b, ctx, r, validate.ListBrowsers, Browser.ListBrowsers)
	if err != nil || !r.GetStartDefault() {
		return resp, err
	}
	// With start_default the answer says what the start did: the default browser listed means its DevTools
	// port answered after the call (a read-back); the backend fails the call when the start does not.
	rep.checked()
	var def *agentv1.Browser
	for _, br := range resp.GetBrowsers() {
		if br.GetDefaultWorkspace() {
			def = br
		}
	}
	resp.Effect = agentv1.Effect_EFFECT_UNVERIFIABLE
	if def != nil {
		resp.Effect = agentv1.Effect_EFFECT_VERIFIED
	}
	rep.done(func(t *agentv1.FrozenTarget) { t.BrowserId = def.GetBrowserId() })
	resp.Target, resp.Timing = rep.target, rep.timing
	return resp, nil
}

// GetBrowser finds a browser by id or a tab by URL.
func (b *browserService) GetBrowser(ctx context.Context, r *agentv1.GetBrowserRequest) (*agentv1.GetBrowserResponse, error) {
	return serveBrowser(b, ctx, r, validate.GetBrowser, Browser.GetBrowser)
}

// ListTabs lists a browser's tabs.
func (b *browserService) ListTabs(ctx context.Context, r *agentv1.ListTabsRequest) (*agentv1.ListTabsResponse, error) {
	return serveBrowser(b, ctx, r, validate.ListTabs, Browser.ListTabs)
}

// SnapshotTab snapshots a tab.
func (b *browserService) SnapshotTab(ctx context.Context, r *agentv1.SnapshotTabRequest) (*agentv1.SnapshotTabResponse, error) {
	resp, err := serveBrowser(b, ctx, r, validate.SnapshotTab, Browser.SnapshotTab)
	if err == nil && resp.GetSnapshot() != nil {
		resp.Snapshot.Generation = b.s.opts.Generation
		if t := resp.Snapshot.GetTarget(); t != nil {
			t.Generation = b.s.opts.Generation
		}
	}
	return resp, err
}

// Extract returns a tab's content.
func (b *browserService) Extract(ctx context.Context, r *agentv1.ExtractRequest) (*agentv1.ExtractResponse, error) {
	return serveBrowser(b, ctx, r, validate.Extract, Browser.Extract)
}

// CaptureTab captures a tab.
func (b *browserService) CaptureTab(ctx context.Context, r *agentv1.CaptureTabRequest) (*agentv1.CaptureTabResponse, error) {
	return serveBrowser(b, ctx, r, validate.CaptureTab, Browser.CaptureTab)
}
