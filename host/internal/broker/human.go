package broker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"glovebox.dev/host/internal/auth"
	"glovebox.dev/host/internal/config"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// Console RPC names for the audit log: what a person does through the console, recorded like the gRPC calls.
const (
	RPCConsoleInput   = "/glovebox.broker.v1.Console/Input"
	RPCConsoleRelease = "/glovebox.broker.v1.Console/ReleaseInput"
	RPCConsoleLink    = "/glovebox.broker.v1.ConsoleService/CreateViewerLink"
	RPCConsoleOpen    = "/glovebox.broker.v1.Console/OpenLink"
	RPCConsoleRefused = "/glovebox.broker.v1.Console/Refused"
)

// HumanOwner is the agent owner of a person's held keys and buttons: theirs, never a session's.
func HumanOwner(principal string) string { return "human:" + principal }

// HumanAct sends one action of a person through the console to a guest whose control lease they hold: the
// same validation, audit (source HUMAN, typed text hashed like a session's) and input queue as a session's
// mutation, while sessions stay refused with CONTROL_HELD.
func (b *Broker) HumanAct(ctx context.Context, p *config.Principal, guestName string, req *agentv1.ActRequest) (*agentv1.ActResponse, error) {
	g, err := b.consoleGuest(p, guestName)
	if err != nil {
		return nil, err
	}
	req = proto.CloneOf(req)
	req.Owner = HumanOwner(p.Name)
	rec := func(phase brokerv1.AuditPhase, start time.Time, err error) *brokerv1.AuditRecord {
		r := &brokerv1.AuditRecord{Guest: g.name, Phase: phase, Rpc: RPCConsoleInput, Principal: p.Name,
			Args: b.args(req), DurationUs: time.Since(start).Microseconds(), Source: brokerv1.AuditSource_AUDIT_SOURCE_HUMAN}
		if phase != brokerv1.AuditPhase_AUDIT_PHASE_INTENT {
			r.Code, r.Reason = outcome(err)
		}
		return r
	}
	start := time.Now()
	refuse := func(err error) error {
		if _, aerr := b.appendAudit(ctx, rec(brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE, start, err)); aerr != nil {
			return aerr
		}
		return err
	}
	if err := validate.ActRequest(req); err != nil {
		return nil, refuse(err)
	}
	if err := g.heldBy(p.Name); err != nil {
		return nil, refuse(err)
	}
	if err := g.conn.Ready(); err != nil {
		return nil, refuse(err)
	}
	g.touchLease(p.Name, b.now())
	b.startHumanRecording(g, p.Name, req)
	intent, err := b.appendAudit(ctx, rec(brokerv1.AuditPhase_AUDIT_PHASE_INTENT, start, nil))
	if err != nil {
		return nil, err
	}
	var resp *agentv1.ActResponse
	g.queue.do(req.Owner, func() {
		if err = ctx.Err(); err != nil {
			return
		}
		// The lease may have ended while this waited in the queue.
		if err = g.heldBy(p.Name); err != nil {
			return
		}
		err = g.conn.Call(ctx, actDuration(req), func(ctx context.Context, c guestClients) error {
			var err error
			resp, err = c.Act.Act(ctx, req)
			return err
		})
	})
	// The intent was durable before the input was sent; the outcome is written in chain order without waiting
	// for the disk (as an observation's record): the page waits for no answer, and the person's next event
	// should not queue behind an fsync. The next durable append (at the latest the next intent) covers it.
	out := rec(brokerv1.AuditPhase_AUDIT_PHASE_OUTCOME, start, err)
	out.IntentSeq = intent
	seq, aerr := b.appendObservation(ctx, out)
	b.recordHuman(g, p.Name, req, out.Args, resp, start, seq, err)
	if err == nil && aerr != nil {
		return nil, aerr
	}
	return resp, err
}

// HumanRelease releases every key and button a person holds on a guest (their console went away); it does not
// end their lease.
func (b *Broker) HumanRelease(ctx context.Context, p *config.Principal, guestName string) error {
	g, err := b.consoleGuest(p, guestName)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	start := time.Now()
	req := &agentv1.ActRequest{Owner: HumanOwner(p.Name), Action: &agentv1.ActRequest_ReleaseAll{ReleaseAll: &agentv1.ReleaseAll{}}}
	g.queue.do(req.Owner, func() {
		err = g.conn.Call(ctx, 0, func(ctx context.Context, c guestClients) error {
			_, err := c.Act.Act(ctx, req)
			return err
		})
	})
	code, why := outcome(err)
	b.appendAudit(ctx, &brokerv1.AuditRecord{Guest: g.name, Phase: brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE,
		Rpc: RPCConsoleRelease, Principal: p.Name, Args: b.args(req), Code: code, Reason: why,
		DurationUs: time.Since(start).Microseconds(), Source: brokerv1.AuditSource_AUDIT_SOURCE_HUMAN})
	return err
}

// heldBy returns nil when principal holds g's control lease, else an error wrapping ErrControlHeld.
func (g *guest) heldBy(principal string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.lease == nil:
		return fmt.Errorf("take control of guest %s before sending input: %w", g.name, errdefs.ErrControlHeld)
	case g.lease.GetHolder() != principal:
		return fmt.Errorf("guest %s is controlled by %s: %w", g.name, g.lease.GetHolder(), errdefs.ErrControlHeld)
	}
	return nil
}

