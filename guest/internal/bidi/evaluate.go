package bidi

import (
	"context"
	"encoding/json"
	"fmt"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// Evaluate evaluates a JavaScript expression in the tab's page realm (not our sandbox) with a bare
// script.evaluate and answers its value as JSON. It is for tests that read a page independently of the page
// actions (Firefox takes one BiDi session, so a test cannot open its own); nothing in the agent's API calls it.
func (b *Backend) Evaluate(ctx context.Context, tr *agentv1.TabRef, expr string) (json.RawMessage, error) {
	t, err := b.resolveTab(ctx, tr)
	if err != nil {
		return nil, err
	}
	quoted, err := json.Marshal(expr)
	if err != nil {
		return nil, err
	}
	var res evaluateResult
	err = t.f.conn.call(ctx, "script.evaluate", map[string]any{
		"expression":   "(() => { const v = (0, eval)(" + string(quoted) + "); return JSON.stringify(v === undefined ? null : v); })()",
		"target":       scriptTarget{Context: t.id},
		"awaitPromise": false,
	}, &res)
	if err != nil {
		return nil, err
	}
	if res.Type == "exception" || res.Result.Type != "string" {
		return nil, fmt.Errorf("evaluate: exception or no JSON value: %w", errdefs.ErrInternal)
	}
	var s string
	if err := json.Unmarshal(res.Result.Value, &s); err != nil {
		return nil, err
	}
	return json.RawMessage(s), nil
}
