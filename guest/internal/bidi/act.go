package bidi

import (
	"context"
	"errors"
	"fmt"
	"time"

	"glovebox.dev/guest/internal/browser"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/actions"
	"glovebox.dev/shared/errdefs"
)

// Navigation limits.
const (
	// defaultNavigateTimeout is navigate's wait for the load event when timeout_ms is 0.
	defaultNavigateTimeout = 30 * time.Second
	// historyTimeout bounds waiting for a history step to commit.
	historyTimeout = 30 * time.Second
	// waitForPoll is how often wait_for looks at the page.
	waitForPoll = 50 * time.Millisecond
)

// unsupported is UNSUPPORTED_ACTION naming the engine.
func unsupported(what string) error {
	return fmt.Errorf("%s is not supported on firefox (WebDriver BiDi): %w", what, errdefs.ErrUnsupportedAction)
}

// Act performs a validated page action on the tab it names, never another, and fills resp's frozen target
// (browser_id, tab_id, element ref) and results. A failed action releases the keys its owner holds on the tab.
func (b *Backend) Act(ctx context.Context, r *agentv1.ActRequest, resp *agentv1.ActResponse) error {
	ft := resp.Target
	if ft == nil {
		ft = &agentv1.FrozenTarget{Source: agentv1.TargetSource_TARGET_SOURCE_EXPLICIT}
		resp.Target = ft
	}
	switch a := r.GetAction().(type) {
	case *agentv1.ActRequest_NewTab:
		return b.newTab(ctx, a.NewTab, resp)
	case *agentv1.ActRequest_SecondaryAction:
		ref := a.SecondaryAction.GetTab()
		ft.BrowserId, ft.TabId = ref.GetBrowserId(), ref.GetTabId()
		return unsupported("secondary_action (context menu) on a page")
	}
	ref, _ := actions.TabOf(r)
	ft.BrowserId, ft.TabId = ref.GetBrowserId(), ref.GetTabId()
	t, err := b.resolveTab(ctx, ref)
	if err != nil {
		return err
	}
	if err = b.act(ctx, t, r, resp); err != nil {
		b.releaseTab(ctx, r.GetOwner(), t)
		err = t.closedErr(err, "action")
	}
	return err
}

// act runs one action on its tab.
func (b *Backend) act(ctx context.Context, t *tab, r *agentv1.ActRequest, resp *agentv1.ActResponse) error {
	owner := r.GetOwner()
	c := t.f.conn
	switch a := r.GetAction().(type) {
	case *agentv1.ActRequest_CloseTab:
		return c.call(ctx, "browsingContext.close", map[string]any{"context": t.id}, nil)
	case *agentv1.ActRequest_ActivateTab:
		return c.call(ctx, "browsingContext.activate", map[string]any{"context": t.id}, nil)
	case *agentv1.ActRequest_Navigate:
		timeout := defaultNavigateTimeout
		if ms := a.Navigate.GetTimeoutMs(); ms > 0 {
			timeout = time.Duration(ms) * time.Millisecond
		}
		return t.load(ctx, timeout, "navigate", "browsingContext.navigate", map[string]any{"context": t.id, "url": a.Navigate.GetUrl()})
	case *agentv1.ActRequest_Reload:
		if a.Reload.GetHard() {
			// BiDi's browsingContext.reload has ignoreCache, which Firefox refuses ("not supported yet"); a normal
			// reload in its place would silently keep the cache.
			return unsupported("reload with hard (bypassing the cache)")
		}
		return t.load(ctx, defaultNavigateTimeout, "reload", "browsingContext.reload", map[string]any{"context": t.id})
	case *agentv1.ActRequest_StopLoading:
		// BiDi has no stop command; window.stop() is what the stop button does.
		return t.call(ctx, nil, `function() { window.stop(); }`, "stop_loading", nil)
	case *agentv1.ActRequest_History:
		return t.history(ctx, a.History.GetDirection() == agentv1.HistoryDirection_HISTORY_DIRECTION_BACK)
	case *agentv1.ActRequest_PageClick:
		return b.click(ctx, t, owner, a.PageClick, resp)
	case *agentv1.ActRequest_Fill:
		return t.fill(ctx, a.Fill, resp)
	case *agentv1.ActRequest_PageType:
		n, err := t.typeText(ctx, a.PageType.GetText(), time.Duration(a.PageType.GetDelayMs())*time.Millisecond)
		resp.CharactersTyped = int32(n)
		return err
	case *agentv1.ActRequest_Press:
		return t.press(ctx, a.Press.GetKey(), int(max(a.Press.GetRepeat(), 1)))
	case *agentv1.ActRequest_PageKeyDown:
		return b.keyDown(ctx, t, owner, a.PageKeyDown.GetKey())
	case *agentv1.ActRequest_PageKeyUp:
		return b.keyUp(ctx, t, owner, a.PageKeyUp.GetKey())
	case *agentv1.ActRequest_SetValue:
		return t.setValue(ctx, a.SetValue, resp)
	case *agentv1.ActRequest_PageSelectText:
		return t.selectText(ctx, a.PageSelectText, resp)
	case *agentv1.ActRequest_Paste:
		return t.paste(ctx, a.Paste, resp)
	case *agentv1.ActRequest_PageScroll:
		return t.scroll(ctx, a.PageScroll, resp)
	case *agentv1.ActRequest_Hover:
		return t.hover(ctx, a.Hover, resp)
	case *agentv1.ActRequest_PageDrag:
		return t.drag(ctx, a.PageDrag, resp)
	case *agentv1.ActRequest_SetViewport:
		v := a.SetViewport
		p := map[string]any{"context": t.id, "viewport": map[string]any{"width": v.GetWidth(), "height": v.GetHeight()}}
		if f := v.GetDeviceScaleFactor(); f != 0 {
			p["devicePixelRatio"] = f
		}
		return c.call(ctx, "browsingContext.setViewport", p, nil)
	case *agentv1.ActRequest_WaitFor:
		return t.waitFor(ctx, a.WaitFor)
	}
	return unsupported(fmt.Sprintf("action %T", r.GetAction()))
}

