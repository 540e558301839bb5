package server

import (
	"context"
	"fmt"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// Clipboard is the clipboard backend (X selections). Requests reaching it have been validated; an
// unspecified selection means CLIPBOARD.
type Clipboard interface {
	capable
	ClipboardIO
}

// ClipboardIO moves text in and out of the selections: the part of a clipboard backend that does not
// depend on this package, so the backend (guest/internal/clipboard) can be tested through these services
// without an import cycle.
type ClipboardIO interface {
	// Read returns the selection's text; no owner is an empty answer with Owned false, not an error.
	Read(ctx context.Context, sel agentv1.Selection) (*agentv1.ReadClipboardResponse, error)
	// Write makes the agent the selection's owner with text and returns once the X server confirms it.
	Write(ctx context.Context, sel agentv1.Selection, text string) error
	// Available reports whether the backend can work, and why not.
	Available() (ok bool, reason string)
}

// AdaptClipboard turns a ClipboardIO (such as *clipboard.Clipboard) into a Clipboard whose capability is
// available, or unavailable with the implementation's reason.
func AdaptClipboard(x ClipboardIO) Clipboard { return adaptedClipboard{x} }

type adaptedClipboard struct{ ClipboardIO }

// Capability reports the backend's availability as GetInfo shows it.
func (b adaptedClipboard) Capability() Capability {
	if ok, reason := b.Available(); !ok {
		return Unavailable(reason)
	}
	return Available
}

// clipboardService serves ClipboardService.
type clipboardService struct {
	agentv1.UnimplementedClipboardServiceServer
	s *Services
}

func newClipboardService(s *Services) *clipboardService { return &clipboardService{s: s} }

// ReadClipboard returns the text of a selection; empty is a normal answer.
func (c *clipboardService) ReadClipboard(ctx context.Context, req *agentv1.ReadClipboardRequest) (*agentv1.ReadClipboardResponse, error) {
	if err := validate.ReadClipboard(req); err != nil {
		return nil, err
	}
	b, err := c.backend()
	if err != nil {
		return nil, err
	}
	resp, err := b.Read(ctx, req.GetSelection())
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", req.GetSelection(), err)
	}
	resp.Dragging, resp.Stale = c.xdndState(req.GetSelection(), "text", []byte(resp.GetText()))
	return resp, nil
}

// WriteClipboard makes the agent the owner of a selection with the given text. The text is never logged:
// only its length and the owner asking.
func (c *clipboardService) WriteClipboard(ctx context.Context, req *agentv1.WriteClipboardRequest) (*agentv1.WriteClipboardResponse, error) {
	rep := c.s.beginReport()
	if err := validate.WriteClipboard(req); err != nil {
		return nil, err
	}
	b, err := c.backend()
	if err != nil {
		return nil, err
	}
	rep.checked()
	n := len(req.GetText())
	if err := b.Write(ctx, req.GetSelection(), req.GetText()); err != nil {
		c.s.log.Info("clipboard write failed", "owner", req.GetOwner(), "selection", req.GetSelection().String(),
			"length", n, "err", err.Error())
		return nil, fmt.Errorf("write %s: %w", req.GetSelection(), err)
	}
	c.s.log.Debug("clipboard written", "owner", req.GetOwner(), "selection", req.GetSelection().String(), "length", n)
	// Write returns once the X server names the agent as the owner: a read-back.
	rep.done(nil)
	return &agentv1.WriteClipboardResponse{Length: int64(n), Effect: agentv1.Effect_EFFECT_VERIFIED,
		Target: rep.target, Timing: rep.timing}, nil
}

func (c *clipboardService) backend() (Clipboard, error) {
	if c.s.b().Clipboard == nil {
		return nil, fmt.Errorf("clipboard: no X display connection: %w", errdefs.ErrCapabilityUnavailable)
	}
	return c.s.b().Clipboard, nil
}
