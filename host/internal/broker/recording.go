package broker

import (
	"context"
	"fmt"
	"sync"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"glovebox.dev/host/internal/config"
	"glovebox.dev/host/internal/recording"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/actions"
)

// recordingCaptureTimeout bounds a recording's screenshot.
const recordingCaptureTimeout = 5 * time.Second

// recorder is one recording in progress: a session's or a control lease's.
type recorder struct {
	rec *recording.Recording
	// lastImage is the last screenshot's name: the next step's before.
	mu        sync.Mutex
	lastImage string
	// capturing is set while a screenshot is under way: at most one at a time per recording, so steps faster
	// than captures do not pile them up (such a step has no after image).
	capturing bool
	// typedRun is the text of the consecutive type steps up to now (noteSecrets).
	typedRun string
}

// openRecordings opens the recordings store when the policy records anything.
func openRecordings(cfg *config.Config) (*recording.Store, error) {
	r := cfg.Recording
	if len(r.Principals) == 0 && len(r.Guests) == 0 {
		return nil, nil
	}
	return recording.Open(cfg.RecordingDir())
}

// startRecorder starts a recording when the policy records principal on g (nil otherwise, or when it cannot
// be created: recording never fails the work recorded, the error is logged).
func (b *Broker) startRecorder(g *guest, meta recording.Meta) *recorder {
	if b.recs == nil || !b.cfg.Recording.Records(meta.Principal, g.name) {
		return nil
	}
	meta.Guest, meta.KeepsText = g.name, b.cfg.Recording.KeepText
	rec, err := b.recs.Start(meta, b.now())
	if err != nil {
		b.log.Error("recording start", "guest", g.name, "error", err)
		return nil
	}
	r := &recorder{rec: rec}
	if b.cfg.Recording.Screenshots {
		// The first step's before: taken before that step is sent, so it waits (bounded by the capture's
		// timeout); later befores are the previous step's after.
		r.lastImage = "start.jpg"
		done := make(chan struct{})
		b.capture(g, rec, r.lastImage, func() { close(done) })
		<-done
	}
	return r
}

// sessionRecorder is the session's recording, started at its first mutation.
func (b *Broker) sessionRecorder(s *session) *recorder {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rec == nil && !s.recChecked {
		s.recChecked = true
		s.rec = b.startRecorder(s.guest, recording.Meta{Kind: recording.KindSession, Principal: s.principal.Name, SessionID: s.id})
	}
	return s.rec
}

// leaseRecorder is the recording of principal's control lease on g, started at their first input.
func (b *Broker) leaseRecorder(g *guest, principal string) *recorder {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.lease == nil || g.lease.GetHolder() != principal {
		return nil
	}
	if g.humanRec == nil {
		g.humanRec = b.startRecorder(g, recording.Meta{Kind: recording.KindLease, Principal: principal})
	}
	return g.humanRec
}

// stepOf is the recording step of one mutation: the agent request (redacted as in the audit record), its
// frozen target (returned too: the broker's, else the answer's), the answer's effect and pointer, the outcome
// and the outcome record's seq.
func (b *Broker) stepOf(r *recorder, req proto.Message, redacted *structpb.Struct, target *agentv1.FrozenTarget, resp proto.Message, start time.Time, seq uint64, err error) (*recording.Step, *agentv1.FrozenTarget) {
	st := &recording.Step{Time: start.UTC(), AuditSeq: seq, DurationUs: time.Since(start).Microseconds()}
	st.Code, st.Reason = outcome(err)
	st.Request, _ = protojson.Marshal(redacted)
	if r.rec.Meta().KeepsText && req != nil {
		st.RequestText, _ = protojson.Marshal(req)
	}
	if ar, ok := req.(*agentv1.ActRequest); ok {
		if f := ar.ProtoReflect().WhichOneof(ar.ProtoReflect().Descriptor().Oneofs().ByName("action")); f != nil {
			st.Action = string(f.Name())
		}
	}
	if target == nil {
		if ar, ok := resp.(*agentv1.ActResponse); ok {
			target = ar.GetTarget()
		}
	}
	if target != nil {
		st.Target, _ = protojson.Marshal(target)
		st.TargetSource = target.GetSource().String()
	}
	if ar, ok := resp.(interface {
		GetEffect() agentv1.Effect
		GetPointer() *agentv1.Point
	}); ok && resp.ProtoReflect().IsValid() {
		st.Effect = ar.GetEffect().String()
		if p := ar.GetPointer(); p != nil {
			st.Pointer = &recording.Point{X: p.GetX(), Y: p.GetY()}
		}
	}
	return st, target
}

