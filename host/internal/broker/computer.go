package broker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"glovebox.dev/host/internal/auth"
	"glovebox.dev/host/internal/guestconn"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/actions"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

type guestClients = guestconn.Clients

// call is one computer request on its way through the broker.
type call struct {
	rpc   string
	c     *auth.Caller
	s     *session
	start time.Time
	// args is the agent request as sent (owner and target filled in), redacted into the audit record.
	args proto.Message
	// extraArgs are added to the redacted args (a read clipboard's redacted response).
	extraArgs map[string]*structpb.Value
	// redacted is args redacted, kept for the call's second record: a mutation's intent and outcome carry
	// the same args, and redacting is a walk of the whole request.
	redacted *structpb.Struct
	// target is the frozen target, reported in the audit records and the response.
	target *agentv1.FrozenTarget
	// timing is where a mutation's time went in the broker, set by mutate (and by an Act's observation).
	timing *brokerv1.MutationTiming
	// retry is the request's request_id and content hash (nil without an id), see retry.go; response is the
	// guest's answer, recorded in a mutation's OUTCOME when it has an id and in the call's recording step;
	// replayed is set when the answer came from the log.
	retry    *retry
	response proto.Message
	replayed bool
}

// begin looks up the caller's open session for a computer request.
func (b *Broker) begin(ctx context.Context, rpc, sessionID string) (*call, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	s, err := b.openSession(c, sessionID)
	if err != nil {
		return nil, err
	}
	return &call{rpc: rpc, c: c, s: s, start: time.Now()}, nil
}

// args returns the redacted form of m with a non-nil field map.
func (b *Broker) args(m proto.Message) *structpb.Struct {
	st := b.redact(m)
	if st == nil {
		st = &structpb.Struct{}
	}
	if st.Fields == nil {
		st.Fields = map[string]*structpb.Value{}
	}
	return st
}

// record builds the audit record of cl in phase with the outcome of err.
func (b *Broker) record(cl *call, phase brokerv1.AuditPhase, err error) *brokerv1.AuditRecord {
	if cl.redacted == nil {
		cl.redacted = b.args(cl.args)
	}
	args := cl.redacted
	if len(cl.extraArgs) > 0 {
		// A copy: the records of a call share args, and extraArgs may be set between them.
		fields := make(map[string]*structpb.Value, len(args.Fields)+len(cl.extraArgs))
		maps.Copy(fields, args.Fields)
		maps.Copy(fields, cl.extraArgs)
		args = &structpb.Struct{Fields: fields}
	}
	rec := &brokerv1.AuditRecord{
		Guest: cl.s.guest.name, Phase: phase, Rpc: cl.rpc, SessionId: cl.s.id, Principal: cl.c.Principal.Name,
		Args: args, DurationUs: time.Since(cl.start).Microseconds(),
	}
	if cl.target != nil {
		rec.Target = proto.CloneOf(cl.target)
	}
	if phase != brokerv1.AuditPhase_AUDIT_PHASE_INTENT {
		rec.Code, rec.Reason = outcome(err)
	}
	if cl.retry != nil {
		rec.RequestId, rec.RequestHash = cl.retry.key.id, cl.retry.hash
	}
	return rec
}

// refuse audits a request refused before anything was sent and returns err.
func (b *Broker) refuse(ctx context.Context, cl *call, err error) error {
	if _, aerr := b.appendAudit(ctx, b.record(cl, brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE, err)); aerr != nil {
		return aerr
	}
	return err
}

// observe runs an observation: straight to the guest (concurrently with everything else), then one
// COMPLETE record, answered once it is written in order, not once it is durable (see WrittenAuditor; the
// next fsync of the guest's log, at the latest the one of the next mutation's intent, makes it durable).
func (b *Broker) observe(ctx context.Context, cl *call, send func(ctx context.Context, c guestClients) error) (uint64, error) {
	return b.observeFor(ctx, cl, 0, send)
}

// observeFor is observe for an observation that may legitimately take extra beyond the guest call deadline.
func (b *Broker) observeFor(ctx context.Context, cl *call, extra time.Duration, send func(ctx context.Context, c guestClients) error) (uint64, error) {
	err := cl.s.guest.screenHidden()
	if err == nil {
		err = cl.s.guest.conn.Call(ctx, extra, send)
	}
	seq, aerr := b.appendObservation(ctx, b.record(cl, brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE, err))
	b.noteObservation(cl, err)
	if err != nil {
		return 0, err
	}
	return seq, aerr
}