// consoleGuest returns the guest a console principal may see.
func (b *Broker) consoleGuest(p *config.Principal, name string) (*guest, error) {
	b.mu.Lock()
	g := b.guests[name]
	b.mu.Unlock()
	if g == nil || !(p.Admin || p.MayUse(name)) {
		return nil, fmt.Errorf("guest %s: %w", quoteGuest(name), errdefs.ErrNotFound)
	}
	return g, nil
}

// ConsoleWatch streams a guest's screen for the console (the console's own view: not a session's, so a
// guest's hide_screen_while_held does not apply).
func (b *Broker) ConsoleWatch(ctx context.Context, p *config.Principal, guestName string, req *agentv1.WatchScreenRequest, send func(*agentv1.WatchScreenResponse) error) error {
	g, err := b.consoleGuest(p, guestName)
	if err != nil {
		return err
	}
	clients, err := g.conn.Stream()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := clients.Observe.WatchScreen(ctx, req)
	if err != nil {
		return g.conn.Translate(ctx, err)
	}
	for {
		f, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return g.conn.Translate(ctx, err)
		}
		if err := send(f); err != nil {
			return err
		}
	}
}

// ConsoleCapture takes one screenshot for the console.
func (b *Broker) ConsoleCapture(ctx context.Context, p *config.Principal, guestName string, opts *agentv1.ScreenshotOptions) (*agentv1.CaptureScreenshotResponse, error) {
	g, err := b.consoleGuest(p, guestName)
	if err != nil {
		return nil, err
	}
	var resp *agentv1.CaptureScreenshotResponse
	err = g.conn.Call(ctx, 0, func(ctx context.Context, c guestClients) error {
		var err error
		resp, err = c.Observe.CaptureScreenshot(ctx, &agentv1.CaptureScreenshotRequest{Options: opts})
		return err
	})
	return resp, err
}

// ConsoleAcquire and ConsoleRelease take and give back control for a person on the console, with the same
// rules and records as ControlService.
func (b *Broker) ConsoleAcquire(ctx context.Context, p *config.Principal, r *brokerv1.AcquireControlRequest) (*brokerv1.ControlLease, error) {
	return b.AcquireControl(withPrincipal(ctx, p), r)
}

// ConsoleRelease gives control back for a person on the console.
func (b *Broker) ConsoleRelease(ctx context.Context, p *config.Principal, r *brokerv1.ReleaseControlRequest) (uint64, error) {
	return b.ReleaseControl(withPrincipal(ctx, p), r)
}

// GuestView is what the console shows of a guest.
type GuestView struct {
	Guest    *brokerv1.Guest
	Control  *brokerv1.GetControlResponse
	Sessions []SessionView
	Help     []*brokerv1.HelpRequest
}

// SessionView is a session as the console lists it.
type SessionView struct {
	Session    *brokerv1.Session
	LastAction string
	LastAt     time.Time
	Held       []*agentv1.HeldInput
}

// ConsoleView returns a guest's state for the console.
func (b *Broker) ConsoleView(p *config.Principal, guestName string) (*GuestView, error) {
	g, err := b.consoleGuest(p, guestName)
	if err != nil {
		return nil, err
	}
	v := &GuestView{Guest: b.guestProto(g)}
	g.mu.Lock()
	v.Control = &brokerv1.GetControlResponse{Held: g.lease != nil, Generation: g.gen}
	if g.lease != nil {
		v.Control.Lease = proto.CloneOf(g.lease)
	}
	g.mu.Unlock()
	for _, s := range b.guestSessions(g) {
		s.mu.Lock()
		sv := SessionView{LastAction: s.lastAction, LastAt: s.lastActionAt}
		for _, h := range s.held {
			sv.Held = append(sv.Held, proto.CloneOf(h))
		}
		s.mu.Unlock()
		sv.Session = s.proto()
		v.Sessions = append(v.Sessions, sv)
	}
	v.Help = g.helpRequests(false, func(*brokerv1.HelpRequest) bool { return true })
	return v, nil
}

// ConsoleGuests lists the guests a console principal may see, by name.
func (b *Broker) ConsoleGuests(p *config.Principal) []string {
	var out []string
	for _, g := range b.sortedGuests() {
		if p.Admin || p.MayUse(g.name) {
			out = append(out, g.name)
		}
	}
	return out
}

// AuditConsole writes a console record (a link minted, used or refused) to a guest's log: metadata only,
// never a token.
func (b *Broker) AuditConsole(ctx context.Context, guestName, rpc, principal string, fields map[string]string, err error) {
	b.mu.Lock()
	g := b.guests[guestName]
	b.mu.Unlock()
	if g == nil {
		return
	}
	args := &structpb.Struct{Fields: map[string]*structpb.Value{}}
	for k, v := range fields {
		args.Fields[k] = structpb.NewStringValue(v)
	}
	code, why := outcome(err)
	rec := &brokerv1.AuditRecord{Guest: g.name, Phase: brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE, Rpc: rpc,
		Principal: principal, Args: args, Code: code, Reason: why}
	if rpc != RPCConsoleLink { // minting is a principal's gRPC call; the rest is a person at the console
		rec.Source = brokerv1.AuditSource_AUDIT_SOURCE_HUMAN
	}
	b.appendAudit(ctx, rec)
}

// noteAction records a session's last mutation for the console.
func (s *session) noteAction(rpc string, at time.Time, held []*agentv1.HeldInput, setHeld bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastAction, s.lastActionAt = rpc, at
	if setHeld {
		s.held = held
	}
}

// withPrincipal is ctx as a call of principal p (the console's requests go through the gRPC paths' rules).
func withPrincipal(ctx context.Context, p *config.Principal) context.Context {
	return auth.WithCaller(ctx, &auth.Caller{Principal: p})
}
