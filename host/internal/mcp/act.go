package mcp

import (
	"context"
	"errors"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// step is one agent request built from a tool's arguments, with the argument it came from so a refusal by
// the API's own validation names what the model sent.
type step struct {
	req *agentv1.ActRequest
	arg string
}

// check validates every step with the agent's rules before anything is sent, so a batch with one bad action
// does nothing. A violation is reported as "ARG (action.x.y): ...".
func check(steps []step) error {
	var v errdefs.Violations
	for _, st := range steps {
		err := validate.ActRequest(st.req)
		var bad *errdefs.BadRequest
		if errors.As(err, &bad) {
			for _, x := range bad.Violations {
				v.Addf(st.arg+" ("+x.Field+")", "%s", x.Description)
			}
		} else if err != nil {
			return err
		}
	}
	return v.Err()
}

// act sends one checked request through the broker session.
func (s *Session) act(ctx context.Context, req *agentv1.ActRequest) (*brokerv1.ActResponse, error) {
	return s.computer.Act(ctx, &brokerv1.ActRequest{SessionId: s.id, Request: req})
}

// screenshotOptions are the options of every model screenshot: scaled to the model display, or a region of
// the screen scaled to fit it (zoom).
func (s *Session) screenshotOptions(region *agentv1.Rect) *agentv1.ScreenshotOptions {
	o := &agentv1.ScreenshotOptions{Format: agentv1.ImageFormat_IMAGE_FORMAT_PNG, MaxEdge: s.scale.MaxEdge}
	if s.opts.JPEG {
		o.Format = agentv1.ImageFormat_IMAGE_FORMAT_JPEG
	}
	if region != nil {
		o.Region = region
		o.MaxEdge = int32(max(s.scale.Model.Width, s.scale.Model.Height))
	}
	return o
}

// screenshot captures the screen (or a region) for the model.
func (s *Session) screenshot(ctx context.Context, region *agentv1.Rect) (*result, error) {
	resp, err := s.computer.CaptureScreenshot(ctx, &brokerv1.CaptureScreenshotRequest{SessionId: s.id,
		Request: &agentv1.CaptureScreenshotRequest{Options: s.screenshotOptions(region)}})
	if err != nil {
		return nil, err
	}
	r := newResult()
	img := resp.GetResponse().GetImage()
	r.set("width", img.GetWidth()).set("height", img.GetHeight()).set("audit_seq", resp.GetAuditSeq())
	r.target(resp.GetTarget())
	r.image(img)
	return r, nil
}

// observeAfter is the observation to attach to a desktop action, or nil when actions answer text only.
func (s *Session) observeAfter() *agentv1.ObserveAfter {
	if s.opts.ObserveMS <= 0 {
		return nil
	}
	return &agentv1.ObserveAfter{Screenshot: s.screenshotOptions(nil), QuietMs: s.opts.ObserveMS}
}

// run checks steps and sends them in order, stopping at the first refusal. The result describes the last
// answer (and how many ran); the last step carries the observation when the session takes one.
func (s *Session) run(ctx context.Context, steps []step, observe bool) (*result, error) {
	for _, st := range steps {
		st.req.Owner = s.id // the broker's owner for the session's input; the agent's validation requires one
		st.req.WatchMs = s.opts.WatchMS
	}
	if err := check(steps); err != nil {
		return nil, err
	}
	if observe && len(steps) > 0 {
		steps[len(steps)-1].req.Observe = s.observeAfter()
	}
	r := newResult()
	for i, st := range steps {
		resp, err := s.act(ctx, st.req)
		if err != nil {
			if i > 0 {
				return nil, &partialError{done: i, err: err}
			}
			return nil, err
		}
		r.act(resp.GetResponse(), resp.GetAuditSeq())
		if p := resp.GetResponse().GetPointer(); p != nil {
			r.set("cursor", s.scale.ToModel(p))
		}
		if img := resp.GetResponse().GetObservation().GetScreenshot(); img != nil {
			r.image(img)
		}
	}
	if len(steps) > 1 {
		r.set("steps", len(steps))
	}
	return r, nil
}

// partialError is a refusal after some steps of a call already ran.
type partialError struct {
	done int
	err  error
}

func (e *partialError) Error() string {
	return e.err.Error()
}

func (e *partialError) Unwrap() error { return e.err }

// modifiers splits Anthropic's modifier text ("shift", "ctrl+shift") into the agent's modifier names.
func modifiers(text *string) []string {
	if text == nil || *text == "" {
		return nil
	}
	return splitCombo(*text)
}
