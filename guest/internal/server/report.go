package server

import (
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// report is what a mutation outside Act (WriteClipboard, GetApp with launch, ListBrowsers with start_default)
// says it did, like ActResponse: the target with the generation, and the timing of its stages.
type report struct {
	s                *Services
	start, validated time.Time
	target           *agentv1.FrozenTarget
	timing           *agentv1.Timing
}

// beginReport starts a report at the request's arrival.
func (s *Services) beginReport() *report { return &report{s: s, start: time.Now()} }

// checked marks the end of validation.
func (r *report) checked() { r.validated = time.Now() }

// done fills the target (source EXPLICIT, the agent's generation, and the ids set by fill) and the timing.
func (r *report) done(fill func(*agentv1.FrozenTarget)) {
	end := time.Now()
	if r.validated.IsZero() {
		r.validated = r.start
	}
	r.target = &agentv1.FrozenTarget{Source: agentv1.TargetSource_TARGET_SOURCE_EXPLICIT, Generation: r.s.opts.Generation}
	if fill != nil {
		fill(r.target)
	}
	r.timing = &agentv1.Timing{
		ValidateUs: r.validated.Sub(r.start).Microseconds(),
		DispatchUs: end.Sub(r.validated).Microseconds(),
		TotalUs:    end.Sub(r.start).Microseconds(),
	}
}
