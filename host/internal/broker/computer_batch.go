package broker

import (
	"context"
	"fmt"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// RPCActBatch is the full method name of ActBatch, as recorded in the audit log.
const RPCActBatch = "/glovebox.broker.v1.ComputerService/ActBatch"

// ActBatch performs a batch of actions through the session (one mutation): every action is validated, gated
// and frozen before anything is sent, with one INTENT and one OUTCOME record for the whole batch.
func (b *Broker) ActBatch(ctx context.Context, r *brokerv1.ActBatchRequest) (*brokerv1.ActBatchResponse, error) {
	var opened *call
	var targets []*agentv1.FrozenTarget
	resp, seq, err := run(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.ActBatchRequest, *agentv1.ActBatchResponse]{
		rpc: RPCActBatch,
		prepare: func(cl *call, br *agentv1.ActBatchRequest) []errdefs.Violation {
			opened = cl
			bad := ownerViolation(br.GetOwner(), cl.s.id)
			br.Owner = cl.s.id
			for _, a := range br.GetActions() {
				pageTarget(cl.s, a)
			}
			return bad
		},
		check: validate.ActBatch,
		mutation: func(cl *call, br *agentv1.ActBatchRequest) (mutation, bool) {
			m := mutation{tokens: len(br.GetActions())}
			for i, a := range br.GetActions() {
				a.Owner = cl.s.id
				if err := b.gates.CheckAct(a); err != nil && m.gate == nil {
					m.gate = fmt.Errorf("request.actions[%d]: %w", i, err)
				}
				m.extra += actDuration(a)
			}
			m.freeze = func() error {
				targets = make([]*agentv1.FrozenTarget, len(br.GetActions()))
				for i, a := range br.GetActions() {
					cl.target = nil
					if err := b.freezeAct(cl, a); err != nil {
						return fmt.Errorf("request.actions[%d]: %w", i, err)
					}
					targets[i] = cl.target
				}
				// The batch's records name its first action's target; each action's is in args.
				cl.target = targets[0]
				return nil
			}
			return m, true
		},
		send: func(ctx context.Context, c guestClients, br *agentv1.ActBatchRequest) (*agentv1.ActBatchResponse, error) {
			return c.Act.ActBatch(ctx, br)
		},
		answered: func(cl *call, resp *agentv1.ActBatchResponse) {
			first := cl.target
			for i, res := range resp.GetResults() {
				if i < len(targets) {
					cl.target = targets[i]
					res.Target = reportTarget(cl, res.GetTarget())
				}
			}
			cl.target = first
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.ActBatchResponse{Response: resp, AuditSeq: seq, Timing: opened.timing}, nil
}
