package service

import (
	"context"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// ListBrowsers lists the guest's browsers.
func (s *Computer) ListBrowsers(ctx context.Context, r *brokerv1.ListBrowsersRequest) (*brokerv1.ListBrowsersResponse, error) {
	return s.b.ListBrowsers(ctx, r)
}

// GetBrowser finds a browser or a tab by URL.
func (s *Computer) GetBrowser(ctx context.Context, r *brokerv1.GetBrowserRequest) (*brokerv1.GetBrowserResponse, error) {
	return s.b.GetBrowser(ctx, r)
}

// ListTabs lists a browser's tabs.
func (s *Computer) ListTabs(ctx context.Context, r *brokerv1.ListTabsRequest) (*brokerv1.ListTabsResponse, error) {
	return s.b.ListTabs(ctx, r)
}

// SnapshotTab snapshots a tab.
func (s *Computer) SnapshotTab(ctx context.Context, r *brokerv1.SnapshotTabRequest) (*brokerv1.SnapshotTabResponse, error) {
	return s.b.SnapshotTab(ctx, r)
}

// Extract returns a tab's content.
func (s *Computer) Extract(ctx context.Context, r *brokerv1.ExtractRequest) (*brokerv1.ExtractResponse, error) {
	return s.b.Extract(ctx, r)
}

// CaptureTab captures a tab.
func (s *Computer) CaptureTab(ctx context.Context, r *brokerv1.CaptureTabRequest) (*brokerv1.CaptureTabResponse, error) {
	return s.b.CaptureTab(ctx, r)
}