// mutation is what a mutating request brings to mutate.
type mutation struct {
	// gate is the policy's verdict on the request (nil: allowed).
	gate error
	// freeze resolves the target into explicit ids (may refuse with GENERATION_CHANGED).
	freeze func() error
	// extra is the action's own duration, added to the guest call's deadline.
	extra time.Duration
	// tokens is how many of the session's rate tokens the request takes (a batch: one per action); 0 means 1.
	tokens int
	// observation marks a request that travels as a mutation but changes nothing (Act's wait and wait_for):
	// it is frozen and sent like an observation (observeAct).
	observation bool
	send        func(ctx context.Context, c guestClients) error
	// replay fills the RPC's response from a recorded one, for a retry answered from the log.
	replay func(recorded *structpb.Struct) error
	// direct runs send outside the guest's input queue, after the same checks: a transfer that touches no
	// input device (a drop into a directory) must not hold every session's input for its duration.
	direct bool
}

// mutate answers a retry of a request_id already bound from the log (retry.go), or else runs the broker's
// checks in order (observe-only, control, policy, rate limit, target freezing), makes the intent durable,
// sends the request through the guest's input queue (the session's state, control and the frozen target's
// generation are checked again just before sending) and makes the outcome durable. It returns the outcome
// record's sequence number.
func (b *Broker) mutate(ctx context.Context, cl *call, m mutation) (uint64, error) {
	if m.observation {
		return b.observeAct(ctx, cl, m)
	}
	if cl.retry != nil {
		e, first, err := b.retries.claim(cl.retry, b.now())
		switch {
		case err != nil:
			return 0, b.refuse(ctx, cl, err)
		case !first:
			return b.replay(ctx, cl, e, m.replay)
		}
		defer b.retries.release(cl.retry)
	}
	return b.mutateOnce(ctx, cl, m)
}

// mutateOnce is mutate for a request that is not a retry.
func (b *Broker) mutateOnce(ctx context.Context, cl *call, m mutation) (uint64, error) {
	s, g := cl.s, cl.s.guest
	if s.mode == brokerv1.SessionMode_SESSION_MODE_OBSERVE {
		return 0, b.refuse(ctx, cl, fmt.Errorf("session %s is observe-only: %w", s.id, errdefs.ErrReadOnlySession))
	}
	if err := g.controlHeld(); err != nil {
		return 0, b.refuse(ctx, cl, err)
	}
	if m.gate != nil {
		return 0, b.refuse(ctx, cl, m.gate)
	}
	if err := s.bucket.TakeN(b.now(), m.tokens); err != nil {
		return 0, b.refuse(ctx, cl, err)
	}
	if m.freeze != nil {
		if err := m.freeze(); err != nil {
			return 0, b.refuse(ctx, cl, err)
		}
	}
	if err := g.conn.Ready(); err != nil {
		return 0, b.refuse(ctx, cl, err)
	}
	checked := time.Now()
	b.startRecording(cl)
	intent, err := b.appendAudit(ctx, b.record(cl, brokerv1.AuditPhase_AUDIT_PHASE_INTENT, nil))
	if err != nil {
		return 0, err
	}
	enqueued := time.Now()
	var running, answered time.Time
	if cl.retry != nil {
		b.retries.update(cl.retry, func(e *retryEntry) { e.state, e.intent = retryRunning, intent })
	}
	run := func() {
		running = time.Now()
		defer func() { answered = time.Now() }()
		if err = ctx.Err(); err != nil {
			return
		}
		// The session may have closed since begin: its release_all is queued after this job or already
		// ran, and input sent now would be held with nobody to release it.
		if err = s.closedErr(); err != nil {
			return
		}
		if err = g.controlHeld(); err != nil {
			return
		}
		if err = g.sameGeneration(cl.target); err != nil {
			return
		}
		err = g.conn.Call(ctx, m.extra, m.send)
	}
	if m.direct {
		run()
	} else {
		g.queue.do(s.id, run)
	}
	s.noteAction(cl.rpc, b.now(), nil, false)
	rec := b.record(cl, brokerv1.AuditPhase_AUDIT_PHASE_OUTCOME, err)
	rec.IntentSeq = intent
	rec.Response = b.recordedResponse(cl, err)
	seq, aerr := b.appendAudit(ctx, rec)
	end := time.Now()
	cl.timing = &brokerv1.MutationTiming{
		ValidateUs:     checked.Sub(cl.start).Microseconds(),
		IntentAuditUs:  enqueued.Sub(checked).Microseconds(),
		QueueUs:        running.Sub(enqueued).Microseconds(),
		GuestUs:        answered.Sub(running).Microseconds(),
		OutcomeAuditUs: end.Sub(answered).Microseconds(),
		TotalUs:        end.Sub(cl.start).Microseconds(),
	}
	if cl.retry != nil {
		// Settled whether or not the outcome reached the disk: the guest was asked, so a retry must not
		// ask again (after a restart, an outcome that never reached the disk reads as interrupted).
		b.retries.update(cl.retry, func(e *retryEntry) { e.settle(seq, rec.GetCode(), rec.GetReason(), rec.GetResponse()) })
	}
	b.recordCall(cl, seq, err)
	if err != nil {
		return 0, err
	}
	return seq, aerr
}