// addStep writes st to r with its screenshots (the last one as its before, a new one taken now, off the
// caller's path, as its after) and the accessibility text of its target ft after it (appWindow: the AT-SPI
// window of an element step's snapshot, see takeA11y).
func (b *Broker) addStep(g *guest, r *recorder, st *recording.Step, ft *agentv1.FrozenTarget, appWindow string) {
	if b.cfg.Recording.Screenshots {
		r.mu.Lock()
		st.Before = r.lastImage
		take := st.Code == "OK" && !r.capturing
		if take {
			st.After = fmt.Sprintf("seq-%012d.jpg", st.AuditSeq)
			r.lastImage, r.capturing = st.After, true
		}
		r.mu.Unlock()
		if take {
			b.capture(g, r.rec, st.After, func() {
				r.mu.Lock()
				r.capturing = false
				r.mu.Unlock()
			})
		}
	}
	b.takeA11y(g, r, st, ft, appWindow)
	if err := r.rec.Add(st); err != nil {
		b.log.Error("recording step", "recording", r.rec.ID(), "error", err)
	}
}

// startRecording starts the session's recording, if the policy records it, before its first mutation is
// sent (so the first screenshot shows the screen before it), and gives it the texts the mutation types
// (noteSecrets).
func (b *Broker) startRecording(cl *call) {
	if b.recs == nil {
		return
	}
	r := b.sessionRecorder(cl.s)
	if r != nil && b.cfg.Recording.A11yText && !r.rec.Meta().KeepsText {
		if cl.redacted == nil {
			cl.redacted = b.args(cl.args)
		}
		b.noteSecrets(r, cl.args, cl.redacted)
	}
}

// startHumanRecording starts the recording of principal's lease on g before their first input is sent, and
// gives it the texts the input types.
func (b *Broker) startHumanRecording(g *guest, principal string, req *agentv1.ActRequest) {
	if b.recs == nil {
		return
	}
	r := b.leaseRecorder(g, principal)
	if r != nil && b.cfg.Recording.A11yText && !r.rec.Meta().KeepsText {
		b.noteSecrets(r, req, b.args(req))
	}
}

// recordCall records a session's mutation once its outcome is audited.
func (b *Broker) recordCall(cl *call, seq uint64, err error) {
	if b.recs == nil {
		return
	}
	r := b.sessionRecorder(cl.s)
	if r == nil {
		return
	}
	if _, ok := cl.response.(*agentv1.GetAppResponse); ok {
		// A launch names its app as a GetApp observation does, so later element steps name it too.
		b.noteObservation(cl, err)
	}
	st, ft := b.stepOf(r, cl.args, cl.redacted, cl.target, cl.response, cl.start, seq, err)
	st.Source, st.Principal, st.SessionID, st.RPC = "AGENT", cl.c.Principal.Name, cl.s.id, cl.rpc
	cl.s.mu.Lock()
	c := cl.s.snaps
	cl.s.mu.Unlock()
	if ar, ok := cl.args.(*agentv1.ActRequest); ok {
		st.Element = c.describe(ar)
		if t, _ := actions.TabOf(ar); t != nil {
			st.Tab = c.tabOf(t.GetBrowserId(), t.GetTabId())
		}
	}
	if st.Action == "" {
		st.Action = lastPart(cl.rpc)
	}
	b.addStep(cl.s.guest, r, st, ft, c.windowOf(ft.GetSnapshotId()))
}

// recordHuman records a person's console input once its outcome is audited.
func (b *Broker) recordHuman(g *guest, principal string, req *agentv1.ActRequest, redacted *structpb.Struct, resp *agentv1.ActResponse, start time.Time, seq uint64, err error) {
	if b.recs == nil {
		return
	}
	r := b.leaseRecorder(g, principal)
	if r == nil {
		return
	}
	st, ft := b.stepOf(r, req, redacted, nil, resp, start, seq, err)
	st.Source, st.Principal, st.RPC = "HUMAN", principal, RPCConsoleInput
	b.addStep(g, r, st, ft, "")
}

// capture takes a JPEG screenshot of g in the background into rec's file name, then calls done.
func (b *Broker) capture(g *guest, rec *recording.Recording, name string, done func()) {
	edge := b.cfg.Recording.ScreenshotMaxEdge
	if edge == 0 {
		edge = config.DefaultScreenshotMaxEdge
	}
	rec.WriteImageAsync(name, func() ([]byte, recording.Image) {
		defer done()
		ctx, cancel := context.WithTimeout(context.Background(), recordingCaptureTimeout)
		defer cancel()
		var img *agentv1.Image
		err := g.conn.Call(ctx, 0, func(ctx context.Context, c guestClients) error {
			resp, err := c.Observe.CaptureScreenshot(ctx, &agentv1.CaptureScreenshotRequest{Options: &agentv1.ScreenshotOptions{
				Format: agentv1.ImageFormat_IMAGE_FORMAT_JPEG, Quality: 70, MaxEdge: edge}})
			img = resp.GetImage()
			return err
		})
		if err != nil || img == nil {
			b.log.Warn("recording screenshot", "recording", rec.ID(), "error", err)
			return nil, recording.Image{}
		}
		return img.GetData(), recording.Image{Width: img.GetWidth(), Height: img.GetHeight(), Scale: img.GetScale(),
			RegionX: img.GetRegion().GetX(), RegionY: img.GetRegion().GetY()}
	})
}

