package service

import (
	"context"

	"google.golang.org/grpc"

	"glovebox.dev/host/internal/broker"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// Handoff is the HandoffService facade.
type Handoff struct {
	brokerv1.UnimplementedHandoffServiceServer
	b *broker.Broker
}

// RequestHelp records a session's request for a person.
func (s *Handoff) RequestHelp(ctx context.Context, r *brokerv1.RequestHelpRequest) (*brokerv1.RequestHelpResponse, error) {
	h, err := s.b.RequestHelp(ctx, r)
	if err != nil {
		return nil, err
	}
	return &brokerv1.RequestHelpResponse{Help: h}, nil
}

// ListHelpRequests lists a guest's help requests.
func (s *Handoff) ListHelpRequests(ctx context.Context, r *brokerv1.ListHelpRequestsRequest) (*brokerv1.ListHelpRequestsResponse, error) {
	list, err := s.b.ListHelpRequests(ctx, r)
	if err != nil {
		return nil, err
	}
	return &brokerv1.ListHelpRequestsResponse{Requests: list}, nil
}

// WatchSessionEvents streams a session's events.
func (s *Handoff) WatchSessionEvents(r *brokerv1.WatchSessionEventsRequest, st grpc.ServerStreamingServer[brokerv1.WatchSessionEventsResponse]) error {
	return s.b.WatchSessionEvents(st.Context(), r, func(ev *brokerv1.SessionEvent) error {
		return st.Send(&brokerv1.WatchSessionEventsResponse{Event: ev})
	})
}
