package mcp

import (
	"context"
	"fmt"
	"strings"
	"sync"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
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
	switch {
	case a.AppID != "" && a.Name != "":
		return nil, invalid("name", "give app_id or name, not both")
	case a.AppID == "" && a.Name == "":
		return nil, invalid("app_id", "required (or name)")
	}
	observe := func(appID string) (*brokerv1.ObserveResponse, error) {
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
		return s.computer.Observe(ctx, &brokerv1.ObserveRequest{SessionId: s.id, Request: req})
	}
	appID, known := a.AppID, false
	if appID == "" {
		if appID, known, err = s.appByName(ctx, a.Name); err != nil {
			return nil, err
		}
	}
	resp, err := observe(appID)
	if err != nil && known && gone(err) {
		// The app this name resolved to earlier quit (or restarted): resolve the name again, once.
		s.apps.forget(a.Name)
		if appID, _, err = s.appByName(ctx, a.Name); err != nil {
			return nil, err
		}
		resp, err = observe(appID)
	}
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

// appNames remembers which app id each name resolved to, so get_app_state by name costs one broker call.
type appNames struct {
	mu  sync.Mutex
	ids map[string]string // lower-cased name -> app id
}

// maxAppNames bounds the names a session remembers.
const maxAppNames = 64

func (m *appNames) get(name string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id, ok := m.ids[strings.ToLower(name)]
	return id, ok
}

func (m *appNames) put(name, id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ids == nil || len(m.ids) >= maxAppNames {
		m.ids = map[string]string{}
	}
	m.ids[strings.ToLower(name)] = id
}

func (m *appNames) forget(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.ids, strings.ToLower(name))
}

// appByName is the app id name resolves to (GetApp by name, case-insensitive exact: NOT_FOUND, TARGET_AMBIGUOUS):
// the one remembered from an earlier call of the session (known), else the broker's answer.
func (s *Session) appByName(ctx context.Context, name string) (id string, known bool, _ error) {
	if id, ok := s.apps.get(name); ok {
		return id, true, nil
	}
	resp, err := s.computer.GetApp(ctx, &brokerv1.GetAppRequest{SessionId: s.id, Request: &agentv1.GetAppRequest{Name: name}})
	if err != nil {
		return "", false, err
	}
	id = resp.GetResponse().GetApp().GetAppId()
	s.apps.put(name, id)
	return id, false, nil
}

// gone reports whether err says the app is no longer there (it quit, or its id was never on the bus).
func gone(err error) bool {
	r := errdefs.Reason(errgrpc.FromError(err))
	return r == agentv1.ErrorReason_ERROR_REASON_NOT_FOUND || r == agentv1.ErrorReason_ERROR_REASON_TARGET_GONE
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
