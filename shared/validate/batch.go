package validate

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// MaxBatchActions bounds ActBatchRequest.actions (act.proto states the same number).
const MaxBatchActions = 64

// batchOwner stands in for a batch action's owner while it is checked: the batch's owner is checked once, at
// the top, and an action's own owner is checked to be empty or the batch's.
const batchOwner = "batch"

// ActBatch checks every action of a batch as ActRequest does (fields named `actions[i].action...`), that no
// action brings its own owner or request_id, and that the batch's pauses stay within MaxDelayTotalMs.
func ActBatch(r *agentv1.ActBatchRequest) error {
	var v errdefs.Violations
	id(&v, "owner", r.GetOwner(), true)
	id(&v, "request_id", r.GetRequestId(), false)
	if n := len(r.GetActions()); n < 1 || n > MaxBatchActions {
		v.Addf("actions", "must have 1..%d actions, got %d", MaxBatchActions, n)
	}
	var pauses int64
	for i, a := range r.GetActions() {
		if i >= MaxBatchActions {
			break
		}
		p := fmt.Sprintf("actions[%d]", i)
		if a.GetOwner() != "" && a.GetOwner() != r.GetOwner() {
			v.Addf(p+".owner", "must be empty or the batch's owner")
		}
		if a.GetRequestId() != "" {
			v.Addf(p+".request_id", "must be empty (the batch has one request_id)")
		}
		c := &agentv1.ActRequest{}
		if a != nil {
			c = proto.CloneOf(a)
		}
		c.Owner, c.RequestId = batchOwner, ""
		Prefix(&v, p+".", ActRequest(c))
		pauses += Pauses(c)
	}
	if pauses > MaxDelayTotalMs {
		v.Addf("actions", "the actions' pauses (waits, holds, typing and drag delays) add up to %d ms, at most %d ms per batch", pauses, MaxDelayTotalMs)
	}
	return v.Err()
}

// Prefix adds the violations of err (a *errdefs.BadRequest, or nil) to v with prefix before each field.
func Prefix(v *errdefs.Violations, prefix string, err error) {
	var br *errdefs.BadRequest
	if errors.As(err, &br) {
		for _, fv := range br.Violations {
			v.Addf(prefix+fv.Field, "%s", fv.Description)
		}
	}
}

// Pauses is how long r's action pauses on purpose, in milliseconds: a wait or hold_key's duration, type and
// page_type's delay per character, drag's delay per point. wait_for is not counted: it ends when its condition
// holds.
func Pauses(r *agentv1.ActRequest) int64 {
	switch a := r.GetAction().(type) {
	case *agentv1.ActRequest_Wait:
		return int64(a.Wait.GetDurationMs())
	case *agentv1.ActRequest_HoldKey:
		return int64(a.HoldKey.GetDurationMs())
	case *agentv1.ActRequest_Type:
		return int64(utf8.RuneCountInString(a.Type.GetText())) * int64(a.Type.GetDelayMs())
	case *agentv1.ActRequest_PageType:
		return int64(utf8.RuneCountInString(a.PageType.GetText())) * int64(a.PageType.GetDelayMs())
	case *agentv1.ActRequest_Drag:
		return int64(len(a.Drag.GetPath())) * int64(a.Drag.GetStepDelayMs())
	}
	return 0
}
