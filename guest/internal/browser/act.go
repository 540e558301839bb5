package browser

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/actions"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
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

// Act performs a validated page action on the tab it names, never another, and fills resp's frozen target
// (browser_id, tab_id, element ref) and results. A failed action releases the keys its owner holds on the tab.
func (b *Backend) Act(ctx context.Context, r *agentv1.ActRequest, resp *agentv1.ActResponse) (err error) {
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
		return fmt.Errorf("secondary_action (context menu) on a page: %w", errdefs.ErrUnsupportedAction)
	}
	ref, _ := actions.TabOf(r)
	ft.BrowserId, ft.TabId = ref.GetBrowserId(), ref.GetTabId()
	t, err := b.resolveTab(ctx, ref)
	if err != nil {
		return err
	}
	defer t.because(&err)
	if actions.Observes(r) {
		// wait_for runs outside the mutation queue, beside other actions on the tab: it presses nothing and
		// must not touch the per-tab action state (object groups) that the queue serializes.
		return b.act(ctx, t, r, resp)
	}
	t.nextGroup()
	err = b.act(ctx, t, r, resp)
	if err != nil {
		b.releaseTab(ctx, r.GetOwner(), t)
	}
	return err
}

// act runs one action on its tab.
func (b *Backend) act(ctx context.Context, t *tab, r *agentv1.ActRequest, resp *agentv1.ActResponse) error {
	owner := r.GetOwner()
	switch a := r.GetAction().(type) {
	case *agentv1.ActRequest_CloseTab:
		_, err := cdp.Call(ctx, t.c.root(), target.CloseTarget, target.CloseTargetParams{TargetID: t.id})
		return err
	case *agentv1.ActRequest_ActivateTab:
		_, err := cdp.Call(ctx, t.c.root(), target.ActivateTarget, target.ActivateTargetParams{TargetID: t.id})
		return err
	case *agentv1.ActRequest_Navigate:
		timeout := defaultNavigateTimeout
		if ms := a.Navigate.GetTimeoutMs(); ms > 0 {
			timeout = time.Duration(ms) * time.Millisecond
		}
		return t.navigate(ctx, a.Navigate.GetUrl(), timeout)
	case *agentv1.ActRequest_Reload:
		return t.waitLoad(ctx, defaultNavigateTimeout, "reload", func(ctx context.Context) (cdp.LoaderID, error) {
			_, err := cdp.Call(ctx, t.loader(), page.Reload, page.ReloadParams{IgnoreCache: ptr(a.Reload.GetHard())})
			return "", err
		})
	case *agentv1.ActRequest_StopLoading:
		_, err := cdp.Call(ctx, t.s, page.StopLoading, cdp.Empty{})
		return err
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
		return b.press(ctx, t, owner, a.Press.GetKey(), int(max(a.Press.GetRepeat(), 1)))
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
		return b.hover(ctx, t, owner, a.Hover, resp)
	case *agentv1.ActRequest_PageDrag:
		return b.drag(ctx, t, owner, a.PageDrag, resp)
	case *agentv1.ActRequest_SetViewport:
		v := a.SetViewport
		f := v.GetDeviceScaleFactor()
		if f == 0 {
			f = 1
		}
		_, err := cdp.Call(ctx, t.s, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: int64(v.GetWidth()), Height: int64(v.GetHeight()), DeviceScaleFactor: f})
		return err
	case *agentv1.ActRequest_WaitFor:
		return t.waitFor(ctx, a.WaitFor)
	}
	return fmt.Errorf("action %T: %w", r.GetAction(), errdefs.ErrUnsupportedAction)
}

// newTab opens a tab (about:blank when no URL) and answers it.
func (b *Backend) newTab(ctx context.Context, a *agentv1.NewTab, resp *agentv1.ActResponse) error {
	resp.Target.BrowserId = a.GetBrowserId()
	port, err := b.known(a.GetBrowserId())
	if err != nil {
		return err
	}
	c, err := b.browser(ctx, port, false)
	if err != nil {
		return err
	}
	u := a.GetUrl()
	if u == "" {
		u = "about:blank"
	}
	res, err := cdp.Call(ctx, c.root(), target.CreateTarget, target.CreateTargetParams{URL: u})
	if err != nil {
		return err
	}
	resp.Target.TabId = string(res.TargetID)
	resp.Tab = &agentv1.Tab{BrowserId: c.id(), TabId: string(res.TargetID), Url: u, Active: true}
	return nil
}

// navigate loads url and waits for its document's load (a same-document navigation has none and ends at once).
func (t *tab) navigate(ctx context.Context, url string, timeout time.Duration) error {
	return t.waitLoad(ctx, timeout, "navigate", func(ctx context.Context) (cdp.LoaderID, error) {
		res, err := cdp.Call(ctx, t.loader(), page.Navigate, page.NavigateParams{URL: url})
		if err != nil {
			return "", err
		}
		if res.ErrorText != "" {
			return "", fmt.Errorf("navigate: %s: %w", res.ErrorText, errdefs.ErrUnavailable)
		}
		if res.LoaderID == "" {
			return "", errSameDocument
		}
		return res.LoaderID, nil
	})
}

