package server

import agentv1 "glovebox.dev/proto/glovebox/agent/v1"

// Clipboard is the clipboard backend (X selections). (skeleton: methods defined by the clipboard work)
type Clipboard interface {
	capable
}

// clipboardService serves ClipboardService. (skeleton: filled by the clipboard backend work)
type clipboardService struct {
	agentv1.UnimplementedClipboardServiceServer
	s *Services
}

func newClipboardService(s *Services) *clipboardService { return &clipboardService{s: s} }
