package server

import agentv1 "glovebox.dev/proto/glovebox/agent/v1"

// observeService serves ObserveService. (skeleton: filled by the screen backend work)
type observeService struct {
	agentv1.UnimplementedObserveServiceServer
	s *Services
}

func newObserveService(s *Services) *observeService { return &observeService{s: s} }
