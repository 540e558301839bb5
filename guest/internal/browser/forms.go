package browser

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// setValue sets a form control's value with the native setter plus input and change events.
func (t *tab) setValue(ctx context.Context, s *agentv1.SetValue, resp *agentv1.ActResponse) error {
	loc, err := t.element(ctx, s.GetLocator(), "set_value")
	if err != nil {
		return err
	}
	resp.Target.ElementRef, resp.Target.SnapshotId = loc.ref, loc.snap
	var v struct{ Value string }
	if err := t.call(ctx, loc, jsSetValue, "set_value", &v, s.GetValue()); err != nil {
		return err
	}
	resp.Value = v.Value
	resp.Effect = agentv1.Effect_EFFECT_VERIFIED
	return nil
}

// selectText selects (or puts the caret before or after) the one match of prefix+text+suffix.
func (t *tab) selectText(ctx context.Context, s *agentv1.PageSelectText, resp *agentv1.ActResponse) error {
	loc, err := t.element(ctx, s.GetLocator(), "page_select_text")
	if err != nil {
		return err
	}
	resp.Target.ElementRef, resp.Target.SnapshotId = loc.ref, loc.snap
	m := s.GetMatch()
	var r struct{ Start, End int32 }
	if err := t.call(ctx, loc, jsSelectText, "page_select_text", &r, m.GetPrefix(), m.GetText(), m.GetSuffix(), int(s.GetCaret())); err != nil {
		return err
	}
	resp.Selection = &agentv1.TextRange{Start: r.Start, End: r.End}
	return nil
}

// paste dispatches a paste event; when the page does not consume it, the text goes in (insertHTML in
// contenteditable, done by the page function; Input.insertText in fields).
func (t *tab) paste(ctx context.Context, p *agentv1.Paste, resp *agentv1.ActResponse) error {
	var r struct{ Path string }
	if p.GetLocator() != nil {
		loc, err := t.element(ctx, p.GetLocator(), "paste")
		if err != nil {
			return err
		}
		resp.Target.ElementRef, resp.Target.SnapshotId = loc.ref, loc.snap
		if err := t.call(ctx, loc, jsPaste, "paste", &r, p.GetText(), p.GetHtml()); err != nil {
			return err
		}
	} else if err := t.eval(ctx, jsPaste, "paste", &r, p.GetText(), p.GetHtml()); err != nil {
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
			if _, err := cdp.Call(ctx, t.s, input.InsertText, input.InsertTextParams{Text: p.GetText()}); err != nil {
				return err
			}
		}
	}
	return nil
}

// scroll scrolls the page or a container and answers the positions before and after.
func (t *tab) scroll(ctx context.Context, s *agentv1.PageScroll, resp *agentv1.ActResponse) error {
	var r struct {
		Before, After struct{ X, Y float64 }
	}
	pages := s.GetUnit() == agentv1.ScrollUnit_SCROLL_UNIT_PAGES
	if s.GetLocator() != nil {
		loc, err := t.element(ctx, s.GetLocator(), "page_scroll")
		if err != nil {
			return err
		}
		resp.Target.ElementRef, resp.Target.SnapshotId = loc.ref, loc.snap
		if err := t.call(ctx, loc, jsScroll, "page_scroll", &r, s.GetDx(), s.GetDy(), pages); err != nil {
			return err
		}
	} else if err := t.eval(ctx, jsScroll, "page_scroll", &r, s.GetDx(), s.GetDy(), pages); err != nil {
		return err
	}
	resp.ScrollBefore = &agentv1.ScrollPosition{X: r.Before.X, Y: r.Before.Y}
	resp.ScrollAfter = &agentv1.ScrollPosition{X: r.After.X, Y: r.After.Y}
	return nil
}
