package broker

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
)

// MaxControlReasonBytes bounds AcquireControlRequest.reason (the contract).
const MaxControlReasonBytes = 256

// Control RPC names for the audit log.
const (
	rpcAcquireControl = "/glovebox.broker.v1.ControlService/AcquireControl"
	rpcReleaseControl = "/glovebox.broker.v1.ControlService/ReleaseControl"
)

// AcquireControl gives the caller control of a guest: mutations from sessions are refused until it is
// released. Re-acquiring one's own lease updates the reason.
func (b *Broker) AcquireControl(ctx context.Context, r *brokerv1.AcquireControlRequest) (*brokerv1.ControlLease, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	c.Guest = r.GetGuest()
	if n := len(r.GetReason()); n > MaxControlReasonBytes {
		return nil, &errdefs.BadRequest{Violations: []errdefs.Violation{{Field: "reason", Description: fmt.Sprintf("must be at most %d bytes, got %d", MaxControlReasonBytes, n)}}}
	}
	g, err := b.lookupGuest(c, r.GetGuest())
	if err != nil {
		return nil, err
	}
	if !c.Principal.Control && !c.Principal.Admin {
		err := fmt.Errorf("principal %s may not take control: %w", c.Principal.Name, errdefs.ErrPolicyDenied)
		b.auditControl(ctx, g, rpcAcquireControl, c.Principal.Name, r, err)
		return nil, err
	}
	g.mu.Lock()
	if g.lease != nil && g.lease.GetHolder() != c.Principal.Name {
		holder := g.lease.GetHolder()
		g.mu.Unlock()
		err := fmt.Errorf("guest %s is controlled by %s: %w", g.name, holder, errdefs.ErrControlHeld)
		b.auditControl(ctx, g, rpcAcquireControl, c.Principal.Name, r, err)
		return nil, err
	}
	var help *brokerv1.HelpRequest
	if id := r.GetHelpId(); id != "" {
		if help, err = g.takeHelpLocked(id, c.Principal.Name); err != nil {
			g.mu.Unlock()
			b.auditControl(ctx, g, rpcAcquireControl, c.Principal.Name, r, err)
			return nil, err
		}
	}
	fresh := g.lease == nil
	now := timestamppb.New(b.now())
	if fresh {
		g.lease = &brokerv1.ControlLease{Guest: g.name, Holder: c.Principal.Name, AcquiredAt: now}
	}
	g.lease.Reason, g.lease.Generation, g.lease.LastInputAt = r.GetReason(), g.gen, now
	if help != nil {
		g.lease.HelpIds = append(g.lease.HelpIds, help.GetId())
	}
	lease := proto.CloneOf(g.lease)
	g.mu.Unlock()
	b.log.Info("control acquired", "guest", g.name, "holder", c.Principal.Name)
	b.auditControl(ctx, g, rpcAcquireControl, c.Principal.Name, r, nil)
	if fresh {
		b.emit(g, func() *brokerv1.SessionEvent {
			return &brokerv1.SessionEvent{Kind: &brokerv1.SessionEvent_ControlAcquired{ControlAcquired: &brokerv1.ControlAcquired{
				Holder: lease.GetHolder(), Reason: lease.GetReason(), Generation: lease.GetGeneration()}}}
		})
	}
	if help != nil {
		b.emitTo(help.GetSessionId(), &brokerv1.SessionEvent{Kind: &brokerv1.SessionEvent_HelpTaken{HelpTaken: &brokerv1.HelpTaken{
			HelpId: help.GetId(), By: c.Principal.Name}}})
	}
	return lease, nil
}

// ReleaseControl gives control back and bumps the guest's generation, so every target taken before is
// refused.
func (b *Broker) ReleaseControl(ctx context.Context, r *brokerv1.ReleaseControlRequest) (uint64, error) {
	c, err := caller(ctx)
	if err != nil {
		return 0, err
	}
	c.Guest = r.GetGuest()
	g, err := b.lookupGuest(c, r.GetGuest())
	if err != nil {
		return 0, err
	}
	var v errdefs.Violations
	checkText(&v, "note", r.GetNote(), MaxHelpNoteBytes, false)
	if err := v.Err(); err != nil {
		return 0, err
	}
	g.mu.Lock()
	cause := brokerv1.ControlEndCause_CONTROL_END_CAUSE_RELEASED
	switch {
	case g.lease == nil:
		g.mu.Unlock()
		return 0, fmt.Errorf("guest %s: control is not held: %w", g.name, errdefs.ErrControlNotHeld)
	case g.lease.GetHolder() != c.Principal.Name && !c.Principal.Admin:
		holder := g.lease.GetHolder()
		g.mu.Unlock()
		err := fmt.Errorf("control of %s is held by %s: %w", g.name, holder, errdefs.ErrPolicyDenied)
		b.auditControl(ctx, g, rpcReleaseControl, c.Principal.Name, r, err)
		return 0, err
	case g.lease.GetHolder() != c.Principal.Name:
		cause = brokerv1.ControlEndCause_CONTROL_END_CAUSE_FORCED
	}
	gen := b.endLeaseLocked(g, c.Principal.Name, cause, r.GetNote())
	b.log.Info("control released", "guest", g.name, "by", c.Principal.Name, "generation", gen, "cause", cause.String())
	b.auditControl(ctx, g, rpcReleaseControl, c.Principal.Name, r, nil, structpb.NewStringValue(cause.String()))
	return gen, nil
}

