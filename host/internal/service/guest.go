package service

import (
	"context"

	"glovebox.dev/host/internal/broker"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// Guests is the GuestService facade.
type Guests struct {
	brokerv1.UnimplementedGuestServiceServer
	b *broker.Broker
}

// RegisterGuest adds a guest.
func (s *Guests) RegisterGuest(ctx context.Context, r *brokerv1.RegisterGuestRequest) (*brokerv1.RegisterGuestResponse, error) {
	g, err := s.b.RegisterGuest(ctx, r)
	if err != nil {
		return nil, err
	}
	return &brokerv1.RegisterGuestResponse{Guest: g}, nil
}

// UnregisterGuest removes a guest, closing its sessions.
func (s *Guests) UnregisterGuest(ctx context.Context, r *brokerv1.UnregisterGuestRequest) (*brokerv1.UnregisterGuestResponse, error) {
	if err := s.b.UnregisterGuest(ctx, r.GetName()); err != nil {
		return nil, err
	}
	return &brokerv1.UnregisterGuestResponse{}, nil
}

// GetGuest returns one guest.
func (s *Guests) GetGuest(ctx context.Context, r *brokerv1.GetGuestRequest) (*brokerv1.GetGuestResponse, error) {
	g, err := s.b.GetGuest(ctx, r.GetName())
	if err != nil {
		return nil, err
	}
	return &brokerv1.GetGuestResponse{Guest: g}, nil
}

// ListGuests lists the guests the caller may use.
func (s *Guests) ListGuests(ctx context.Context, r *brokerv1.ListGuestsRequest) (*brokerv1.ListGuestsResponse, error) {
	gs, err := s.b.ListGuests(ctx)
	if err != nil {
		return nil, err
	}
	return &brokerv1.ListGuestsResponse{Guests: gs}, nil
}
