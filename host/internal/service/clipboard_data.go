package service

import (
	"context"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// ListClipboardTargets lists the clipboard owner's targets.
func (s *Computer) ListClipboardTargets(ctx context.Context, r *brokerv1.ListClipboardTargetsRequest) (*brokerv1.ListClipboardTargetsResponse, error) {
	return s.b.ListClipboardTargets(ctx, r)
}

// ReadClipboardData reads the clipboard as a MIME target.
func (s *Computer) ReadClipboardData(ctx context.Context, r *brokerv1.ReadClipboardDataRequest) (*brokerv1.ReadClipboardDataResponse, error) {
	return s.b.ReadClipboardData(ctx, r)
}

// WriteClipboardData writes an image or file list to the clipboard.
func (s *Computer) WriteClipboardData(ctx context.Context, r *brokerv1.WriteClipboardDataRequest) (*brokerv1.WriteClipboardDataResponse, error) {
	return s.b.WriteClipboardData(ctx, r)
}

// PasteText pastes text into a window.
func (s *Computer) PasteText(ctx context.Context, r *brokerv1.PasteTextRequest) (*brokerv1.PasteTextResponse, error) {
	return s.b.PasteText(ctx, r)
}
