package cli

import (
	"fmt"
	"strings"

	"glovebox.dev/host/internal/recording"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

const usageRecordingReplay = `  recording replay ID -dir D -guest G [-keep-going]
                                             run recording ID's steps again in a new session on guest G:
                                             element steps found by their recorded role, name, path and app
                                             (never the old ref), pointer steps at their coordinates; one line
                                             per step (done, done by coordinates, resolved differently, not
                                             found, failed, skipped); stops at the first step not found or
                                             failed unless -keep-going; exit 1 when any was
`

// replayResult is one step's line of `recording replay` (-json: one object a line).
type replayResult struct {
	Index    int    `json:"index"`
	Action   string `json:"action"`
	Status   string `json:"status"`
	Detail   string `json:"detail,omitempty"`
	AuditSeq uint64 `json:"audit_seq,omitempty"`
}

func (r *runner) recordingReplay(args []string) error {
	const cmd = "recording"
	fs := r.flagSet(cmd)
	dir := fs.String("dir", "", "recordings directory")
	guest := fs.String("guest", "", "guest to replay on")
	keepGoing := fs.Bool("keep-going", false, "skip steps not found or failed instead of stopping")
	pos, err := r.parse(fs, cmd, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *dir == "" || *guest == "" {
		return usagef(cmd, "recording replay needs one recording ID, -dir and -guest")
	}
	st, err := recording.Open(*dir)
	if err != nil {
		return err
	}
	steps, err := st.ReadSteps(pos[0])
	if err != nil {
		return err
	}
	sc, err := serviceClient(r, brokerv1.NewSessionServiceClient)
	if err != nil {
		return err
	}
	cc, err := serviceClient(r, brokerv1.NewComputerServiceClient)
	if err != nil {
		return err
	}
	created, err := unary(r, sc.CreateSession, &brokerv1.CreateSessionRequest{Guest: *guest, Label: "replay of " + pos[0]})
	if err != nil {
		return err
	}
	sid := created.GetSession().GetId()
	defer unary(r, sc.DeleteSession, &brokerv1.DeleteSessionRequest{SessionId: sid})
	bad, stopped := false, false
	for _, step := range steps {
		res := replayResult{Index: step.Index, Action: step.Action}
		switch {
		case stopped:
			res.Status, res.Detail = recording.StatusSkipped, "after a stop"
		case !recording.Replayable(step):
			res.Status, res.Detail = recording.StatusSkipped, "not a successful Act when recorded"
		default:
			res = r.replayStep(cc, sid, step)
		}
		if res.Status == recording.StatusNotFound || res.Status == recording.StatusFailed {
			bad = true
			stopped = !*keepGoing
		}
		if err := r.printReplay(res); err != nil {
			return err
		}
	}
	if bad {
		return errSilent
	}
	return nil
}

// replayStep sends one recorded step in session sid.
func (r *runner) replayStep(cc brokerv1.ComputerServiceClient, sid string, step recording.Step) replayResult {
	res := replayResult{Index: step.Index, Action: step.Action, Status: recording.StatusDone}
	req, err := recording.Request(step)
	if err != nil {
		res.Status, res.Detail = recording.StatusFailed, err.Error()
		return res
	}
	if d := step.Element; d != nil {
		ref, status, appID, err := r.findElement(cc, sid, d)
		if err != nil {
			res.Status, res.Detail = recording.StatusFailed, err.Error()
			return res
		}
		if status == recording.StatusNotFound {
			res.Status, res.Detail = status, "no element with the recorded role and name in the recorded app"
			return res
		}
		recording.SetElement(req, ref)
		req.Target = &agentv1.Target{Kind: &agentv1.Target_App{App: &agentv1.AppTarget{AppId: appID}}}
		res.Status = status
	} else if recording.IsPointer(step) {
		res.Status = recording.StatusByCoordinates
	}
	resp, err := unary(r, cc.Act, &brokerv1.ActRequest{SessionId: sid, Request: req})
	if err != nil {
		res.Status, res.Detail = recording.StatusFailed, err.Error()
		return res
	}
	res.AuditSeq = resp.GetAuditSeq()
	return res
}

// findElement snapshots the app the description names (by name, else the recorded id) and resolves it.
func (r *runner) findElement(cc brokerv1.ComputerServiceClient, sid string, d *recording.Element) (*agentv1.ElementRef, string, string, error) {
	apps, err := unary(r, cc.ListApps, &brokerv1.ListAppsRequest{SessionId: sid})
	if err != nil {
		return nil, "", "", err
	}
	appID := ""
	for _, a := range apps.GetResponse().GetApps() {
		if (d.App != "" && strings.EqualFold(a.GetName(), d.App)) || (d.App == "" && a.GetAppId() == d.AppID) {
			appID = a.GetAppId()
			break
		}
	}
	if appID == "" {
		return nil, recording.StatusNotFound, "", nil
	}
	snap, err := unary(r, cc.SnapshotApp, &brokerv1.SnapshotAppRequest{SessionId: sid, Request: &agentv1.SnapshotAppRequest{AppId: appID}})
	if err != nil {
		return nil, "", "", err
	}
	s := snap.GetResponse().GetSnapshot()
	ref, status := recording.Resolve(d, s.GetElements())
	return &agentv1.ElementRef{SnapshotId: s.GetSnapshotId(), Ref: ref}, status, appID, nil
}

func (r *runner) printReplay(res replayResult) error {
	text := fmt.Sprintf("step %d %s: %s", res.Index, res.Action, res.Status)
	if res.Detail != "" {
		text += ": " + res.Detail
	}
	return r.printJSONOr(res, text+"\n")
}