// observeAct runs an action that travels as a mutation but is an observation (wait, wait_for): no observe-only
// or control refusal, no rate token, no mutation queue, one COMPLETE record; the target is still frozen (a
// stale generation is refused) so a wait_for names its tab.
func (b *Broker) observeAct(ctx context.Context, cl *call, m mutation) (uint64, error) {
	if m.freeze != nil {
		if err := m.freeze(); err != nil {
			return 0, b.refuse(ctx, cl, err)
		}
	}
	checked := time.Now()
	var answered time.Time
	seq, err := b.observeFor(ctx, cl, m.extra, func(ctx context.Context, c guestClients) error {
		defer func() { answered = time.Now() }()
		return m.send(ctx, c)
	})
	end := time.Now()
	if answered.IsZero() {
		answered = end
	}
	cl.timing = &brokerv1.MutationTiming{
		ValidateUs:     checked.Sub(cl.start).Microseconds(),
		GuestUs:        answered.Sub(checked).Microseconds(),
		OutcomeAuditUs: end.Sub(answered).Microseconds(),
		TotalUs:        end.Sub(cl.start).Microseconds(),
	}
	return seq, err
}

// freeze resolves the request's target: an explicit target and every snapshot the request names are checked
// against the broker generation; a missing target becomes the session default (source SESSION) or stays for
// the agent to resolve (ACTIVE). A desktop action takes only a display or window default: it acts on the
// desktop, not in a tab or app, and a tab or app default frozen into it would be recorded as its target while
// the agent acted elsewhere. The target sent carries the agent's generation, so the agent refuses it if it
// restarted meanwhile.
func (b *Broker) freeze(cl *call, r *agentv1.ActRequest, desktop bool) (*agentv1.Target, error) {
	gen, agentGen, err := cl.s.guest.checkGeneration(r)
	if err != nil {
		return nil, err
	}
	t := r.GetTarget()
	src := agentv1.TargetSource_TARGET_SOURCE_EXPLICIT
	if t.GetKind() == nil {
		if def := cl.s.defaultTarget(); def != nil && (!desktop || def.GetDisplay() != nil || def.GetWindow() != nil) {
			t, src = def, agentv1.TargetSource_TARGET_SOURCE_SESSION
		} else {
			t, src = &agentv1.Target{}, agentv1.TargetSource_TARGET_SOURCE_ACTIVE
		}
	} else {
		t = proto.CloneOf(t)
	}
	t.Generation = agentGen
	cl.target = &agentv1.FrozenTarget{
		DisplayId: t.GetDisplay().GetDisplayId(), WindowId: t.GetWindow().GetWindowId(), Source: src, Generation: gen,
		BrowserId: t.GetTab().GetBrowserId(), TabId: t.GetTab().GetTabId(),
	}
	return t, nil
}

// checkGeneration returns the broker and agent generations, refusing with GENERATION_CHANGED a target resolved
// in another broker generation (when the caller echoes one) and, whether or not it does, every snapshot the
// request names that this broker did not hand out in the current generation (fencing by default). Both are
// checked against one reading of the generation, which the frozen target then carries, so a hand-over between
// the check and the send is caught by sameGeneration.
func (g *guest) checkGeneration(r *agentv1.ActRequest) (gen, agentGen uint64, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	gen, agentGen = g.gen, g.agentGen
	if got := r.GetTarget().GetGeneration(); got != 0 && got != gen {
		return 0, 0, errgrpc.WithMetadata(
			fmt.Errorf("request.target.generation %d is from before guest %s's generation %d; observe again: %w", got, g.name, gen, errdefs.ErrGenerationChanged),
			map[string]string{errgrpc.MetaCause: errgrpc.CauseGenerationChanged, "generation": strconv.FormatUint(gen, 10)})
	}
	if err := g.fence(gen, actions.SnapshotsOf(r)); err != nil {
		return 0, 0, err
	}
	return gen, agentGen, nil
}

// fenceSnapshots refuses with GENERATION_CHANGED any of refs this broker did not hand out in the current
// generation: a read that continues or narrows an earlier snapshot (a cursor, a subtree) is fenced as an
// action naming it is.
func (g *guest) fenceSnapshots(refs []actions.SnapshotRef) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.fence(g.gen, refs)
}

