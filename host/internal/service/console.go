package service

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// LinkMinter mints console links; package console's *Server implements it.
type LinkMinter interface {
	CreateViewerLink(ctx context.Context, r *brokerv1.CreateViewerLinkRequest) (*brokerv1.CreateViewerLinkResponse, error)
}

// Console is the ConsoleService facade; links is nil when the console is not configured.
type Console struct {
	brokerv1.UnimplementedConsoleServiceServer
	links LinkMinter
}

// CreateViewerLink mints a console link.
func (c *Console) CreateViewerLink(ctx context.Context, r *brokerv1.CreateViewerLinkRequest) (*brokerv1.CreateViewerLinkResponse, error) {
	if c.links == nil {
		return nil, status.Error(codes.FailedPrecondition, "the console is not configured (console.listen)")
	}
	return c.links.CreateViewerLink(ctx, r)
}
