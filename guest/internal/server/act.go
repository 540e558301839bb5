package server

import (
	"context"
	"fmt"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// Observation defaults (ObserveAfter's zero values).
const (
	defaultQuiet        = 100 * time.Millisecond
	defaultQuietTimeout = 2 * time.Second
)

// actService serves ActService: it checks a request completely (statically, then against the live screen),
// refuses a stale generation, deduplicates by request_id, serializes mutations in arrival order, freezes the
// target, dispatches to the input backend and optionally observes the settled screen.
//
// Effects: desktop input (pointer and keyboard actions) is watched for screen damage (watch.go): DONE with the
// damaged box when the screen changed within the watch, NO_VISIBLE_CHANGE when it did not, UNVERIFIABLE when
// there is no screen to watch, DONE without a box when the caller asked for no watch. wait and release_all
// answer DONE, since what they do is certain; element and page backends claim VERIFIED where they read back.
type actService struct {
	agentv1.UnimplementedActServiceServer
	s       *Services
	seen    *requestLog[*agentv1.ActResponse]
	batches *requestLog[*agentv1.ActBatchResponse]
}

func newActService(s *Services) *actService {
	return &actService{s: s, seen: newRequestLog[*agentv1.ActResponse](maxRememberedRequests),
		batches: newRequestLog[*agentv1.ActBatchResponse](maxRememberedRequests)}
}

// Act performs one action; see the ActService documentation in act.proto.
func (a *actService) Act(ctx context.Context, r *agentv1.ActRequest) (*agentv1.ActResponse, error) {
	start := time.Now()
	// The backend set is read once: a request runs on the backends it started with, even if SetBackends
	// replaces them meanwhile.
	be := a.s.b()
	if err := validate.ActRequest(r); err != nil {
		return nil, err
	}
	p, err := a.check(r, be)
	if err != nil {
		return nil, err
	}
	validated := time.Now()

	var key string
	if id := r.GetRequestId(); id != "" {
		key = r.GetOwner() + "\x00" + id
		resp, err, done := a.seen.begin(key, contentHash(r))
		if done {
			return resp, err
		}
	}
	resp, dispatched, err := a.act(ctx, r, p, start, validated)
	if key != "" {
		// A request that failed before any input was sent may be retried; one that sent input is answered
		// from the log, so it is never done twice.
		a.seen.finish(key, resp, err, dispatched)
	}
	return resp, err
}

// check checks a statically valid request against the agent's backends be: the backends it needs, its points
// and names against the live screen, and its generation.
func (a *actService) check(r *agentv1.ActRequest, be *Backends) (*plan, error) {
	if err := a.needBackend(r, be); err != nil {
		return nil, err
	}
	p, err := a.plan(r, be)
	if err != nil {
		return nil, err
	}
	if r.GetObserve() != nil && be.Screen == nil {
		return nil, fmt.Errorf("observe: no screen backend: %w", errdefs.ErrCapabilityUnavailable)
	}
	if g := r.GetTarget().GetGeneration(); g != 0 && g != a.s.opts.Generation {
		return nil, fmt.Errorf("target generation %d, agent is in %d: %w", g, a.s.opts.Generation, errdefs.ErrGenerationChanged)
	}
	return p, nil
}

// act runs a validated request in the mutation queue. dispatched says whether input may have been sent.
func (a *actService) act(ctx context.Context, r *agentv1.ActRequest, p *plan, start, validated time.Time) (*agentv1.ActResponse, bool, error) {
	// wait and wait_for are observations: they change nothing, so they never hold up other mutations.
	if !p.wait {
		if err := a.s.inputQueue.lock(ctx); err != nil {
			return nil, false, fmt.Errorf("queued: %w: %w", errdefs.ErrInterrupted, err)
		}
		defer a.s.inputQueue.unlock()
	}
	return a.run(ctx, r, p, start, validated)
}

// run does one checked action; the caller holds the queue unless the action is an observation.
func (a *actService) run(ctx context.Context, r *agentv1.ActRequest, p *plan, start, validated time.Time) (*agentv1.ActResponse, bool, error) {
	queued := time.Now()
	ft, err := a.freeze(ctx, r, p)
	if err != nil {
		return nil, false, err
	}
	w := startWatch(ctx, r, p)
	resolved := time.Now()

	resp := &agentv1.ActResponse{Effect: agentv1.Effect_EFFECT_DONE, Target: ft}
	if err := a.dispatchPressing(ctx, r, p, resp); err != nil {
		return nil, true, err
	}
	dispatchedAt := time.Now()

	if in := p.be.Input; in != nil {
		resp.Held = in.Held(r.GetOwner())
		x, y := in.LastPointer()
		resp.Pointer = &agentv1.Point{X: x, Y: y}
	}
	if o := r.GetObserve(); o != nil {
		obs, err := observeAfter(ctx, p.be.Screen, o)
		if err != nil {
			return nil, true, fmt.Errorf("observe after action (the action was done): %w", err)
		}
		resp.Observation = obs
	}
	w.finish(ctx, r, resp)
	end := time.Now()
	resp.Timing = &agentv1.Timing{
		ValidateUs: validated.Sub(start).Microseconds(),
		QueueUs:    queued.Sub(validated).Microseconds(),
		ResolveUs:  resolved.Sub(queued).Microseconds(),
		DispatchUs: dispatchedAt.Sub(resolved).Microseconds(),
		SettleUs:   end.Sub(dispatchedAt).Microseconds(),
		TotalUs:    end.Sub(start).Microseconds(),
	}
	return resp, true, nil
}

// observeAfter waits for the screen to settle and captures it with the cursor position.
func observeAfter(ctx context.Context, scr Screen, o *agentv1.ObserveAfter) (*agentv1.Observation, error) {
	quiet, timeout := defaultQuiet, defaultQuietTimeout
	if o.GetQuietMs() > 0 {
		quiet = time.Duration(o.GetQuietMs()) * time.Millisecond
	}
	if o.GetTimeoutMs() > 0 {
		timeout = time.Duration(o.GetTimeoutMs()) * time.Millisecond
	}
	settled, err := scr.WaitQuiet(ctx, quiet, timeout)
	if err != nil {
		return nil, err
	}
	opts := o.GetScreenshot()
	if opts == nil {
		opts = &agentv1.ScreenshotOptions{Format: agentv1.ImageFormat_IMAGE_FORMAT_PNG}
	}
	img, _, _, err := scr.Capture(ctx, opts)
	if err != nil {
		return nil, err
	}
	obs := &agentv1.Observation{Screenshot: img, Settled: settled}
	if c, err := scr.Cursor(ctx); err == nil {
		obs.Cursor = c.GetPosition()
	}
	return obs, nil
}