// fence is the check of checkGeneration and fenceSnapshots (g.mu held).
func (g *guest) fence(gen uint64, refs []actions.SnapshotRef) error {
	for _, ref := range refs {
		taken, ok := g.snapshots.generation(ref.ID)
		switch {
		case !ok:
			return errgrpc.WithMetadata(
				fmt.Errorf("request.%s: snapshot %s was not handed out by this broker in guest %s's generation %d (taken before a restart, or forgotten); observe again: %w", ref.Field, ref.ID, g.name, gen, errdefs.ErrGenerationChanged),
				map[string]string{errgrpc.MetaCause: errgrpc.CauseSnapshotUnknown, "field": "request." + ref.Field, "generation": strconv.FormatUint(gen, 10)})
		case taken != gen:
			return errgrpc.WithMetadata(
				fmt.Errorf("request.%s: snapshot %s was taken in guest %s's generation %d, now %d (control changed hands or the agent restarted); observe again: %w", ref.Field, ref.ID, g.name, taken, gen, errdefs.ErrGenerationChanged),
				map[string]string{errgrpc.MetaCause: errgrpc.CauseGenerationChanged, "field": "request." + ref.Field, "generation": strconv.FormatUint(gen, 10), "snapshot_generation": strconv.FormatUint(taken, 10)})
		}
	}
	return nil
}

// sameGeneration refuses a target frozen in an earlier broker generation (control was taken and given back,
// or the agent restarted, since the target was frozen) with GENERATION_CHANGED; nil target: nothing frozen.
func (g *guest) sameGeneration(t *agentv1.FrozenTarget) error {
	if t == nil {
		return nil
	}
	if gen, _ := g.generations(); t.GetGeneration() != gen {
		return fmt.Errorf("target frozen in guest %s's generation %d, now %d; observe again: %w", g.name, t.GetGeneration(), gen, errdefs.ErrGenerationChanged)
	}
	return nil
}

// reportTarget is the frozen target returned to the caller: the agent's answer, with the source the broker
// decided when it filled in the session default, and the broker generation (the one callers send back).
func reportTarget(cl *call, agent *agentv1.FrozenTarget) *agentv1.FrozenTarget {
	out := proto.CloneOf(cl.target)
	if agent != nil {
		out = proto.CloneOf(agent)
		if cl.target.GetSource() == agentv1.TargetSource_TARGET_SOURCE_SESSION || agent.GetSource() == agentv1.TargetSource_TARGET_SOURCE_UNSPECIFIED {
			out.Source = cl.target.GetSource()
		}
		out.Generation = cl.target.GetGeneration()
	}
	return out
}

// checkRequest prefixes the violations of a wrapped agent request with "request." so the caller sees the
// path in the broker's request.
func checkRequest(err error, extra ...errdefs.Violation) error {
	var br *errdefs.BadRequest
	if err != nil && !errors.As(err, &br) {
		return err
	}
	var out []errdefs.Violation
	out = append(out, extra...)
	if br != nil {
		for _, v := range br.Violations {
			out = append(out, errdefs.Violation{Field: "request." + v.Field, Description: v.Description})
		}
	}
	if len(out) == 0 {
		return nil
	}
	return &errdefs.BadRequest{Violations: out}
}

// outcome is the gRPC code name and ErrorInfo reason of err for the audit log.
func outcome(err error) (code, reason string) {
	st := errgrpc.ToStatus(err)
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			reason = info.GetReason()
		}
	}
	return codeName(st.Code()), reason
}

// codeName turns a code's Go name ("FailedPrecondition") into its canonical name ("FAILED_PRECONDITION").
func codeName(c codes.Code) string {
	s := c.String()
	if c == codes.OK {
		return "OK"
	}
	var sb strings.Builder
	for i, r := range s {
		if i > 0 && unicode.IsUpper(r) {
			sb.WriteByte('_')
		}
		sb.WriteRune(unicode.ToUpper(r))
	}
	return sb.String()
}

// actDuration is how long the action itself may legitimately take, added to the guest call deadline.
func actDuration(r *agentv1.ActRequest) time.Duration {
	ms := int64(r.GetObserve().GetTimeoutMs()) + int64(r.GetObserve().GetQuietMs())
	switch a := r.GetAction().(type) {
	case *agentv1.ActRequest_Wait:
		ms += int64(a.Wait.GetDurationMs())
	case *agentv1.ActRequest_HoldKey:
		ms += int64(a.HoldKey.GetDurationMs())
	case *agentv1.ActRequest_Type:
		// Typing costs a few milliseconds a character beyond the requested delay.
		ms += int64(utf8.RuneCountInString(a.Type.GetText())) * (int64(a.Type.GetDelayMs()) + 5)
	case *agentv1.ActRequest_Drag:
		ms += int64(len(a.Drag.GetPath())) * (int64(a.Drag.GetStepDelayMs()) + 1)
	case *agentv1.ActRequest_Key:
		ms += int64(a.Key.GetRepeat()) * 5
	case *agentv1.ActRequest_WaitFor:
		ms += int64(a.WaitFor.GetTimeoutMs())
	}
	if r.GetWatchMs() > 0 {
		ms += int64(r.GetWatchMs())
	}
	return time.Duration(ms) * time.Millisecond
}
