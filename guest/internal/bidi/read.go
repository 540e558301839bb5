package bidi

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	_ "image/jpeg" // DecodeConfig of captured JPEGs
	_ "image/png"  // DecodeConfig of captured PNGs

	"glovebox.dev/guest/internal/browser"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// defaultExtractBytes is Extract's cut when max_bytes is 0.
const defaultExtractBytes = 1 << 20

// Extract returns the tab's accessibility tree as text (a DOM-derived approximation on Firefox, said by
// dom_derived), its DOM, or its buffered console messages.
func (b *Backend) Extract(ctx context.Context, r *agentv1.ExtractRequest) (*agentv1.ExtractResponse, error) {
	t, err := b.resolveTab(ctx, r.GetTab())
	if err != nil {
		return nil, err
	}
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
		out.Content, out.Truncated, out.DomDerived = s.GetText(), !s.GetComplete(), true
	case agentv1.ExtractKind_EXTRACT_KIND_DOM:
		var html string
		if err := t.call(ctx, nil, `function() { return document.documentElement ? document.documentElement.outerHTML : ''; }`, "extract dom", &html); err != nil {
			return nil, err
		}
		out.Content = html
	case agentv1.ExtractKind_EXTRACT_KIND_CONSOLE:
		out.Console, out.Truncated = browser.ConsoleTail(t.consoleMessages(), limit)
		return out, nil
	default:
		return nil, fmt.Errorf("extract kind %v: %w", r.GetKind(), errdefs.ErrInvalidArgument)
	}
	if len(out.Content) > limit {
		out.Content, out.Truncated = browser.CutUTF8(out.Content, limit), true
	}
	return out, nil
}

// CaptureTab captures the viewport or the full page (browsingContext.captureScreenshot, origin viewport or
// document). BiDi captures at the page's own scale, so a max_edge the capture exceeds is UNSUPPORTED_ACTION on
// Firefox rather than an image of another size than asked.
func (b *Backend) CaptureTab(ctx context.Context, r *agentv1.CaptureTabRequest) (*agentv1.CaptureTabResponse, error) {
	t, err := b.resolveTab(ctx, r.GetTab())
	if err != nil {
		return nil, err
	}
	var m struct{ X, Y, W, H float64 }
	size := `function(full) { const e = document.scrollingElement || document.documentElement;
  return full ? {x: 0, y: 0, w: e.scrollWidth, h: e.scrollHeight} : {x: scrollX, y: scrollY, w: innerWidth, h: innerHeight}; }`
	if err := t.call(ctx, nil, size, "capture tab", &m, r.GetFullPage()); err != nil {
		return nil, err
	}
	if me := float64(r.GetMaxEdge()); me > 0 && max(m.W, m.H) > me {
		return nil, unsupported("capture_tab with a max_edge smaller than the page (scaling)")
	}
	origin := "viewport"
	if r.GetFullPage() {
		origin = "document"
	}
	format := map[string]any{"type": "image/png"}
	imgFormat := agentv1.ImageFormat_IMAGE_FORMAT_PNG
	if r.GetFormat() == agentv1.ImageFormat_IMAGE_FORMAT_JPEG {
		q := r.GetQuality()
		if q == 0 {
			q = 80
		}
		format, imgFormat = map[string]any{"type": "image/jpeg", "quality": float64(q) / 100}, agentv1.ImageFormat_IMAGE_FORMAT_JPEG
	}
	var shot struct {
		Data string `json:"data"`
	}
	if err := t.f.conn.call(ctx, "browsingContext.captureScreenshot", map[string]any{"context": t.id, "origin": origin, "format": format}, &shot); err != nil {
		return nil, t.closedErr(err, "capture tab")
	}
	data, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		return nil, fmt.Errorf("capture tab %s: decode: %w: %w", t.id, errdefs.ErrInternal, err)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("capture tab %s: decode: %w: %w", t.id, errdefs.ErrInternal, err)
	}
	scale := 1.0
	if m.W > 0 {
		scale = float64(cfg.Width) / m.W
	}
	img := &agentv1.Image{Format: imgFormat, Width: int32(cfg.Width), Height: int32(cfg.Height), Data: data, Scale: scale,
		Region: &agentv1.Rect{X: int32(m.X), Y: int32(m.Y), Width: int32(m.W), Height: int32(m.H)}}
	return &agentv1.CaptureTabResponse{Image: img}, nil
}