// newTab opens a tab (about:blank when no URL; a URL is loaded without waiting for it) and answers it.
func (b *Backend) newTab(ctx context.Context, a *agentv1.NewTab, resp *agentv1.ActResponse) error {
	resp.Target.BrowserId = a.GetBrowserId()
	port, err := b.known(a.GetBrowserId())
	if err != nil {
		return err
	}
	f, err := b.browser(ctx, port, false)
	if err != nil {
		return err
	}
	var res struct {
		Context string `json:"context"`
	}
	if err := f.conn.call(ctx, "browsingContext.create", map[string]any{"type": "tab"}, &res); err != nil {
		return err
	}
	u := a.GetUrl()
	if u == "" {
		u = "about:blank"
	} else if err := f.conn.call(ctx, "browsingContext.navigate", map[string]any{"context": res.Context, "url": u, "wait": "none"}, nil); err != nil {
		return err
	}
	resp.Target.TabId = res.Context
	resp.Tab = &agentv1.Tab{BrowserId: f.id(), TabId: res.Context, Url: u, Active: true}
	return nil
}

// history goes one entry back or forward and waits until the tab shows it: another document (a new one, or one
// back from the history cache, which Firefox restores with no load event) or, for a same-document entry, another
// URL, loaded. The tab's snapshots are stale after it either way.
func (t *tab) history(ctx context.Context, back bool) error {
	delta, dir := 1, "forward"
	if back {
		delta, dir = -1, "back"
	}
	// The marker lives in our sandbox's view of the document: only this document has it.
	var before struct{ URL string }
	mark := `function() { document.__gloveboxHistory = true; return {url: location.href}; }`
	if err := t.call(ctx, nil, mark, "history", &before); err != nil {
		return err
	}
	err := t.f.conn.call(ctx, "browsingContext.traverseHistory", map[string]any{"context": t.id, "delta": delta}, nil)
	t.refs.Navigated()
	var be *bidiError
	if errors.As(err, &be) && be.code == "no such history entry" {
		return fmt.Errorf("history: no entry %s: %w", dir, errdefs.ErrNotFound)
	}
	if err != nil {
		return err
	}
	hctx, cancel := context.WithTimeout(ctx, historyTimeout)
	defer cancel()
	shown := `function(url) { return {shown: (!document.__gloveboxHistory || location.href !== url) && document.readyState === 'complete'}; }`
	for {
		var v struct{ Shown bool }
		err := t.call(hctx, nil, shown, "history "+dir, &v, before.URL)
		if err == nil && v.Shown {
			t.refs.Navigated()
			return nil
		}
		// A call can fail while the documents change over; only the deadline ends the wait.
		select {
		case <-time.After(waitForPoll):
		case <-t.closed:
			return t.goneErr("history " + dir)
		case <-hctx.Done():
			if ctx.Err() != nil {
				return fmt.Errorf("history: %w: %w", errdefs.ErrInterrupted, ctx.Err())
			}
			return fmt.Errorf("history %s: not shown within %v: %w", dir, historyTimeout, errdefs.ErrTimeout)
		}
	}
}

// waitFor polls a selector until it is visible (or hidden) or the deadline passes (TIMEOUT); a page whose
// script never yields does not hold it past the deadline.
func (t *tab) waitFor(ctx context.Context, w *agentv1.WaitFor) error {
	want := w.GetState() != agentv1.WaitState_WAIT_STATE_HIDDEN
	wctx, cancel := context.WithTimeout(ctx, time.Duration(w.GetTimeoutMs())*time.Millisecond)
	defer cancel()
	late := func() error {
		if ctx.Err() != nil {
			return fmt.Errorf("wait_for: %w: %w", errdefs.ErrInterrupted, ctx.Err())
		}
		state := "visible"
		if !want {
			state = "hidden"
		}
		return fmt.Errorf("wait_for: selector not %s within %d ms: %w", state, w.GetTimeoutMs(), errdefs.ErrTimeout)
	}
	for {
		var v struct{ Visible bool }
		if err := t.call(wctx, nil, browser.Scripts.Visible, "wait_for", &v, w.GetSelector()); err != nil {
			if wctx.Err() != nil {
				return late()
			}
			return err
		}
		if v.Visible == want {
			return nil
		}
		select {
		case <-time.After(waitForPoll):
		case <-t.closed:
			return t.goneErr("wait_for")
		case <-wctx.Done():
			return late()
		}
	}
}
