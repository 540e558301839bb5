package server

import agentv1 "glovebox.dev/proto/glovebox/agent/v1"

// actService serves ActService. (skeleton: filled by the input backend work)
type actService struct {
	agentv1.UnimplementedActServiceServer
	s *Services
}

func newActService(s *Services) *actService { return &actService{s: s} }
