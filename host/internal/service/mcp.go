package service

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/timestamppb"

	"glovebox.dev/host/internal/auth"
	"glovebox.dev/host/internal/broker"
	"glovebox.dev/host/internal/mcp"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
)

// MCP is the McpService facade: it mints the MCP endpoint's bearer tokens.
type MCP struct {
	brokerv1.UnimplementedMcpServiceServer
	b      *broker.Broker
	tokens *mcp.Tokens // nil: no mcp.listen configured
	url    string
}

// RegisterMCP registers McpService on s; tokens nil (no endpoint configured) answers CAPABILITY_UNAVAILABLE.
func RegisterMCP(s grpc.ServiceRegistrar, b *broker.Broker, tokens *mcp.Tokens, url string) {
	brokerv1.RegisterMcpServiceServer(s, &MCP{b: b, tokens: tokens, url: url})
}

// maxLabelBytes bounds a token's session label (the SessionService bound).
const maxLabelBytes = 256

// CreateMcpToken mints a token for the caller on one guest the caller may use.
func (s *MCP) CreateMcpToken(ctx context.Context, r *brokerv1.CreateMcpTokenRequest) (*brokerv1.CreateMcpTokenResponse, error) {
	var v errdefs.Violations
	if r.GetGuest() == "" {
		v.Addf("guest", "required")
	}
	ttl := mcp.DefaultTokenTTL
	if n := r.GetTtlSeconds(); n != 0 {
		ttl = time.Duration(n) * time.Second
		if ttl < mcp.MinTokenTTL || ttl > mcp.MaxTokenTTL {
			v.Addf("ttl_seconds", "must be 0 or %d..%d, got %d", int(mcp.MinTokenTTL.Seconds()), int(mcp.MaxTokenTTL.Seconds()), n)
		}
	}
	if len(r.GetLabel()) > maxLabelBytes {
		v.Addf("label", "at most %d bytes, got %d", maxLabelBytes, len(r.GetLabel()))
	} else if !utf8.ValidString(r.GetLabel()) {
		v.Addf("label", "must be valid UTF-8")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if s.tokens == nil {
		return nil, fmt.Errorf("no mcp endpoint configured (mcp.listen): %w", errdefs.ErrCapabilityUnavailable)
	}
	tok, id := mcp.NewToken()
	if err := s.b.AuditMcpToken(ctx, r, id); err != nil { // also: may the caller use the guest?
		return nil, err
	}
	c := auth.CallerFrom(ctx)
	label := r.GetLabel()
	if label == "" {
		label = "mcp"
	}
	g := s.tokens.Grant(tok, c.Principal, r.GetGuest(), label, ttl)
	return &brokerv1.CreateMcpTokenResponse{Token: tok, Url: s.url, ExpiresAt: timestamppb.New(g.Expires)}, nil
}