// setValue sets a form control's value with the native setter plus input and change events.
func (t *tab) setValue(ctx context.Context, s *agentv1.SetValue, resp *agentv1.ActResponse) error {
	loc, err := t.locate(s.GetLocator())
	if err != nil {
		return err
	}
	resp.Target.ElementRef, resp.Target.SnapshotId = loc.ref, loc.snap
	var v struct{ Value string }
	if err := t.call(ctx, loc, browser.Scripts.SetValue, "set_value", &v, s.GetValue()); err != nil {
		return err
	}
	resp.Value = v.Value
	resp.Effect = agentv1.Effect_EFFECT_VERIFIED
	return nil
}

// selectText selects (or puts the caret before or after) the one match of prefix+text+suffix.
func (t *tab) selectText(ctx context.Context, s *agentv1.PageSelectText, resp *agentv1.ActResponse) error {
	loc, err := t.locate(s.GetLocator())
	if err != nil {
		return err
	}
	resp.Target.ElementRef, resp.Target.SnapshotId = loc.ref, loc.snap
	m := s.GetMatch()
	var r struct{ Start, End int32 }
	if err := t.call(ctx, loc, browser.Scripts.SelectText, "page_select_text", &r, m.GetPrefix(), m.GetText(), m.GetSuffix(), int(s.GetCaret())); err != nil {
		return err
	}
	resp.Selection = &agentv1.TextRange{Start: r.Start, End: r.End}
	return nil
}

// paste dispatches a paste event; when the page does not consume it, the text goes in (insertHTML in
// contenteditable, done by the page function; typed as trusted keys in fields).
func (t *tab) paste(ctx context.Context, p *agentv1.Paste, resp *agentv1.ActResponse) error {
	var loc *located
	if p.GetLocator() != nil {
		var err error
		if loc, err = t.locate(p.GetLocator()); err != nil {
			return err
		}
		resp.Target.ElementRef, resp.Target.SnapshotId = loc.ref, loc.snap
	}
	var r struct{ Path string }
	if err := t.call(ctx, loc, browser.Scripts.Paste, "paste", &r, p.GetText(), p.GetHtml()); err != nil {
		return err
	}
	switch r.Path {
	case "event":
		resp.PastePath = agentv1.PastePath_PASTE_PATH_EVENT
	case "html":
		resp.PastePath = agentv1.PastePath_PASTE_PATH_INSERT_HTML
	default:
		resp.PastePath = agentv1.PastePath_PASTE_PATH_INSERT_TEXT
		if p.GetText() != "" {
			if _, err := t.typeText(ctx, p.GetText(), 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// scroll scrolls the page or a container and answers the positions before and after.
func (t *tab) scroll(ctx context.Context, s *agentv1.PageScroll, resp *agentv1.ActResponse) error {
	var loc *located
	if s.GetLocator() != nil {
		var err error
		if loc, err = t.locate(s.GetLocator()); err != nil {
			return err
		}
		resp.Target.ElementRef, resp.Target.SnapshotId = loc.ref, loc.snap
	}
	var r struct {
		Before, After struct{ X, Y float64 }
	}
	pages := s.GetUnit() == agentv1.ScrollUnit_SCROLL_UNIT_PAGES
	if err := t.call(ctx, loc, browser.Scripts.Scroll, "page_scroll", &r, s.GetDx(), s.GetDy(), pages); err != nil {
		return err
	}
	resp.ScrollBefore = &agentv1.ScrollPosition{X: r.Before.X, Y: r.Before.Y}
	resp.ScrollAfter = &agentv1.ScrollPosition{X: r.After.X, Y: r.After.Y}
	return nil
}
