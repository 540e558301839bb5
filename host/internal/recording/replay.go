package recording

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// Replay statuses of a step.
const (
	// StatusDone: sent as recorded (an element found where it was).
	StatusDone = "done"
	// StatusByCoordinates: a pointer step sent at its recorded coordinates.
	StatusByCoordinates = "done by coordinates"
	// StatusResolvedDifferently: the element was found by role and name elsewhere in the tree.
	StatusResolvedDifferently = "resolved differently"
	// StatusNotFound: no element with the recorded role and name.
	StatusNotFound = "not found"
	// StatusFailed: the broker refused or the action failed.
	StatusFailed = "failed"
	// StatusSkipped: not replayed (not an Act, failed when recorded, or after a stop with -keep-going).
	StatusSkipped = "skipped"
)

// pointerActions are the actions that act at recorded coordinates.
var pointerActions = map[string]bool{"click": true, "mouse_move": true, "mouse_down": true, "mouse_up": true, "drag": true, "scroll": true}

// Replayable reports whether st is replayed at all: a successful Act of a session or the console, or an
// app launch.
func Replayable(st Step) bool {
	return st.Code == "OK" && (strings.HasSuffix(st.RPC, "/Act") || st.Source == "HUMAN" || IsLaunch(st))
}

// IsLaunch reports whether st is a GetApp with launch (recorded only as such: a GetApp without launch is an
// observation), which a replay repeats so a recording made from an empty desktop replays on one.
func IsLaunch(st Step) bool { return strings.HasSuffix(st.RPC, "/GetApp") }

// IsPointer reports whether st acts at screen coordinates.
func IsPointer(st Step) bool { return pointerActions[st.Action] }

// Request rebuilds the agent request of st for a replay: the recorded one without owner, target and
// request id (the replaying session's own apply), with the text in clear when the recording kept it. A step
// whose text was kept only as length + HMAC cannot be replayed (INVALID_ARGUMENT).
func Request(st Step) (*agentv1.ActRequest, error) {
	req := &agentv1.ActRequest{}
	return req, unmarshalRequest(st, req)
}

// LaunchRequest rebuilds the GetApp request of a launch step (IsLaunch) for a replay, like Request.
func LaunchRequest(st Step) (*agentv1.GetAppRequest, error) {
	req := &agentv1.GetAppRequest{}
	if err := unmarshalRequest(st, req); err != nil {
		return nil, err
	}
	if !req.GetLaunch() {
		return nil, fmt.Errorf("step %d: request: a GetApp step without launch: %w", st.Index, errdefs.ErrInvalidArgument)
	}
	return req, nil
}

