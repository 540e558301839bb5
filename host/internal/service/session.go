package service

import (
	"context"

	"glovebox.dev/host/internal/broker"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// Sessions is the SessionService facade.
type Sessions struct {
	brokerv1.UnimplementedSessionServiceServer
	b *broker.Broker
}

// CreateSession opens a session.
func (s *Sessions) CreateSession(ctx context.Context, r *brokerv1.CreateSessionRequest) (*brokerv1.CreateSessionResponse, error) {
	se, err := s.b.CreateSession(ctx, r)
	if err != nil {
		return nil, err
	}
	return &brokerv1.CreateSessionResponse{Session: se}, nil
}

// GetSession returns a session.
func (s *Sessions) GetSession(ctx context.Context, r *brokerv1.GetSessionRequest) (*brokerv1.GetSessionResponse, error) {
	se, err := s.b.GetSession(ctx, r.GetSessionId())
	if err != nil {
		return nil, err
	}
	return &brokerv1.GetSessionResponse{Session: se}, nil
}

// ListSessions pages through sessions.
func (s *Sessions) ListSessions(ctx context.Context, r *brokerv1.ListSessionsRequest) (*brokerv1.ListSessionsResponse, error) {
	list, next, err := s.b.ListSessions(ctx, r)
	if err != nil {
		return nil, err
	}
	return &brokerv1.ListSessionsResponse{Sessions: list, NextPageToken: next}, nil
}

// DeleteSession closes a session.
func (s *Sessions) DeleteSession(ctx context.Context, r *brokerv1.DeleteSessionRequest) (*brokerv1.DeleteSessionResponse, error) {
	se, err := s.b.DeleteSession(ctx, r.GetSessionId())
	if err != nil {
		return nil, err
	}
	return &brokerv1.DeleteSessionResponse{Session: se}, nil
}

// SetSessionDefaults sets a session's default target.
func (s *Sessions) SetSessionDefaults(ctx context.Context, r *brokerv1.SetSessionDefaultsRequest) (*brokerv1.SetSessionDefaultsResponse, error) {
	se, err := s.b.SetSessionDefaults(ctx, r)
	if err != nil {
		return nil, err
	}
	return &brokerv1.SetSessionDefaultsResponse{Session: se}, nil
}
