package broker

import (
	"context"
	"fmt"

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
	if g.lease == nil {
		g.lease = &brokerv1.ControlLease{Guest: g.name, Holder: c.Principal.Name, AcquiredAt: timestamppb.New(b.now())}
	}
	g.lease.Reason, g.lease.Generation = r.GetReason(), g.gen
	lease := proto.CloneOf(g.lease)
	g.mu.Unlock()
	b.log.Info("control acquired", "guest", g.name, "holder", c.Principal.Name)
	b.auditControl(ctx, g, rpcAcquireControl, c.Principal.Name, r, nil)
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
	g.mu.Lock()
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
	}
	g.lease = nil
	g.gen++
	gen := g.gen
	g.mu.Unlock()
	b.log.Info("control released", "guest", g.name, "by", c.Principal.Name, "generation", gen)
	b.auditControl(ctx, g, rpcReleaseControl, c.Principal.Name, r, nil)
	return gen, nil
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
func (b *Broker) auditControl(ctx context.Context, g *guest, rpc, principal string, req proto.Message, err error) {
	code, reason := outcome(err)
	gen, _ := g.generations()
	args := b.args(req)
	args.Fields["generation"] = structpb.NewNumberValue(float64(gen))
	b.appendAudit(ctx, &brokerv1.AuditRecord{
		Guest: g.name, Phase: brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE, Rpc: rpc, Principal: principal,
		Args: args, Code: code, Reason: reason,
	})
}
