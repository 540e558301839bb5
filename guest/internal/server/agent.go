package server

import (
	"context"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

type agentService struct {
	agentv1.UnimplementedAgentServiceServer
	s *Services
}

// GetInfo reports version, generation, displays and one capability per backend.
func (a *agentService) GetInfo(ctx context.Context, _ *agentv1.GetInfoRequest) (*agentv1.GetInfoResponse, error) {
	s := a.s
	resp := &agentv1.GetInfoResponse{
		Version:         s.opts.Version,
		ProtocolVersion: ProtocolVersion,
		Generation:      s.opts.Generation,
		XDisplay:        s.opts.XDisplay,
	}
	if s.b().Screen != nil {
		resp.Displays = s.b().Screen.Displays()
	}
	add := func(b agentv1.Backend, c Capability) {
		resp.Capabilities = append(resp.Capabilities, &agentv1.Capability{Backend: b, State: c.State, Reason: c.Reason})
	}
	add(agentv1.Backend_BACKEND_SCREEN, capabilityOf(s.b().Screen, s.missing(agentv1.Backend_BACKEND_SCREEN)))
	add(agentv1.Backend_BACKEND_INPUT, capabilityOf(s.b().Input, s.missing(agentv1.Backend_BACKEND_INPUT)))
	add(agentv1.Backend_BACKEND_CLIPBOARD, capabilityOf(s.b().Clipboard, s.missing(agentv1.Backend_BACKEND_CLIPBOARD)))
	add(agentv1.Backend_BACKEND_ACCESSIBILITY, capabilityOf(s.b().Accessibility, s.missing(agentv1.Backend_BACKEND_ACCESSIBILITY)))
	add(agentv1.Backend_BACKEND_BROWSER, capabilityOf(s.b().Browser, s.missing(agentv1.Backend_BACKEND_BROWSER)))
	return resp, nil
}

// missing is the reason a nil backend is unavailable.
func (s *Services) missing(b agentv1.Backend) string {
	if r := s.b().Missing[b]; r != "" {
		return r
	}
	return "backend not started"
}

// capable is what every backend offers GetInfo.
type capable interface {
	Capability() Capability
}

func capabilityOf[T capable](b T, missing string) Capability {
	if any(b) == nil {
		return Unavailable(missing)
	}
	return b.Capability()
}
