package service

import (
	"context"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// ListApps lists the applications on the guest's AT-SPI bus.
func (s *Computer) ListApps(ctx context.Context, r *brokerv1.ListAppsRequest) (*brokerv1.ListAppsResponse, error) {
	return s.b.ListApps(ctx, r)
}

// GetApp finds (or, with request.launch, starts) an application.
func (s *Computer) GetApp(ctx context.Context, r *brokerv1.GetAppRequest) (*brokerv1.GetAppResponse, error) {
	return s.b.GetApp(ctx, r)
}

// SnapshotApp snapshots an application's accessibility tree.
func (s *Computer) SnapshotApp(ctx context.Context, r *brokerv1.SnapshotAppRequest) (*brokerv1.SnapshotAppResponse, error) {
	return s.b.SnapshotApp(ctx, r)
}

// SnapshotWindow snapshots one window of an application.
func (s *Computer) SnapshotWindow(ctx context.Context, r *brokerv1.SnapshotWindowRequest) (*brokerv1.SnapshotWindowResponse, error) {
	return s.b.SnapshotWindow(ctx, r)
}

// Observe answers a one-call observation: bounded snapshot, screenshot, pointer and focused element.
func (s *Computer) Observe(ctx context.Context, r *brokerv1.ObserveRequest) (*brokerv1.ObserveResponse, error) {
	return s.b.Observe(ctx, r)
}
