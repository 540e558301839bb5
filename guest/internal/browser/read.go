package browser

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/jpeg" // DecodeConfig of captured JPEGs
	_ "image/png"  // DecodeConfig of captured PNGs
	"math"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"glovebox.dev/guest/internal/snapview"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// defaultExtractBytes is Extract's cut when max_bytes is 0.
const defaultExtractBytes = 1 << 20

// SnapshotTab snapshots a tab's accessibility tree; its refs replace the tab's earlier ones (unless detached).
func (b *Backend) SnapshotTab(ctx context.Context, r *agentv1.SnapshotTabRequest) (_ *agentv1.SnapshotTabResponse, err error) {
	t, err := b.resolveTab(ctx, r.GetTab())
	if err != nil {
		return nil, err
	}
	defer t.because(&err)
	s, err := t.snap(ctx, r.GetOptions(), !r.GetOptions().GetDetached())
	if err != nil {
		return nil, err
	}
	return &agentv1.SnapshotTabResponse{Snapshot: s}, nil
}

// Extract returns the tab's accessibility tree as text, its DOM, or its buffered console messages.
func (b *Backend) Extract(ctx context.Context, r *agentv1.ExtractRequest) (_ *agentv1.ExtractResponse, err error) {
	t, err := b.resolveTab(ctx, r.GetTab())
	if err != nil {
		return nil, err
	}
	defer t.because(&err)
	limit := int(r.GetMaxBytes())
	if limit == 0 {
		limit = defaultExtractBytes
	}
	out := &agentv1.ExtractResponse{}
	switch r.GetKind() {
	case agentv1.ExtractKind_EXTRACT_KIND_A11Y:
		s, err := t.snap(ctx, &agentv1.SnapshotOptions{MaxNodes: 20000}, false)
		if err != nil {
			return nil, err
		}
		out.Content = s.GetText()
		out.Truncated = !s.GetComplete()
	case agentv1.ExtractKind_EXTRACT_KIND_DOM:
		res, err := cdp.Call(ctx, t.s, runtime.Evaluate, runtime.EvaluateParams{
			Expression: "document.documentElement ? document.documentElement.outerHTML : ''", ReturnByValue: ptr(true)})
		if err != nil {
			return nil, err
		}
		var html string
		if err := decodeResult(res.Result, res.ExceptionDetails, "extract dom", &html); err != nil {
			return nil, err
		}
		out.Content = html
	case agentv1.ExtractKind_EXTRACT_KIND_CONSOLE:
		out.Console, out.Truncated = ConsoleTail(t.consoleMessages(), limit)
		return out, nil
	default:
		return nil, fmt.Errorf("extract kind %v: %w", r.GetKind(), errdefs.ErrInvalidArgument)
	}
	if len(out.Content) > limit {
		out.Content, out.Truncated = cutUTF8(out.Content, limit), true
	}
	return out, nil
}

// CaptureTab captures the viewport or the full page, scaled so the longer edge fits max_edge.
func (b *Backend) CaptureTab(ctx context.Context, r *agentv1.CaptureTabRequest) (_ *agentv1.CaptureTabResponse, err error) {
	t, err := b.resolveTab(ctx, r.GetTab())
	if err != nil {
		return nil, err
	}
	defer t.because(&err)
	m, err := cdp.Call(ctx, t.s, page.GetLayoutMetrics, cdp.Empty{})
	if err != nil {
		return nil, err
	}
	var clip page.Viewport
	if vv := m.CSSVisualViewport; vv != nil {
		clip = page.Viewport{X: vv.PageX, Y: vv.PageY, Width: vv.ClientWidth, Height: vv.ClientHeight, Scale: 1}
	}
	if r.GetFullPage() && m.CSSContentSize != nil {
		clip = page.Viewport{Width: m.CSSContentSize.Width, Height: m.CSSContentSize.Height, Scale: 1}
	}
	if clip.Width < 1 || clip.Height < 1 {
		return nil, fmt.Errorf("capture tab %s: the page has no area: %w", t.id, errdefs.ErrNotFound)
	}
	if me := float64(r.GetMaxEdge()); me > 0 && math.Max(clip.Width, clip.Height) > me {
		clip.Scale = me / math.Max(clip.Width, clip.Height)
	}
	p := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng, Clip: &clip, CaptureBeyondViewport: ptr(r.GetFullPage())}
	format := agentv1.ImageFormat_IMAGE_FORMAT_PNG
	if r.GetFormat() == agentv1.ImageFormat_IMAGE_FORMAT_JPEG {
		q := int64(r.GetQuality())
		if q == 0 {
			q = 80
		}
		p.Format, p.Quality, format = page.CaptureScreenshotFormatJpeg, &q, agentv1.ImageFormat_IMAGE_FORMAT_JPEG
	}
	shot, err := cdp.Call(ctx, t.s, page.CaptureScreenshot, p)
	if err != nil {
		return nil, err
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(shot.Data))
	if err != nil {
		return nil, fmt.Errorf("capture tab %s: decode: %w: %w", t.id, errdefs.ErrInternal, err)
	}
	img := &agentv1.Image{
		Format: format, Width: int32(cfg.Width), Height: int32(cfg.Height), Data: shot.Data,
		Scale:  float64(cfg.Width) / clip.Width,
		Region: &agentv1.Rect{X: int32(clip.X), Y: int32(clip.Y), Width: int32(math.Ceil(clip.Width)), Height: int32(math.Ceil(clip.Height))},
	}
	return &agentv1.CaptureTabResponse{Image: img}, nil
}

// Observe snapshots a tab for a one-call observation and tells its focused element: the snapshot's element in
// the "focused" state, with its ref (registered, so it resolves even when it is on a later page); nil when none
// is (or a filter left it out).
func (b *Backend) Observe(ctx context.Context, tab *agentv1.TabRef, o *agentv1.SnapshotOptions) (_ *agentv1.Snapshot, _ *agentv1.Element, err error) {
	t, err := b.resolveTab(ctx, tab)
	if err != nil {
		return nil, nil, err
	}
	defer t.because(&err)
	s, err := t.snap(ctx, o, !o.GetDetached())
	if err != nil || o.GetDetached() {
		return s, nil, err
	}
	if el := t.refs.Focused(s.GetSnapshotId(), snapview.ViewOf(o, 0).FieldBytes); el != nil {
		return s, el, nil
	}
	return s, nil, nil
}
