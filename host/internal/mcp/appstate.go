package mcp

import (
	"context"
	"fmt"
	"strings"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// pageSlack is what get_app_state asks the agent for beyond the text budget: its budget bounds the encoded
// Snapshot message (ids, target, cursor and reason reserve, ~1 KiB with the text), and the text is then cut to the
// model's budget here, at a line end, so a page's text uses the whole budget.
const pageSlack = 1536

// getAppState is one Observe call through the broker: the app's window snapshotted as text within the budget
// (text only, read by the agent only as far as the page reaches) with the screenshot taken concurrently on the
// agent, both fenced and audited as one observation. A continuation is the next page of that same snapshot
// (SnapshotWindow with its cursor): the refs of every page stay valid together.
func (s *Session) getAppState(ctx context.Context, a appStateArgs) (*result, error) {
	limit, err := budget(a.MaxBytes, a.MaxTokens)
	if err != nil {
		return nil, err
	}
	if a.Continuation != "" {
		return s.appStatePage(ctx, a.Continuation, limit)
	}
	appID := a.AppID
	switch {
	case appID != "" && a.Name != "":
		return nil, invalid("name", "give app_id or name, not both")
	case appID == "" && a.Name == "":
		return nil, invalid("app_id", "required (or name)")
	case appID == "":
		resp, err := s.computer.GetApp(ctx, &brokerv1.GetAppRequest{SessionId: s.id, Request: &agentv1.GetAppRequest{Name: a.Name}})
		if err != nil {
			return nil, err
		}
		appID = resp.GetResponse().GetApp().GetAppId()
	}
	req := &agentv1.ObserveRequest{
		Target: &agentv1.Target{Kind: &agentv1.Target_App{App: &agentv1.AppTarget{AppId: appID, WindowId: a.WindowID}}},
		Snapshot: &agentv1.SnapshotOptions{InteractiveOnly: a.InteractiveOnly, VisibleOnly: !a.IncludeHidden, TextOnly: true,
			MaxBytes: agentBudget(limit)},
	}
	if a.NoScreenshot {
		req.OmitScreenshot = true
	} else {
		req.Screenshot = s.screenshotOptions(nil)
	}
	resp, err := s.computer.Observe(ctx, &brokerv1.ObserveRequest{SessionId: s.id, Request: req})
	if err != nil {
		return nil, err
	}
	obs := resp.GetResponse()
	snap := obs.GetSnapshot()
	if snap == nil {
		return nil, fmt.Errorf("get_app_state: no snapshot of %s: %s: %w", appID, obs.GetSnapshotUnavailableReason(), errdefs.ErrUnavailable)
	}
	app := snap.GetTarget().GetApp()
	s.snaps.add(&snapshotMemo{id: snap.GetSnapshotId(), app: &agentv1.AppTarget{AppId: app.GetAppId(), WindowId: app.GetWindowId()}})
	r := newResult().set("app_id", appID).set("window_id", app.GetWindowId()).set("audit_seq", resp.GetAuditSeq())
	if img := obs.GetImage(); img != nil {
		r.set("screenshot", map[string]any{"width": img.GetWidth(), "height": img.GetHeight(), "audit_seq": resp.GetAuditSeq()})
		r.image(img)
	}
	if f := obs.GetFocused(); f != nil {
		if f.GetRef() != "" {
			r.set("focused_ref", f.GetRef())
		}
		r.guest("focused", map[string]any{"role": f.GetRole(), "name": f.GetName()})
	}
	appPage(r, snap, limit)
	return r, nil
}

// appStatePage answers the page a get_app_state continuation names: the snapshot's next page from the agent.
func (s *Session) appStatePage(ctx context.Context, tok string, limit int) (*result, error) {
	id, _, ok := validate.ParseCursor(tok)
	if !ok {
		return nil, invalid("continuation", "must be a token from an earlier get_app_state answer")
	}
	memo, err := s.snaps.find("continuation", id)
	if err != nil {
		return nil, err
	}
	if memo.app == nil {
		return nil, invalid("continuation", "is a page snapshot's: use browser_snapshot")
	}
	resp, err := s.computer.SnapshotWindow(ctx, &brokerv1.SnapshotWindowRequest{SessionId: s.id, Request: &agentv1.SnapshotWindowRequest{
		AppId: memo.app.GetAppId(), WindowId: memo.app.GetWindowId(),
		Options: &agentv1.SnapshotOptions{Cursor: tok, TextOnly: true, MaxBytes: agentBudget(limit)}}})
	if err != nil {
		return nil, err
	}
	r := newResult().set("app_id", memo.app.GetAppId()).set("window_id", memo.app.GetWindowId()).set("audit_seq", resp.GetAuditSeq())
	appPage(r, resp.GetResponse().GetSnapshot(), limit)
	return r, nil
}

// agentBudget is the agent's max_bytes for a text budget of limit bytes.
func agentBudget(limit int) int32 {
	return int32(min(max(limit+pageSlack, validate.MinSnapshotBytes), validate.MaxSnapshotBytes))
}

// appPage puts one agent page of an accessibility snapshot into r: its text cut to limit at a line end (one
// line per element), and the continuation at the first element not shown.
func appPage(r *result, snap *agentv1.Snapshot, limit int) {
	text, next := snap.GetText(), snap.GetNextCursor()
	if len(text) > limit {
		shown, _ := page(text, 0, limit)
		lines := strings.Count(shown, "\n")
		if lines == 0 {
			lines = 1 // one element's line alone is over the budget: it is cut, and the next page goes on after it
		}
		next = validate.Cursor(snap.GetSnapshotId(), int(snap.GetOffset())+lines)
		text = shown
	}
	r.set("snapshot_id", snap.GetSnapshotId()).set("elements", strings.Count(text, "\n")).set("offset", snap.GetOffset()).
		set("text_bytes", len(text)).set("complete", snap.GetComplete())
	if t := snap.GetTotal(); t > 0 {
		r.set("total_elements", t)
	}
	if next != "" {
		r.set("continuation", next)
	}
	if !snap.GetComplete() {
		r.guest("incomplete_reason", snap.GetIncompleteReason())
	}
	r.untrustedText = text
}
