package server

import (
	"context"
	"fmt"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/keysym"
	"glovebox.dev/shared/validate"
)

// defaultPasteWait is how long a paste waits for the application to ask for the text when the request
// says 0: GTK and Qt ask within a few milliseconds of the key press; a busy application may take longer.
const defaultPasteWait = 2 * time.Second

// pasteCombo is the key a paste presses.
var pasteCombo = mustCombo("ctrl+v")

func mustCombo(s string) keysym.Combo {
	c, err := keysym.ParseCombo(s)
	if err != nil {
		panic(err)
	}
	return c
}

// ClipboardPaster is implemented by a clipboard backend that can paste: save, own with text, press, wait,
// restore.
type ClipboardPaster interface {
	Paste(ctx context.Context, text string, press func(context.Context) error, wait time.Duration) (*agentv1.PasteTextResponse, error)
}

// PasteText pastes text into a window through the clipboard and ctrl+v, in the input queue, and restores
// the clipboard unless it changed meanwhile. The text is never logged.
func (c *clipboardService) PasteText(ctx context.Context, req *agentv1.PasteTextRequest) (*agentv1.PasteTextResponse, error) {
	if err := validate.PasteText(req); err != nil {
		return nil, err
	}
	cb, err := c.backend()
	if err != nil {
		return nil, err
	}
	p, ok := unwrapClipboard(cb).(ClipboardPaster)
	b := c.s.b()
	switch {
	case !ok:
		return nil, fmt.Errorf("paste: this clipboard backend cannot paste: %w", errdefs.ErrCapabilityUnavailable)
	case b.Input == nil:
		return nil, fmt.Errorf("paste: no input backend: %w", errdefs.ErrCapabilityUnavailable)
	case b.Windows == nil:
		return nil, fmt.Errorf("paste: no window backend: %w", errdefs.ErrCapabilityUnavailable)
	}
	wait := defaultPasteWait
	if req.GetWaitMs() > 0 {
		wait = time.Duration(req.GetWaitMs()) * time.Millisecond
	}
	if err := c.s.inputQueue.lock(ctx); err != nil {
		return nil, fmt.Errorf("queued: %w: %w", errdefs.ErrInterrupted, err)
	}
	defer c.s.inputQueue.unlock()
	var focused uint32
	press := func(ctx context.Context) error {
		if id := req.GetWindowId(); id != 0 {
			if err := b.Windows.Activate(ctx, id); err != nil {
				return fmt.Errorf("window_id %d: %w", id, err)
			}
		}
		var err error
		if focused, err = b.Windows.Focused(ctx); err != nil {
			return err
		}
		return b.Input.Key(ctx, pasteCombo, 1)
	}
	resp, err := p.Paste(ctx, req.GetText(), press, wait)
	if err != nil {
		return nil, fmt.Errorf("paste: %w", err)
	}
	resp.WindowId = focused
	c.s.log.Debug("pasted", "owner", req.GetOwner(), "length", len(req.GetText()), "requested", resp.GetRequested(),
		"restore", resp.GetRestore().String())
	return resp, nil
}