// errSameDocument ends waitLoad early: the navigation stayed in the document.
var errSameDocument = fmt.Errorf("same document")

// waitLoad starts something that loads a document in the main frame and waits for that document's load; timeout
// bounds both (a server that never answers holds Page.navigate's reply). The load is the main frame's
// Page.lifecycleEvent "load" of the loader start answers (empty: the loader of the first main-frame "init" after
// start, a reload's new document), followed to the document that replaces it in the main frame after it
// committed (its script going on to another): a load of the document shown before (its last image finishing while
// the next document's request is on its way) or of an iframe does not end the wait. Page.loadEventFired, which
// names no document, did.
func (t *tab) waitLoad(ctx context.Context, timeout time.Duration, what string, start func(context.Context) (cdp.LoaderID, error)) error {
	events, cancel := t.s.Subscribe("Page.lifecycleEvent")
	defer cancel()
	wctx, cancelWait := context.WithTimeout(ctx, timeout)
	defer cancelWait()
	late := func() error {
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w: %w", what, errdefs.ErrInterrupted, ctx.Err())
		}
		return fmt.Errorf("%s: no load event within %v: %w", what, timeout, errdefs.ErrTimeout)
	}
	// A crash during the load ends it; a crashed tab's own load is what brings it back.
	crash := t.down()
	select {
	case <-crash:
		crash = nil
	default:
	}
	loader, err := start(wctx)
	if err != nil {
		if err == errSameDocument {
			return nil
		}
		if wctx.Err() != nil {
			return late()
		}
		return err
	}
	ours := false // the loader's own init came: a later main-frame init is a document that replaced it
	for {
		select {
		case p := <-events:
			var ev page.EventLifecycleEvent
			if jsonv2.Unmarshal(p, &ev, chromedp.DefaultUnmarshalOptions) != nil || ev.FrameID != cdp.FrameID(t.id) {
				continue
			}
			switch {
			case ev.Name == "init" && (loader == "" || ev.LoaderID == loader):
				loader, ours = ev.LoaderID, true
			case ev.Name == "init" && ours:
				// The document went on to another (its script replaced it): that one's load ends the wait.
				loader = ev.LoaderID
			case ev.Name == "load" && loader != "" && ev.LoaderID == loader:
				return nil
			}
		case <-t.closed:
			return t.goneErr(what)
		case <-crash:
			return errgrpc.WithCause(fmt.Errorf("%s: tab %s of %s crashed (navigate or reload brings it back): %w", what, t.id, t.c.id(), errdefs.ErrTargetGone), errgrpc.CauseCrashed)
		case <-wctx.Done():
			return late()
		}
	}
}

// history goes one entry back or forward and waits until the main frame shows it.
func (t *tab) history(ctx context.Context, back bool) error {
	h, err := cdp.Call(ctx, t.s, page.GetNavigationHistory, cdp.Empty{})
	if err != nil {
		return err
	}
	i := int(h.CurrentIndex) + 1
	dir := "forward"
	if back {
		i, dir = int(h.CurrentIndex)-1, "back"
	}
	if i < 0 || i >= len(h.Entries) {
		return fmt.Errorf("history: no entry %s: %w", dir, errdefs.ErrNotFound)
	}
	nav, cancelNav := t.s.Subscribe("Page.frameNavigated")
	defer cancelNav()
	within, cancelWithin := t.s.Subscribe("Page.navigatedWithinDocument")
	defer cancelWithin()
	if _, err := cdp.Call(ctx, t.s, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: h.Entries[i].ID}); err != nil {
		return err
	}
	timer := time.NewTimer(historyTimeout)
	defer timer.Stop()
	for {
		select {
		case p := <-nav:
			var ev struct {
				Frame struct {
					ParentID string `json:"parentId"`
				} `json:"frame"`
			}
			if jsonv2.Unmarshal(p, &ev, chromedp.DefaultUnmarshalOptions) == nil && ev.Frame.ParentID == "" {
				return nil
			}
		case <-within:
			return nil
		case <-t.closed:
			return t.goneErr("history " + dir)
		case <-timer.C:
			return fmt.Errorf("history %s: not committed within %v: %w", dir, historyTimeout, errdefs.ErrTimeout)
		case <-ctx.Done():
			return fmt.Errorf("history: %w: %w", errdefs.ErrInterrupted, ctx.Err())
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
		if err := t.eval(wctx, jsVisible, "wait_for", &v, w.GetSelector()); err != nil {
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
