package broker

import (
	"context"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"glovebox.dev/host/internal/recording"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// a11yRead is the read of one step's accessibility text: a detached snapshot of its target (it supersedes
// none of the session's snapshots, so the refs the session holds stay valid), text only, within the policy's
// byte budget. One of observe (an X window, or an app's window) and tab is set.
type a11yRead struct {
	text    recording.Text
	observe *agentv1.ObserveRequest
	tab     *agentv1.SnapshotTabRequest
}

// a11yReadOf is the read of the text of what a step acted on, by its frozen target: the tab of a page
// action; the app of an element action, in the window its snapshot was of (appWindow, an AT-SPI object path;
// "": the app's active window); else the X window acted on (its application found by _NET_WM_PID). ok is
// false when the step named none (the root window, or it was refused before it had a target).
func a11yReadOf(ft *agentv1.FrozenTarget, appWindow string, budget int32) (rd a11yRead, ok bool) {
	opts := &agentv1.SnapshotOptions{Detached: true, TextOnly: true, MaxBytes: budget}
	observe := func(t *agentv1.Target) *agentv1.ObserveRequest {
		return &agentv1.ObserveRequest{Target: t, Snapshot: opts, OmitScreenshot: true}
	}
	rd.text.Budget = budget
	switch {
	case ft.GetTabId() != "":
		rd.text.Source, rd.text.BrowserID, rd.text.TabID = "page", ft.GetBrowserId(), ft.GetTabId()
		rd.tab = &agentv1.SnapshotTabRequest{Tab: &agentv1.TabRef{BrowserId: ft.GetBrowserId(), TabId: ft.GetTabId()}, Options: opts}
	case ft.GetAppId() != "":
		rd.text.Source, rd.text.AppID, rd.text.AppWindowID = "atspi", ft.GetAppId(), appWindow
		rd.observe = observe(&agentv1.Target{Kind: &agentv1.Target_App{App: &agentv1.AppTarget{AppId: ft.GetAppId(), WindowId: appWindow}}})
	case ft.GetWindowId() != 0:
		rd.text.Source, rd.text.WindowID = "atspi", ft.GetWindowId()
		rd.observe = observe(&agentv1.Target{Kind: &agentv1.Target_Window{Window: &agentv1.WindowTarget{WindowId: ft.GetWindowId()}}})
	default:
		return rd, false
	}
	return rd, true
}

// readA11y reads rd on g: the text (nil when there is none: no application on the bus for the window, a
// read that failed or timed out) and its description. The text is cut at the budget whatever the agent
// answered. Neither the text nor the agent's reasons are logged: they may hold guest text.
func (b *Broker) readA11y(g *guest, rec *recording.Recording, rd a11yRead) ([]byte, recording.Text) {
	ctx, cancel := context.WithTimeout(context.Background(), recordingCaptureTimeout)
	defer cancel()
	var snap *agentv1.Snapshot
	err := g.conn.Call(ctx, 0, func(ctx context.Context, c guestClients) error {
		if rd.tab != nil {
			resp, err := c.Browser.SnapshotTab(ctx, rd.tab)
			snap = resp.GetSnapshot()
			return err
		}
		resp, err := c.Observe.Observe(ctx, rd.observe)
		snap = resp.GetSnapshot()
		return err
	})
	if err != nil {
		code, reason := outcome(err)
		b.log.Warn("recording accessibility text", "recording", rec.ID(), "source", rd.text.Source, "code", code, "reason", reason)
		return nil, recording.Text{}
	}
	if snap == nil {
		return nil, recording.Text{}
	}
	t := rd.text
	t.Complete, t.TookUs = snap.GetComplete(), snap.GetTookUs()
	// The recording redacts the typed texts and cuts at the budget before writing.
	return []byte(snap.GetText()), t
}

// noteSecrets gives r the texts req types, pastes or fills (those its redacted form keeps only as length +
// HMAC), before req is sent, so its accessibility texts never show them (without keep_text). A run of type
// steps counts as one text too, so text typed a few characters a step (a person's bursts) is redacted whole.
func (b *Broker) noteSecrets(r *recorder, req proto.Message, redacted *structpb.Struct) {
	if r == nil || !b.cfg.Recording.A11yText || r.rec.Meta().KeepsText || req == nil || redacted == nil {
		return
	}
	rj, err1 := protojson.Marshal(redacted)
	cj, err2 := protojson.Marshal(req)
	if err1 != nil || err2 != nil {
		return
	}
	texts := recording.SecretTexts(rj, cj)
	r.mu.Lock()
	if ar, ok := req.(*agentv1.ActRequest); ok && (ar.GetType() != nil || ar.GetPageType() != nil) && len(texts) == 1 {
		r.typedRun += texts[0]
		texts = append(texts, r.typedRun)
	} else {
		r.typedRun = ""
	}
	r.mu.Unlock()
	r.rec.AddSecrets(texts...)
}

// takeA11y queues the read of st's accessibility text after the step, when the policy takes it and the step
// named a target: off the step's path, one read at a time per recording (recording.WriteTextAsync).
func (b *Broker) takeA11y(g *guest, r *recorder, st *recording.Step, ft *agentv1.FrozenTarget, appWindow string) {
	if !b.cfg.Recording.A11yText {
		return
	}
	rd, ok := a11yReadOf(ft, appWindow, b.cfg.Recording.A11yBudget())
	if !ok {
		return
	}
	name := recording.A11yName(st.AuditSeq)
	if r.rec.WriteTextAsync(name, st.AuditSeq, func() ([]byte, recording.Text) { return b.readA11y(g, r.rec, rd) }) {
		st.A11yAfter = name
	}
}
