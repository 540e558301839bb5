package service

import (
	"context"

	"glovebox.dev/host/internal/broker"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// Control is the ControlService facade.
type Control struct {
	brokerv1.UnimplementedControlServiceServer
	b *broker.Broker
}

// AcquireControl takes control of a guest.
func (s *Control) AcquireControl(ctx context.Context, r *brokerv1.AcquireControlRequest) (*brokerv1.AcquireControlResponse, error) {
	l, err := s.b.AcquireControl(ctx, r)
	if err != nil {
		return nil, err
	}
	return &brokerv1.AcquireControlResponse{Lease: l}, nil
}

// ReleaseControl gives control back.
func (s *Control) ReleaseControl(ctx context.Context, r *brokerv1.ReleaseControlRequest) (*brokerv1.ReleaseControlResponse, error) {
	gen, err := s.b.ReleaseControl(ctx, r)
	if err != nil {
		return nil, err
	}
	return &brokerv1.ReleaseControlResponse{Generation: gen}, nil
}

// GetControl says who holds a guest.
func (s *Control) GetControl(ctx context.Context, r *brokerv1.GetControlRequest) (*brokerv1.GetControlResponse, error) {
	return s.b.GetControl(ctx, r.GetGuest())
}
