package broker

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
)

// Bounds of the handoff contract (handoff.proto).
const (
	MaxHelpReasonBytes       = 256
	MaxHelpInstructionsBytes = 4096
	MaxHelpNoteBytes         = 1024
	// MaxPendingHelpPerSession bounds one session's unanswered requests: an agent loop asking in a loop
	// fills the console with nothing a person can act on.
	MaxPendingHelpPerSession = 8
	// keptDoneHelp is how many answered or cancelled requests a guest keeps for the console.
	keptDoneHelp = 64
	// keptEvents is how many events a session keeps for WatchSessionEvents' from_seq.
	keptEvents = 256
)

// Handoff RPC names for the audit log.
const (
	rpcRequestHelp = "/glovebox.broker.v1.HandoffService/RequestHelp"
)

// eventLog is a session's events: a bounded backlog and the watchers waiting for the next one.
type eventLog struct {
	mu      sync.Mutex
	seq     uint64
	backlog []*brokerv1.SessionEvent
	closed  bool
	changed chan struct{}
}

func newEventLog() *eventLog { return &eventLog{changed: make(chan struct{})} }

// add appends ev (seq and time filled in) and wakes the watchers. After the log is closed it does nothing.
func (l *eventLog) add(ev *brokerv1.SessionEvent, last bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.seq++
	ev.Seq = l.seq
	l.backlog = append(l.backlog, ev)
	if len(l.backlog) > keptEvents {
		l.backlog = slices.Delete(l.backlog, 0, len(l.backlog)-keptEvents)
	}
	l.closed = last
	close(l.changed)
	l.changed = make(chan struct{})
}

// watch sends the kept events after from (0: every kept event), then each new one, until the log closes
// (after its last event) or ctx ends.
func (l *eventLog) watch(ctx context.Context, from uint64, send func(*brokerv1.SessionEvent) error) error {
	l.mu.Lock()
	oldest := l.seq + 1
	if len(l.backlog) > 0 {
		oldest = l.backlog[0].GetSeq()
	}
	if from > 0 && from+1 < oldest {
		l.mu.Unlock()
		return &errdefs.BadRequest{Violations: []errdefs.Violation{{Field: "from_seq",
			Description: fmt.Sprintf("%d is older than the kept events (the oldest is %d); watch from 0 and observe again", from, oldest)}}}
	}
	next := from + 1
	l.mu.Unlock()
	for {
		l.mu.Lock()
		var out []*brokerv1.SessionEvent
		for _, ev := range l.backlog {
			if ev.GetSeq() >= next {
				out = append(out, ev)
			}
		}
		closed, ch := l.closed, l.changed
		l.mu.Unlock()
		for _, ev := range out {
			if err := send(ev); err != nil {
				return err
			}
			next = ev.GetSeq() + 1
		}
		if closed {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil
		}
	}
}

// emit adds an event built by build to every open session of g.
func (b *Broker) emit(g *guest, build func() *brokerv1.SessionEvent) {
	for _, s := range b.guestSessions(g) {
		ev := build()
		ev.Time = timestamppb.New(b.now())
		s.events.add(ev, false)
	}
}

// emitTo adds an event to one session.
func (b *Broker) emitTo(sessionID string, ev *brokerv1.SessionEvent) {
	b.mu.Lock()
	s := b.sessions[sessionID]
	b.mu.Unlock()
	if s != nil {
		ev.Time = timestamppb.New(b.now())
		s.events.add(ev, false)
	}
}

// guestSessions returns g's open sessions.
func (b *Broker) guestSessions(g *guest) []*session {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []*session
	for _, s := range b.sessions {
		if s.guest == g && s.isOpen() {
			out = append(out, s)
		}
	}
	return out
}

// WatchSessionEvents streams a session's events (HandoffService).
func (b *Broker) WatchSessionEvents(ctx context.Context, r *brokerv1.WatchSessionEventsRequest, send func(*brokerv1.SessionEvent) error) error {
	c, err := caller(ctx)
	if err != nil {
		return err
	}
	s, err := b.openSession(c, r.GetSessionId())
	if err != nil {
		return err
	}
	return s.events.watch(ctx, r.GetFromSeq(), send)
}

// newHelpID returns "h-" + 26 lowercase base32 characters.
func newHelpID() string {
	var b [16]byte
	rand.Read(b[:])
	return "h-" + strings.ToLower(idEncoding.EncodeToString(b[:]))
}

