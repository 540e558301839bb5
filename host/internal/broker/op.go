package broker

import (
	"context"
	"errors"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"glovebox.dev/shared/actions"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// op describes one computer RPC to the one skeleton every such RPC runs through (run): the opening (the
// caller's session, a copy of the wrapped agent request, the session's defaults, validation with `request.`
// paths, a refusal audited), then an observation (observe) or a mutation (mutate), then the guest's answer.
// Each RPC is its op and the wrapping of the answer.
type op[Req, Resp proto.Message] struct {
	rpc string
	// prepare fills the session's defaults into req (and may set the call's target) before validation; the
	// violations it returns (a wrong owner) are reported beside validation's. Nil: nothing to fill.
	prepare func(cl *call, req Req) []errdefs.Violation
	// check validates req as the agent would (shared/validate). Nil: nothing to check.
	check func(req Req) error
	// mutation makes the request a mutation (observe-only sessions, control, policy, rate limit, freezing,
	// durable intent and outcome, the guest's input queue) and returns its checks; ok false keeps it an
	// observation (ListBrowsers without start_default, GetApp without launch). Nil: an observation.
	mutation func(cl *call, req Req) (m mutation, ok bool)
	// snapshots are the snapshot ids a read names besides its target (a cursor, a subtree), refused with
	// GENERATION_CHANGED unless handed out in the current generation, as an action's are. Nil: none.
	snapshots func(req Req) []actions.SnapshotRef
	// gate refuses an observation the policy forbids (file transfer denied), audited like any refusal;
	// mutations put theirs in mutation.gate. Nil: allowed.
	gate func(cl *call, req Req) error
	// extra is how long an observation may legitimately take beyond the guest timeout (a file read). Nil: 0.
	extra func(req Req) time.Duration
	// send asks the guest.
	send func(ctx context.Context, c guestClients, req Req) (Resp, error)
	// answered sees the guest's answer before the call's last audit record is written (to stamp generations,
	// record the target acted on or add to the audited args). Nil: nothing to do.
	answered func(cl *call, resp Resp)
	// requestID is the mutation's idempotency key ("": none) and scope the broker request's own fields that
	// belong to its content beside the wrapped request (WriteClipboard's confirm), see retry.go; replayed,
	// when set, is told whether the answer came from the audit log.
	requestID string
	scope     []byte
	replayed  *bool
}

// open is the opening of a computer RPC: the caller's open session, the wrapped request copied (or empty, so
// nothing the caller holds is changed), the session defaults, and validation; a refused request is audited.
func open[Req, Resp proto.Message](ctx context.Context, b *Broker, sessionID string, in Req, o op[Req, Resp]) (*call, Req, error) {
	var zero Req
	cl, err := b.begin(ctx, o.rpc, sessionID)
	if err != nil {
		return nil, zero, err
	}
	req := cloneOrNew(in)
	if o.requestID != "" {
		// The content as the caller sent it, before the session's defaults and owner are filled in.
		cl.retry = b.newRetry(cl, o.requestID, o.scope, req)
	}
	var bad []errdefs.Violation
	if o.prepare != nil {
		bad = o.prepare(cl, req)
	}
	cl.args = req
	var verr error
	if o.check != nil {
		verr = o.check(req)
	}
	if err := checkRequest(verr, bad...); err != nil {
		return nil, zero, b.refuse(ctx, cl, err)
	}
	if o.snapshots != nil {
		if err := cl.s.guest.fenceSnapshots(o.snapshots(req)); err != nil {
			return nil, zero, b.refuse(ctx, cl, err)
		}
	}
	return cl, req, nil
}

// run serves one computer RPC described by o for the wrapped request in: the opening, then the observation or
// mutation skeleton. It returns the guest's answer and the sequence number of the call's last audit record.
func run[Req, Resp proto.Message](ctx context.Context, b *Broker, sessionID string, in Req, o op[Req, Resp]) (Resp, uint64, error) {
	var resp Resp
	cl, req, err := open(ctx, b, sessionID, in, o)
	if err != nil {
		return resp, 0, err
	}
	if o.gate != nil {
		if err := o.gate(cl, req); err != nil {
			return resp, 0, b.refuse(ctx, cl, err)
		}
	}
	send := func(ctx context.Context, c guestClients) error {
		var err error
		resp, err = o.send(ctx, c, req)
		if err == nil && o.answered != nil {
			o.answered(cl, resp)
		}
		if err == nil {
			cl.response = resp
		}
		return err
	}
	var seq uint64
	if m, ok := mutationOf(cl, req, o); ok {
		m.send = send
		m.replay = func(st *structpb.Struct) error {
			resp = cloneOrNew(resp)
			return fromRecorded(st, resp)
		}
		seq, err = b.mutate(ctx, cl, m)
		if o.replayed != nil {
			*o.replayed = cl.replayed
		}
	} else {
		cl.retry = nil // an observation binds no request_id
		var extra time.Duration
		if o.extra != nil {
			extra = o.extra(req)
		}
		seq, err = b.observeFor(ctx, cl, extra, send)
	}
	if err != nil {
		var zero Resp
		return zero, 0, requestPaths(err)
	}
	return resp, seq, nil
}

// mutationOf is o's mutation for req, ok false for an observation.
func mutationOf[Req, Resp proto.Message](cl *call, req Req, o op[Req, Resp]) (mutation, bool) {
	if o.mutation == nil {
		return mutation{}, false
	}
	return o.mutation(cl, req)
}

// cloneOrNew copies m, or returns a new empty message of its type when m is nil.
func cloneOrNew[M proto.Message](m M) M {
	r := m.ProtoReflect()
	if r.IsValid() {
		return proto.CloneOf(m)
	}
	return r.Type().New().Interface().(M)
}

// requestPaths names the bad fields of an INVALID_ARGUMENT the agent answered as the broker names its own:
// with the `request.` prefix of the wrapped request (the agent checks what needs the live desktop, such as a
// point outside the screen), so a caller sees one path convention whichever side refused.
func requestPaths(err error) error {
	var br *errdefs.BadRequest
	if !errors.As(err, &br) {
		return err
	}
	out := &errdefs.BadRequest{Violations: make([]errdefs.Violation, len(br.Violations))}
	for i, v := range br.Violations {
		if !strings.HasPrefix(v.Field, "request.") {
			v.Field = "request." + v.Field
		}
		out.Violations[i] = v
	}
	if md := errgrpc.Metadata(err); md != nil {
		return errgrpc.WithMetadata(out, md)
	}
	return out
}