// unmarshalRequest fills req from st's recorded request, as Request describes.
func unmarshalRequest(st Step, req proto.Message) error {
	raw := st.RequestText
	if raw == nil {
		raw = st.Request
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("step %d: request: %v: %w", st.Index, err, errdefs.ErrInvalidArgument)
	}
	redacted := false
	walkRedacted(m, nil, func([]any) { redacted = true })
	if redacted {
		return fmt.Errorf("step %d (%s): the recording kept its text only as length + HMAC (policy keep_text): %w", st.Index, st.Action, errdefs.ErrInvalidArgument)
	}
	for _, k := range []string{"owner", "target", "requestId", "request_id"} {
		delete(m, k)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(b, req); err != nil {
		return fmt.Errorf("step %d: request: %v: %w", st.Index, err, errdefs.ErrInvalidArgument)
	}
	return nil
}

// SetElement points r's element action at ref, reporting whether r is an element action.
func SetElement(r *agentv1.ActRequest, ref *agentv1.ElementRef) bool {
	m := r.ProtoReflect()
	od := m.Descriptor().Oneofs().ByName("action")
	f := m.WhichOneof(od)
	if f == nil || f.Kind() != protoreflect.MessageKind {
		return false
	}
	action := m.Mutable(f).Message()
	ef := action.Descriptor().Fields().ByName("element")
	if ef == nil || ef.Message() == nil || ef.Message().FullName() != ref.ProtoReflect().Descriptor().FullName() {
		return false
	}
	action.Set(ef, protoreflect.ValueOfMessage(ref.ProtoReflect()))
	return true
}

// Resolve finds the element d describes among a snapshot's elements, never by its old ref: the element with
// the same role, name and path of roles and names from the root is StatusDone; else the one with the same
// role and name whose path shares the longest tail with the recorded one is StatusResolvedDifferently; none
// is StatusNotFound.
func Resolve(d *Element, elems []*agentv1.Element) (ref, status string) {
	byRef := make(map[string]*agentv1.Element, len(elems))
	for _, e := range elems {
		byRef[e.GetRef()] = e
	}
	best, bestScore := "", -1
	for _, e := range elems {
		if e.GetRole() != d.Role || e.GetName() != d.Name {
			continue
		}
		path := pathOf(e, byRef)
		if len(path) > 0 && path[0].Role == "application" && (len(d.Path) == 0 || d.Path[0].Role != "application") {
			path = path[1:] // recorded from a window's snapshot, found in the app's: the same place
		}
		if samePath(path, d.Path) {
			return e.GetRef(), StatusDone
		}
		if s := commonTail(path, d.Path); s > bestScore {
			best, bestScore = e.GetRef(), s
		}
	}
	if best == "" {
		return "", StatusNotFound
	}
	return best, StatusResolvedDifferently
}

func pathOf(e *agentv1.Element, byRef map[string]*agentv1.Element) []PathStep {
	var path []PathStep
	for p := byRef[e.GetParentRef()]; p != nil && len(path) < 64; p = byRef[p.GetParentRef()] {
		path = append(path, PathStep{Role: p.GetRole(), Name: p.GetName()})
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}

func samePath(a, b []PathStep) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func commonTail(a, b []PathStep) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// Actor is what a replay acts through: a session on the guest (the broker's own pipeline).
type Actor interface {
	// Apps lists the guest's accessible applications.
	Apps(ctx context.Context) ([]*agentv1.App, error)
	// Snapshot snapshots an application.
	Snapshot(ctx context.Context, appID string) (*agentv1.Snapshot, error)
	// Act sends one action and returns its outcome record's seq.
	Act(ctx context.Context, r *agentv1.ActRequest) (uint64, error)
	// Launch finds or starts an app (GetApp with launch) and returns its outcome record's seq; an app that
	// did not reach the accessibility bus is an error.
	Launch(ctx context.Context, r *agentv1.GetAppRequest) (uint64, error)
}

// Result is one step's replay report.
type Result struct {
	Index    int
	Action   string
	Status   string
	Detail   string
	AuditSeq uint64
}

// Replay runs steps through a in order and reports each: see the Status constants. The first step not found
// or failed stops it (the rest are StatusSkipped) unless keepGoing. ctx's end stops it as well.
func Replay(ctx context.Context, steps []Step, a Actor, keepGoing bool) []Result {
	out := make([]Result, 0, len(steps))
	stopped := false
	tabs := tabMap{}
	for _, st := range steps {
		res := Result{Index: st.Index, Action: st.Action}
		switch {
		case stopped:
			res.Status, res.Detail = StatusSkipped, "after a stop"
		case ctx.Err() != nil:
			res.Status, res.Detail = StatusSkipped, ctx.Err().Error()
		case !Replayable(st):
			res.Status, res.Detail = StatusSkipped, "not a successful Act or launch when recorded"
		default:
			res = replayStep(ctx, st, a, tabs)
		}
		if res.Status == StatusNotFound || res.Status == StatusFailed {
			stopped = !keepGoing
		}
		out = append(out, res)
	}
	return out
}

func replayStep(ctx context.Context, st Step, a Actor, tabs tabMap) Result {
	res := Result{Index: st.Index, Action: st.Action, Status: StatusDone}
	if IsLaunch(st) {
		req, err := LaunchRequest(st)
		if err == nil {
			res.AuditSeq, err = a.Launch(ctx, req)
		}
		if err != nil {
			res.Status, res.Detail = StatusFailed, err.Error()
		}
		return res
	}
	req, err := Request(st)
	if err != nil {
		res.Status, res.Detail = StatusFailed, err.Error()
		return res
	}
	if isPageStep(req) {
		status, detail, ok := replayPage(ctx, st, req, a, tabs)
		res.Status, res.Detail = status, detail
		if !ok {
			return res
		}
	} else if d := st.Element; d != nil {
		apps, err := a.Apps(ctx)
		if err != nil {
			res.Status, res.Detail = StatusFailed, err.Error()
			return res
		}
		// By the app's name only: the recorded app_id is the recording guest's (a process id there), which
		// names nothing, or another app, on the guest replayed on.
		appID := ""
		for _, ap := range apps {
			if d.App != "" && strings.EqualFold(ap.GetName(), d.App) {
				appID = ap.GetAppId()
				break
			}
		}
		if d.App == "" {
			res.Status, res.Detail = StatusNotFound, "the recording does not name the element's app"
			return res
		}
		if appID == "" {
			res.Status, res.Detail = StatusNotFound, "the recorded app is not on the accessibility bus"
			return res
		}
		snap, err := a.Snapshot(ctx, appID)
		if err != nil {
			res.Status, res.Detail = StatusFailed, err.Error()
			return res
		}
		ref, status := Resolve(d, snap.GetElements())
		if status == StatusNotFound {
			res.Status, res.Detail = status, "no element with the recorded role and name in the recorded app"
			return res
		}
		SetElement(req, &agentv1.ElementRef{SnapshotId: snap.GetSnapshotId(), Ref: ref})
		req.Target = &agentv1.Target{Kind: &agentv1.Target_App{App: &agentv1.AppTarget{AppId: appID}}}
		res.Status = status
	} else if IsPointer(st) {
		res.Status = StatusByCoordinates
	}
	seq, err := a.Act(ctx, req)
	if err != nil {
		res.Status, res.Detail = StatusFailed, err.Error()
		return res
	}
	res.AuditSeq = seq
	return res
}