// RequestHelp records a session's request for a person (HandoffService).
func (b *Broker) RequestHelp(ctx context.Context, r *brokerv1.RequestHelpRequest) (*brokerv1.HelpRequest, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	var v errdefs.Violations
	checkText(&v, "reason", r.GetReason(), MaxHelpReasonBytes, true)
	checkText(&v, "instructions", r.GetInstructions(), MaxHelpInstructionsBytes, false)
	if r.GetSessionId() == "" {
		v.Addf("session_id", "required")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	s, err := b.openSession(c, r.GetSessionId())
	if err != nil {
		return nil, err
	}
	g := s.guest
	h := &brokerv1.HelpRequest{
		Id: newHelpID(), Guest: g.name, SessionId: s.id, Principal: s.principal.Name, Reason: r.GetReason(),
		Instructions: r.GetInstructions(), State: brokerv1.HelpState_HELP_STATE_PENDING, CreatedAt: timestamppb.New(b.now()),
	}
	g.mu.Lock()
	pending := 0
	for _, x := range g.help {
		if x.GetSessionId() == s.id && x.GetState() == brokerv1.HelpState_HELP_STATE_PENDING {
			pending++
		}
	}
	if pending >= MaxPendingHelpPerSession {
		g.mu.Unlock()
		return nil, fmt.Errorf("session %s has %d pending help requests: %w", s.id, pending, errdefs.ErrResourceExhausted)
	}
	g.help = append(g.help, h)
	out := proto.CloneOf(h)
	g.mu.Unlock()
	cl := &call{rpc: rpcRequestHelp, c: c, s: s, args: r}
	if _, err := b.appendAudit(ctx, b.record(cl, brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE, nil)); err != nil {
		return nil, err
	}
	b.log.Info("help requested", "guest", g.name, "session", s.id, "help", h.GetId())
	return out, nil
}

// ListHelpRequests lists a guest's help requests (HandoffService).
func (b *Broker) ListHelpRequests(ctx context.Context, r *brokerv1.ListHelpRequestsRequest) ([]*brokerv1.HelpRequest, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	c.Guest = r.GetGuest()
	g, err := b.lookupGuest(c, r.GetGuest())
	if err != nil {
		return nil, err
	}
	all := c.Principal.Admin || c.Principal.Control
	return g.helpRequests(r.GetIncludeDone(), func(h *brokerv1.HelpRequest) bool {
		return all || h.GetPrincipal() == c.Principal.Name
	}), nil
}

// helpRequests returns copies of g's help requests that keep accepts, pending first, newest first.
func (g *guest) helpRequests(includeDone bool, keep func(*brokerv1.HelpRequest) bool) []*brokerv1.HelpRequest {
	g.mu.Lock()
	defer g.mu.Unlock()
	var pending, done []*brokerv1.HelpRequest
	for i := len(g.help) - 1; i >= 0; i-- {
		h := g.help[i]
		if !keep(h) {
			continue
		}
		switch h.GetState() {
		case brokerv1.HelpState_HELP_STATE_PENDING, brokerv1.HelpState_HELP_STATE_TAKEN:
			pending = append(pending, proto.CloneOf(h))
		default:
			if includeDone {
				done = append(done, proto.CloneOf(h))
			}
		}
	}
	return append(pending, done...)
}

// takeHelpLocked marks the pending request id TAKEN by holder; g.mu is held.
func (g *guest) takeHelpLocked(id, holder string) (*brokerv1.HelpRequest, error) {
	for _, h := range g.help {
		if h.GetId() == id && h.GetState() == brokerv1.HelpState_HELP_STATE_PENDING {
			h.State, h.TakenBy = brokerv1.HelpState_HELP_STATE_TAKEN, holder
			return h, nil
		}
	}
	return nil, fmt.Errorf("no pending help request %s on guest %s: %w", quoteID(id), g.name, errdefs.ErrNotFound)
}

// answerHelpLocked marks the requests ids ANSWERED with note and returns copies; g.mu is held.
func (g *guest) answerHelpLocked(ids []string, note string, at *timestamppb.Timestamp) []*brokerv1.HelpRequest {
	var out []*brokerv1.HelpRequest
	for _, h := range g.help {
		if slices.Contains(ids, h.GetId()) && h.GetState() == brokerv1.HelpState_HELP_STATE_TAKEN {
			h.State, h.Note, h.AnsweredAt = brokerv1.HelpState_HELP_STATE_ANSWERED, note, at
			out = append(out, proto.CloneOf(h))
		}
	}
	g.trimHelpLocked()
	return out
}

// cancelHelp marks a closed session's unanswered requests CANCELLED.
func (g *guest) cancelHelp(sessionID string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, h := range g.help {
		if h.GetSessionId() == sessionID && h.GetState() == brokerv1.HelpState_HELP_STATE_PENDING {
			h.State = brokerv1.HelpState_HELP_STATE_CANCELLED
		}
	}
	g.trimHelpLocked()
}

// trimHelpLocked forgets the oldest done requests beyond keptDoneHelp; g.mu is held.
func (g *guest) trimHelpLocked() {
	done := 0
	for _, h := range g.help {
		if s := h.GetState(); s == brokerv1.HelpState_HELP_STATE_ANSWERED || s == brokerv1.HelpState_HELP_STATE_CANCELLED {
			done++
		}
	}
	for i := 0; done > keptDoneHelp && i < len(g.help); {
		if s := g.help[i].GetState(); s == brokerv1.HelpState_HELP_STATE_ANSWERED || s == brokerv1.HelpState_HELP_STATE_CANCELLED {
			g.help = slices.Delete(g.help, i, i+1)
			done--
			continue
		}
		i++
	}
}

// checkText adds a violation for text that is not UTF-8, too long, or missing when required.
func checkText(v *errdefs.Violations, field, s string, maxBytes int, required bool) {
	switch {
	case required && s == "":
		v.Addf(field, "required")
	case len(s) > maxBytes:
		v.Addf(field, "must be at most %d bytes, got %d", maxBytes, len(s))
	case !utf8.ValidString(s):
		v.Addf(field, "must be UTF-8")
	}
}

// quoteID quotes an id a caller sent when it looks like one of ours, else describes it by its size.
func quoteID(id string) string {
	if len(id) <= 40 && strings.IndexFunc(id, func(r rune) bool {
		return !(r == '-' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) < 0 {
		return fmt.Sprintf("%q", id)
	}
	return fmt.Sprintf("(an id of %d bytes)", len(id))
}
