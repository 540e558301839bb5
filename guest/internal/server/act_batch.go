package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/validate"
)

// ActBatch performs a batch of actions in order; see the ActService documentation in act.proto. Every action
// is checked before the first runs; the batch takes the mutation queue once and keeps it to the end, so no other
// request's input lands between its actions.
func (a *actService) ActBatch(ctx context.Context, r *agentv1.ActBatchRequest) (*agentv1.ActBatchResponse, error) {
	start := time.Now()
	if err := validate.ActBatch(r); err != nil {
		return nil, err
	}
	// One backend set for the whole batch, read once, as for Act.
	be := a.s.b()
	plans := make([]*plan, len(r.GetActions()))
	var v errdefs.Violations
	for i, item := range r.GetActions() {
		item.Owner = r.GetOwner()
		p, err := a.check(item, be)
		if err != nil {
			if v.Len() == 0 && !isBadRequest(err) {
				return nil, fmt.Errorf("actions[%d]: %w", i, err)
			}
			validate.Prefix(&v, fmt.Sprintf("actions[%d].", i), err)
			continue
		}
		plans[i] = p
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	validated := time.Now()

	var key string
	if id := r.GetRequestId(); id != "" {
		key = r.GetOwner() + "\x00" + id
		resp, err, done := a.batches.begin(key, contentHash(r))
		if done {
			return resp, err
		}
	}
	resp, dispatched, err := a.batch(ctx, r, plans, start, validated)
	if key != "" {
		a.batches.finish(key, resp, err, dispatched)
	}
	return resp, err
}

// batch runs the checked actions in the queue, stopping at the first failure. dispatched says whether input
// may have been sent.
func (a *actService) batch(ctx context.Context, r *agentv1.ActBatchRequest, plans []*plan, start, validated time.Time) (*agentv1.ActBatchResponse, bool, error) {
	if err := a.s.inputQueue.lock(ctx); err != nil {
		return nil, false, fmt.Errorf("queued: %w: %w", errdefs.ErrInterrupted, err)
	}
	defer a.s.inputQueue.unlock()
	out := &agentv1.ActBatchResponse{}
	dispatched := false
	for i, item := range r.GetActions() {
		// The first action's timing carries the batch's validation and queue wait.
		resp, sent, err := a.run(ctx, item, plans[i], start, validated)
		dispatched = dispatched || sent
		if err != nil {
			reason := errdefs.Reason(err)
			if reason == agentv1.ErrorReason_ERROR_REASON_UNSPECIFIED {
				reason = agentv1.ErrorReason_ERROR_REASON_INTERNAL // as errgrpc answers an unclassified error
			}
			out.Failure = &agentv1.BatchFailure{Index: int32(i), Reason: reason, Message: err.Error(), Metadata: errgrpc.Metadata(err)}
			break
		}
		out.Results = append(out.Results, resp)
		start = time.Now()
		validated = start
	}
	return out, dispatched, nil
}

// isBadRequest reports whether err is a request's invalid fields (as opposed to a missing backend or a
// generation that changed).
func isBadRequest(err error) bool {
	var br *errdefs.BadRequest
	return errors.As(err, &br)
}
