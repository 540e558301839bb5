package server

import (
	"context"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// XdndWatcher is implemented by a clipboard backend that can tell a drag's XdndSelection from a stale one:
// it records the selection when the agent's press begins and compares reads with it.
type XdndWatcher interface {
	PressBegan(ctx context.Context)
	PressEnded()
	XdndState(key string, payload []byte) (dragging, stale bool)
}

func xdndWatcher(be *Backends) (XdndWatcher, bool) {
	if be == nil || be.Clipboard == nil {
		return nil, false
	}
	w, ok := unwrapClipboard(be.Clipboard).(XdndWatcher)
	return w, ok
}

// pressing brackets an action that presses a pointer button: begins says it starts a press (mouse_down,
// drag), ends that it ends one (mouse_up, drag, release_all).
func pressing(r *agentv1.ActRequest) (begins, ends bool) {
	switch r.GetAction().(type) {
	case *agentv1.ActRequest_MouseDown:
		return true, false
	case *agentv1.ActRequest_Drag:
		return true, true
	case *agentv1.ActRequest_MouseUp, *agentv1.ActRequest_ReleaseAll:
		return false, true
	}
	return false, false
}

// dispatchPressing runs dispatch with the clipboard told when a press begins and ends.
func (a *actService) dispatchPressing(ctx context.Context, r *agentv1.ActRequest, p *plan, resp *agentv1.ActResponse) error {
	begins, ends := pressing(r)
	w, ok := xdndWatcher(p.be)
	if !ok || (!begins && !ends) {
		return a.dispatch(ctx, r, p, resp)
	}
	if begins {
		w.PressBegan(ctx)
	}
	err := a.dispatch(ctx, r, p, resp)
	if ends || err != nil {
		w.PressEnded()
	}
	return err
}

// xdndState fills a read of XDND's dragging and stale.
func (c *clipboardService) xdndState(sel agentv1.Selection, key string, payload []byte) (dragging, stale bool) {
	if sel != agentv1.Selection_SELECTION_XDND {
		return false, false
	}
	w, ok := xdndWatcher(c.s.b())
	if !ok {
		return false, false
	}
	return w.XdndState(key, payload)
}
