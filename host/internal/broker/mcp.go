package broker

import (
	"context"

	"google.golang.org/protobuf/types/known/structpb"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// RPCCreateMcpToken is McpService.CreateMcpToken's full method name, as audited.
const RPCCreateMcpToken = "/glovebox.broker.v1.McpService/CreateMcpToken"

// AuditMcpToken checks that the caller may use the request's guest and records, durably, that the caller got
// an MCP token for it: the request (its label redacted like all text) and the token's id, never the token.
// The caller mints the token only after this succeeds, so no token exists without its record.
func (b *Broker) AuditMcpToken(ctx context.Context, req *brokerv1.CreateMcpTokenRequest, tokenID string) error {
	c, err := caller(ctx)
	if err != nil {
		return err
	}
	c.Guest = req.GetGuest()
	g, err := b.lookupGuest(c, req.GetGuest())
	if err != nil {
		return err
	}
	code, reason := outcome(nil)
	args := b.args(req)
	args.Fields["token_id"] = structpb.NewStringValue(tokenID)
	_, err = b.appendAudit(ctx, &brokerv1.AuditRecord{
		Guest: g.name, Phase: brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE, Rpc: RPCCreateMcpToken, Principal: c.Principal.Name,
		Args: args, Code: code, Reason: reason,
	})
	return err
}