// seal ends r and chains its manifest's hash into the guest's audit log, then applies retention.
func (b *Broker) seal(ctx context.Context, g *guest, r *recorder) {
	if r == nil {
		return
	}
	m, sum, err := r.rec.Seal(b.now())
	if err != nil {
		b.log.Error("recording seal", "recording", r.rec.ID(), "error", err)
		return
	}
	b.auditSeal(ctx, m, sum)
	b.log.Info("recording sealed", "recording", m.ID, "guest", g.name, "steps", m.Steps)
	b.prune(ctx)
}

// auditSeal chains a sealed recording's manifest hash into its guest's audit log: by its principal (source
// HUMAN for a lease), or by the broker for one sealed as cut at its start (args cut, dropped_lines,
// dropped_bytes too).
func (b *Broker) auditSeal(ctx context.Context, m *recording.Manifest, sum string) {
	rec := &brokerv1.AuditRecord{
		Guest: m.Guest, Phase: brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE, Rpc: recording.SealRPC, SessionId: m.SessionID,
		Principal: m.Principal, Code: "OK", Args: &structpb.Struct{Fields: map[string]*structpb.Value{
			"recording_id": structpb.NewStringValue(m.ID), "manifest_sha256": structpb.NewStringValue(sum),
			"steps": structpb.NewNumberValue(float64(m.Steps)), "kind": structpb.NewStringValue(m.Kind),
		}},
	}
	if m.Kind == recording.KindLease {
		rec.Source = brokerv1.AuditSource_AUDIT_SOURCE_HUMAN
	}
	if c := m.Cut; c != nil {
		rec.Principal, rec.Source = brokerPrincipal, brokerv1.AuditSource_AUDIT_SOURCE_BROKER
		rec.Args.Fields["cut"] = structpb.NewBoolValue(true)
		rec.Args.Fields["dropped_lines"] = structpb.NewNumberValue(float64(c.DroppedLines))
		rec.Args.Fields["dropped_bytes"] = structpb.NewNumberValue(float64(c.DroppedBytes))
	}
	b.appendAudit(ctx, rec)
}

// sealCut seals, at the broker's start, every recording a crash left unsealed (recording.Store.Cut: what
// survived intact, a half-written last line dropped and said in the manifest) and chains each manifest's hash
// into its guest's log, so `glovebox audit verify` covers it and it can be exported and replayed. One that
// cannot be sealed is logged and left as it is.
func (b *Broker) sealCut(ctx context.Context) {
	if b.recs == nil {
		return
	}
	ids, err := b.recs.Unsealed()
	if err != nil {
		b.log.Error("recordings left unsealed", "error", err)
		return
	}
	for _, id := range ids {
		m, sum, err := b.recs.Cut(id)
		if err != nil {
			b.log.Error("recording cut by a stop: not sealed", "recording", id, "error", err)
			continue
		}
		b.auditSeal(ctx, m, sum)
		b.log.Warn("recording cut by a stop, sealed", "recording", id, "guest", m.Guest, "steps", m.Steps,
			"dropped_lines", m.Cut.DroppedLines, "dropped_bytes", m.Cut.DroppedBytes, "dropped_files", len(m.Cut.DroppedFiles))
	}
	if len(ids) > 0 {
		b.prune(ctx)
	}
}

// prune applies the retention policy and audits each removal in the removed recording's guest log.
func (b *Broker) prune(ctx context.Context) {
	removed, err := b.recs.Prune(recording.Retention{MaxAge: time.Duration(b.cfg.Recording.MaxAge), MaxBytes: b.cfg.Recording.MaxBytes}, b.now())
	if err != nil {
		b.log.Error("recording retention", "error", err)
	}
	for _, m := range removed {
		b.appendAudit(ctx, &brokerv1.AuditRecord{
			Guest: m.Guest, Phase: brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE, Rpc: recording.RemoveRPC, Principal: brokerPrincipal,
			Code: "OK", Source: brokerv1.AuditSource_AUDIT_SOURCE_BROKER, Args: &structpb.Struct{Fields: map[string]*structpb.Value{
				"recording_id": structpb.NewStringValue(m.ID), "reason": structpb.NewStringValue("retention"),
			}},
		})
	}
}

// lastPart is the method name of a gRPC full method.
func lastPart(rpc string) string {
	for i := len(rpc) - 1; i >= 0; i-- {
		if rpc[i] == '/' {
			return rpc[i+1:]
		}
	}
	return rpc
}
