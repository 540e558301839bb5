package service

import (
	"context"

	"google.golang.org/grpc"

	"glovebox.dev/host/internal/broker"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// Computer is the ComputerService facade.
type Computer struct {
	brokerv1.UnimplementedComputerServiceServer
	b *broker.Broker
}

// CaptureScreenshot takes a screenshot.
func (s *Computer) CaptureScreenshot(ctx context.Context, r *brokerv1.CaptureScreenshotRequest) (*brokerv1.CaptureScreenshotResponse, error) {
	return s.b.CaptureScreenshot(ctx, r)
}

// GetCursorPosition returns the pointer position.
func (s *Computer) GetCursorPosition(ctx context.Context, r *brokerv1.GetCursorPositionRequest) (*brokerv1.GetCursorPositionResponse, error) {
	return s.b.GetCursorPosition(ctx, r)
}

// ListWindows lists windows.
func (s *Computer) ListWindows(ctx context.Context, r *brokerv1.ListWindowsRequest) (*brokerv1.ListWindowsResponse, error) {
	return s.b.ListWindows(ctx, r)
}

// WatchScreen streams frames.
func (s *Computer) WatchScreen(r *brokerv1.WatchScreenRequest, st grpc.ServerStreamingServer[brokerv1.WatchScreenResponse]) error {
	return s.b.WatchScreen(st.Context(), r, func(f *agentv1.WatchScreenResponse) error {
		return st.Send(&brokerv1.WatchScreenResponse{Response: f})
	})
}

// Act performs one action.
func (s *Computer) Act(ctx context.Context, r *brokerv1.ActRequest) (*brokerv1.ActResponse, error) {
	return s.b.Act(ctx, r)
}

// ActBatch performs a batch of actions.
func (s *Computer) ActBatch(ctx context.Context, r *brokerv1.ActBatchRequest) (*brokerv1.ActBatchResponse, error) {
	return s.b.ActBatch(ctx, r)
}

// ReadClipboard reads the clipboard.
func (s *Computer) ReadClipboard(ctx context.Context, r *brokerv1.ReadClipboardRequest) (*brokerv1.ReadClipboardResponse, error) {
	return s.b.ReadClipboard(ctx, r)
}

// WriteClipboard writes the clipboard.
func (s *Computer) WriteClipboard(ctx context.Context, r *brokerv1.WriteClipboardRequest) (*brokerv1.WriteClipboardResponse, error) {
	return s.b.WriteClipboard(ctx, r)
}
