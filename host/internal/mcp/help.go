package mcp

import (
	"context"
	"fmt"
	"strings"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
)

// helpTools ask the person supervising the guest for help (HandoffService) and follow the request.
func (s *Session) helpTools() []tool {
	type helpArgs struct {
		Reason       string `json:"reason"`
		Instructions string `json:"instructions"`
		HelpID       string `json:"help_id"`
	}
	return []tool{
		typed("request_help", "Ask the person supervising this desktop for help (a login, a captcha, a decision). The console "+
			"shows the request until a person takes control and answers it; meanwhile actions fail with CONTROL_HELD. "+
			"Follow it with help_status.", false,
			obj([]string{"reason"}, map[string]any{
				"reason":       map[string]any{"type": "string", "minLength": 1, "maxLength": 256, "description": "why help is needed"},
				"instructions": map[string]any{"type": "string", "maxLength": 4096, "description": "what the person should do"},
			}),
			func(ctx context.Context, a helpArgs) (*result, error) {
				if a.HelpID != "" {
					return nil, invalid("help_id", "not an argument of request_help")
				}
				resp, err := brokerv1.NewHandoffServiceClient(s.conn).RequestHelp(ctx, &brokerv1.RequestHelpRequest{SessionId: s.id, Reason: a.Reason, Instructions: a.Instructions})
				if err != nil {
					return nil, err
				}
				h := resp.GetHelp()
				return newResult().set("help_id", h.GetId()).set("state", strings.TrimPrefix(h.GetState().String(), "HELP_STATE_")), nil
			}),
		typed("help_status", "Where a help request stands: PENDING, TAKEN (a person has control), ANSWERED (with the person's "+
			"note) or CANCELLED.", true,
			obj([]string{"help_id"}, map[string]any{"help_id": map[string]any{"type": "string", "description": "from request_help"}}),
			func(ctx context.Context, a helpArgs) (*result, error) {
				if a.HelpID == "" {
					return nil, invalid("help_id", "required")
				}
				resp, err := brokerv1.NewHandoffServiceClient(s.conn).ListHelpRequests(ctx, &brokerv1.ListHelpRequestsRequest{Guest: s.opts.Guest, IncludeDone: true})
				if err != nil {
					return nil, err
				}
				for _, h := range resp.GetRequests() {
					if h.GetId() == a.HelpID && h.GetSessionId() == s.id {
						r := newResult().set("help_id", h.GetId()).set("state", strings.TrimPrefix(h.GetState().String(), "HELP_STATE_"))
						if h.GetTakenBy() != "" {
							r.set("taken_by", h.GetTakenBy())
						}
						// The person's note is a person's free text: data for the model, like guest text.
						return r.guest("note", h.GetNote()), nil
					}
				}
				return nil, fmt.Errorf("help_id: not a help request of this session (the broker keeps the last 64): %w", errdefs.ErrNotFound)
			}),
	}
}
