package service

import (
	"context"

	"glovebox.dev/host/internal/broker"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// Recordings is the RecordingService facade.
type Recordings struct {
	brokerv1.UnimplementedRecordingServiceServer
	b *broker.Broker
}

// ReplayRecording runs a recording's steps again.
func (s *Recordings) ReplayRecording(ctx context.Context, r *brokerv1.ReplayRecordingRequest) (*brokerv1.ReplayRecordingResponse, error) {
	return s.b.ReplayRecording(ctx, r)
}
