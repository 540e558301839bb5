package server

import (
	"context"
	"fmt"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// ClipboardData is what a clipboard backend offers beyond text: targets by MIME type and the owner's
// TARGETS list. Requests reaching it have been validated.
type ClipboardData interface {
	Targets(ctx context.Context, sel agentv1.Selection) (names []string, owned bool, err error)
	ReadData(ctx context.Context, sel agentv1.Selection, mime string) (data []byte, owned, offered bool, err error)
	WriteData(ctx context.Context, sel agentv1.Selection, mime string, data []byte) error
}

// unwrapClipboard returns the implementation behind AdaptClipboard, to ask it for optional interfaces.
func unwrapClipboard(c Clipboard) any {
	if a, ok := c.(adaptedClipboard); ok {
		return a.ClipboardIO
	}
	return c
}

func (c *clipboardService) dataBackend() (ClipboardData, error) {
	b, err := c.backend()
	if err != nil {
		return nil, err
	}
	d, ok := unwrapClipboard(b).(ClipboardData)
	if !ok {
		return nil, fmt.Errorf("clipboard: no MIME targets in this backend: %w", errdefs.ErrCapabilityUnavailable)
	}
	return d, nil
}

// ListClipboardTargets returns the targets the selection's owner offers.
func (c *clipboardService) ListClipboardTargets(ctx context.Context, req *agentv1.ListClipboardTargetsRequest) (*agentv1.ListClipboardTargetsResponse, error) {
	if err := validate.ListClipboardTargets(req); err != nil {
		return nil, err
	}
	d, err := c.dataBackend()
	if err != nil {
		return nil, err
	}
	names, owned, err := d.Targets(ctx, req.GetSelection())
	if err != nil {
		return nil, fmt.Errorf("targets of %s: %w", req.GetSelection(), err)
	}
	return &agentv1.ListClipboardTargetsResponse{Targets: names, Owned: owned}, nil
}

// ReadClipboardData converts the selection to one MIME target.
func (c *clipboardService) ReadClipboardData(ctx context.Context, req *agentv1.ReadClipboardDataRequest) (*agentv1.ReadClipboardDataResponse, error) {
	if err := validate.ReadClipboardData(req); err != nil {
		return nil, err
	}
	d, err := c.dataBackend()
	if err != nil {
		return nil, err
	}
	data, owned, offered, err := d.ReadData(ctx, req.GetSelection(), req.GetMimeType())
	if err != nil {
		return nil, fmt.Errorf("read %s as %s: %w", req.GetSelection(), req.GetMimeType(), err)
	}
	resp := &agentv1.ReadClipboardDataResponse{Data: data, MimeType: req.GetMimeType(), Owned: owned, Offered: offered,
		Length: int64(len(data))}
	resp.Dragging, resp.Stale = c.xdndState(req.GetSelection(), req.GetMimeType(), data)
	return resp, nil
}

// WriteClipboardData makes the agent the owner of a selection with one MIME target. The bytes are never
// logged: only their length, type and the owner asking.
func (c *clipboardService) WriteClipboardData(ctx context.Context, req *agentv1.WriteClipboardDataRequest) (*agentv1.WriteClipboardDataResponse, error) {
	if err := validate.WriteClipboardData(req); err != nil {
		return nil, err
	}
	d, err := c.dataBackend()
	if err != nil {
		return nil, err
	}
	n := len(req.GetData())
	if err := d.WriteData(ctx, req.GetSelection(), req.GetMimeType(), req.GetData()); err != nil {
		return nil, fmt.Errorf("write %s as %s: %w", req.GetSelection(), req.GetMimeType(), err)
	}
	c.s.log.Debug("clipboard written", "owner", req.GetOwner(), "selection", req.GetSelection().String(),
		"mime_type", req.GetMimeType(), "length", n)
	return &agentv1.WriteClipboardDataResponse{Length: int64(n)}, nil
}
