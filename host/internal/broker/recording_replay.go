package broker

import (
	"context"
	"fmt"

	"glovebox.dev/host/internal/recording"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
)

// replayStatus maps recording's statuses onto the API's.
var replayStatus = map[string]brokerv1.ReplayStatus{
	recording.StatusDone:                brokerv1.ReplayStatus_REPLAY_STATUS_DONE,
	recording.StatusByCoordinates:       brokerv1.ReplayStatus_REPLAY_STATUS_DONE_BY_COORDINATES,
	recording.StatusResolvedDifferently: brokerv1.ReplayStatus_REPLAY_STATUS_RESOLVED_DIFFERENTLY,
	recording.StatusNotFound:            brokerv1.ReplayStatus_REPLAY_STATUS_NOT_FOUND,
	recording.StatusFailed:              brokerv1.ReplayStatus_REPLAY_STATUS_FAILED,
	recording.StatusSkipped:             brokerv1.ReplayStatus_REPLAY_STATUS_SKIPPED,
}

// ReplayRecording runs a sealed recording's steps again in a new session of the caller (RecordingService).
func (b *Broker) ReplayRecording(ctx context.Context, r *brokerv1.ReplayRecordingRequest) (*brokerv1.ReplayRecordingResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	var v errdefs.Violations
	if err := recording.CheckID(r.GetRecordingId()); err != nil {
		v.Addf("recording_id", "want rec-<time>-<8 hex>")
	}
	if r.GetGuest() == "" {
		v.Addf("guest", "required")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	notFound := fmt.Errorf("recording %s: %w", r.GetRecordingId(), errdefs.ErrNotFound)
	if b.recs == nil {
		return nil, notFound
	}
	m, err := b.recs.ReadManifest(r.GetRecordingId())
	if err != nil || (m.Principal != c.Principal.Name && !c.Principal.Admin) {
		return nil, notFound
	}
	steps, err := b.recs.ReadSteps(r.GetRecordingId())
	if err != nil {
		return nil, err
	}
	s, err := b.CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: r.GetGuest(), Label: "replay of " + m.ID})
	if err != nil {
		return nil, err
	}
	defer b.DeleteSession(context.WithoutCancel(ctx), s.GetId())
	results := recording.Replay(ctx, steps, &replayActor{b: b, sid: s.GetId()}, r.GetKeepGoing())
	out := &brokerv1.ReplayRecordingResponse{SessionId: s.GetId()}
	for _, res := range results {
		out.Steps = append(out.Steps, &brokerv1.ReplayStep{Index: int32(res.Index), Action: res.Action, Status: replayStatus[res.Status],
			Detail: res.Detail, AuditSeq: res.AuditSeq})
	}
	return out, nil
}

// replayActor replays through the broker's own RPCs in session sid, as the caller.
type replayActor struct {
	b   *Broker
	sid string
}

func (a *replayActor) Apps(ctx context.Context) ([]*agentv1.App, error) {
	r, err := a.b.ListApps(ctx, &brokerv1.ListAppsRequest{SessionId: a.sid})
	return r.GetResponse().GetApps(), err
}

func (a *replayActor) Snapshot(ctx context.Context, appID string) (*agentv1.Snapshot, error) {
	r, err := a.b.SnapshotApp(ctx, &brokerv1.SnapshotAppRequest{SessionId: a.sid, Request: &agentv1.SnapshotAppRequest{AppId: appID}})
	return r.GetResponse().GetSnapshot(), err
}

// Tabs lists the page tabs of every browser of the replay's guest.
func (a *replayActor) Tabs(ctx context.Context) ([]*agentv1.Tab, error) {
	bs, err := a.b.ListBrowsers(ctx, &brokerv1.ListBrowsersRequest{SessionId: a.sid, Request: &agentv1.ListBrowsersRequest{}})
	if err != nil {
		return nil, err
	}
	var out []*agentv1.Tab
	for _, br := range bs.GetResponse().GetBrowsers() {
		ts, err := a.b.ListTabs(ctx, &brokerv1.ListTabsRequest{SessionId: a.sid, Request: &agentv1.ListTabsRequest{BrowserId: br.GetBrowserId()}})
		if err != nil {
			return nil, err
		}
		out = append(out, ts.GetResponse().GetTabs()...)
	}
	return out, nil
}

// SnapshotTab snapshots a tab of the replay's guest.
func (a *replayActor) SnapshotTab(ctx context.Context, tab *agentv1.TabRef) (*agentv1.Snapshot, error) {
	r, err := a.b.SnapshotTab(ctx, &brokerv1.SnapshotTabRequest{SessionId: a.sid, Request: &agentv1.SnapshotTabRequest{Tab: tab}})
	return r.GetResponse().GetSnapshot(), err
}

func (a *replayActor) Act(ctx context.Context, r *agentv1.ActRequest) (uint64, error) {
	resp, err := a.b.Act(ctx, &brokerv1.ActRequest{SessionId: a.sid, Request: r})
	return resp.GetAuditSeq(), err
}

func (a *replayActor) Launch(ctx context.Context, r *agentv1.GetAppRequest) (uint64, error) {
	resp, err := a.b.GetApp(ctx, &brokerv1.GetAppRequest{SessionId: a.sid, Request: r})
	if err == nil && !resp.GetResponse().GetAccessible() {
		err = fmt.Errorf("the launched app did not reach the accessibility bus in time: %w", errdefs.ErrUnavailable)
	}
	return resp.GetAuditSeq(), err
}