// endLeaseLocked ends g's lease (g.mu is held, and unlocked on return), bumps the generation, answers the help
// requests it was taken for and tells the guest's sessions. It returns the new generation.
func (b *Broker) endLeaseLocked(g *guest, by string, cause brokerv1.ControlEndCause, note string) uint64 {
	ids := g.lease.GetHelpIds()
	rec := g.humanRec
	g.lease, g.humanRec = nil, nil
	g.gen++
	gen := g.gen
	answered := g.answerHelpLocked(ids, note, timestamppb.New(b.now()))
	g.mu.Unlock()
	b.seal(context.Background(), g, rec)
	b.emit(g, func() *brokerv1.SessionEvent {
		return &brokerv1.SessionEvent{Kind: &brokerv1.SessionEvent_ControlReleased{ControlReleased: &brokerv1.ControlReleased{
			By: by, Generation: gen, Cause: cause}}}
	})
	for _, h := range answered {
		b.emitTo(h.GetSessionId(), &brokerv1.SessionEvent{Kind: &brokerv1.SessionEvent_HelpAnswered{HelpAnswered: &brokerv1.HelpAnswered{
			HelpId: h.GetId(), By: by, Note: note, Generation: gen}}})
	}
	return gen
}

// brokerPrincipal names the broker in the audit records of what it does on its own.
const brokerPrincipal = "glovebox-broker"

// expireLeases ends every lease whose holder sent no input for the control idle timeout.
func (b *Broker) expireLeases() {
	idle := time.Duration(b.cfg.Control.IdleTimeout)
	if idle <= 0 {
		return
	}
	now := b.now()
	for _, g := range b.sortedGuests() {
		g.mu.Lock()
		if g.lease == nil || now.Sub(g.lease.GetLastInputAt().AsTime()) < idle {
			g.mu.Unlock()
			continue
		}
		holder := g.lease.GetHolder()
		gen := b.endLeaseLocked(g, brokerPrincipal, brokerv1.ControlEndCause_CONTROL_END_CAUSE_IDLE_TIMEOUT, "")
		b.log.Info("control lease timed out", "guest", g.name, "holder", holder, "generation", gen)
		args := &structpb.Struct{Fields: map[string]*structpb.Value{
			"guest": structpb.NewStringValue(g.name), "holder": structpb.NewStringValue(holder),
			"cause":      structpb.NewStringValue(brokerv1.ControlEndCause_CONTROL_END_CAUSE_IDLE_TIMEOUT.String()),
			"generation": structpb.NewNumberValue(float64(gen)),
		}}
		b.appendAudit(context.Background(), &brokerv1.AuditRecord{
			Guest: g.name, Phase: brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE, Rpc: rpcReleaseControl, Principal: brokerPrincipal,
			Args: args, Code: "OK", Source: brokerv1.AuditSource_AUDIT_SOURCE_BROKER,
		})
	}
}

// touchLease records input from the lease holder now (the idle timeout counts from it).
func (g *guest) touchLease(holder string, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.lease != nil && g.lease.GetHolder() == holder {
		g.lease.LastInputAt = timestamppb.New(now)
	}
}

// GetControl says who holds a guest.
func (b *Broker) GetControl(ctx context.Context, name string) (*brokerv1.GetControlResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	c.Guest = name
	g, err := b.lookupGuest(c, name)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	out := &brokerv1.GetControlResponse{Held: g.lease != nil, Generation: g.gen}
	if g.lease != nil {
		out.Lease = proto.CloneOf(g.lease)
	}
	return out, nil
}

// auditControl records a control hand-over (or a refused attempt) in the guest's log.
func (b *Broker) auditControl(ctx context.Context, g *guest, rpc, principal string, req proto.Message, err error, cause ...*structpb.Value) {
	code, reason := outcome(err)
	gen, _ := g.generations()
	args := b.args(req)
	args.Fields["generation"] = structpb.NewNumberValue(float64(gen))
	if len(cause) > 0 {
		args.Fields["cause"] = cause[0]
	}
	b.appendAudit(ctx, &brokerv1.AuditRecord{
		Guest: g.name, Phase: brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE, Rpc: rpc, Principal: principal,
		Args: args, Code: code, Reason: reason,
	})
}
