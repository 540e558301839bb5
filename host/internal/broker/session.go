package broker

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/base64"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"glovebox.dev/host/internal/auth"
	"glovebox.dev/host/internal/config"
	"glovebox.dev/host/internal/policy"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
)

// Session bounds (the SessionService contract).
const (
	MaxLabelBytes       = 256
	DefaultPageSize     = 100
	MaxSessionsPageSize = 500
)

// session is one caller's session on one guest. Its defaults are its own: nothing else reads or writes them.
type session struct {
	id        string
	guest     *guest
	principal *config.Principal
	label     string
	mode      brokerv1.SessionMode
	idle, ttl time.Duration
	created   time.Time
	bucket    *policy.Bucket
	events    *eventLog

	mu          sync.Mutex
	state       brokerv1.SessionState
	closeReason brokerv1.CloseReason
	closedAt    time.Time
	lastUsed    time.Time
	defTarget   *agentv1.Target
	// lastAction, lastActionAt and held are what the console shows: the last mutation's rpc and time, and
	// what the session's input holds after its last Act.
	lastAction   string
	lastActionAt time.Time
	held         []*agentv1.HeldInput
	// rec is the session's recording (recording.go), started at its first mutation when the policy says;
	// recChecked is set once the policy was asked.
	rec        *recorder
	recChecked bool
	// snaps is what the recorded session observed of the accessibility tree (recording_elements.go).
	snaps *snapCache
}

var idEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// newSessionID returns "s-" + 26 lowercase base32 characters (128 random bits).
func newSessionID() string {
	var b [16]byte
	rand.Read(b[:])
	return "s-" + strings.ToLower(idEncoding.EncodeToString(b[:]))
}

func (s *session) isOpen() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state == brokerv1.SessionState_SESSION_STATE_OPEN
}

// defaultTarget returns a copy of the session's default target, or nil.
func (s *session) defaultTarget() *agentv1.Target {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.defTarget == nil {
		return nil
	}
	return proto.CloneOf(s.defTarget)
}

func (s *session) proto() *brokerv1.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := &brokerv1.Session{
		Id: s.id, Guest: s.guest.name, Principal: s.principal.Name, Label: s.label, Mode: s.mode,
		State: s.state, CloseReason: s.closeReason, IdleTimeoutSeconds: int32(s.idle / time.Second),
		TtlSeconds: int32(s.ttl / time.Second), CreatedAt: timestamppb.New(s.created), LastUsedAt: timestamppb.New(s.lastUsed),
	}
	if s.defTarget != nil {
		out.DefaultTarget = proto.CloneOf(s.defTarget)
	}
	if !s.closedAt.IsZero() {
		out.ClosedAt = timestamppb.New(s.closedAt)
	}
	return out
}

// CreateSession opens a session on a guest the caller may use. Observe-only principals get OBSERVE sessions
// whatever they ask for.
func (b *Broker) CreateSession(ctx context.Context, r *brokerv1.CreateSessionRequest) (*brokerv1.Session, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	c.Guest = r.GetGuest()
	var v errdefs.Violations
	if r.GetGuest() == "" {
		v.Addf("guest", "required")
	}
	if n := len(r.GetLabel()); n > MaxLabelBytes {
		v.Addf("label", "must be at most %d bytes, got %d", MaxLabelBytes, n)
	}
	if _, ok := brokerv1.SessionMode_name[int32(r.GetMode())]; !ok {
		v.Addf("mode", "unknown mode %d", r.GetMode())
	}
	idle, ttl := time.Duration(b.cfg.Sessions.IdleTimeout), time.Duration(b.cfg.Sessions.TTL)
	if n := r.GetIdleTimeoutSeconds(); n != 0 {
		if n < config.MinSessionSeconds || n > config.MaxIdleTimeoutSeconds {
			v.Addf("idle_timeout_seconds", "must be 0 or %d..%d, got %d", config.MinSessionSeconds, config.MaxIdleTimeoutSeconds, n)
		}
		idle = time.Duration(n) * time.Second
	}
	if n := r.GetTtlSeconds(); n != 0 {
		if n < config.MinSessionSeconds || n > config.MaxTTLSeconds {
			v.Addf("ttl_seconds", "must be 0 or %d..%d, got %d", config.MinSessionSeconds, config.MaxTTLSeconds, n)
		}
		ttl = time.Duration(n) * time.Second
	}
	if ttl < idle {
		v.Addf("ttl_seconds", "must be at least the idle timeout (%s), got %s", idle, ttl)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	g, err := b.lookupGuest(c, r.GetGuest())
	if err != nil {
		return nil, err
	}
	mode := r.GetMode()
	if mode == brokerv1.SessionMode_SESSION_MODE_UNSPECIFIED {
		mode = brokerv1.SessionMode_SESSION_MODE_ACT
	}
	if c.Principal.ObserveOnly {
		mode = brokerv1.SessionMode_SESSION_MODE_OBSERVE
	}
	now := b.now()
	s := &session{
		id: newSessionID(), guest: g, principal: c.Principal, label: r.GetLabel(), mode: mode,
		idle: idle, ttl: ttl, created: now, lastUsed: now, state: brokerv1.SessionState_SESSION_STATE_OPEN,
		bucket: policy.NewBucket(c.Principal.RatePerSecond, c.Principal.Burst),
		events: newEventLog(),
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, fmt.Errorf("broker shutting down: %w", errdefs.ErrUnavailable)
	}
	b.sessions[s.id] = s
	b.mu.Unlock()
	c.Session = s.id
	b.metrics.SessionsOpen(1)
	b.log.Info("session created", "session", s.id, "guest", g.name, "principal", c.Principal.Name, "mode", mode.String())
	return s.proto(), nil
}

// session returns the caller's session id (open or closed) with ownership checked: only its principal or
// an admin may use it.
func (b *Broker) session(c *auth.Caller, id string) (*session, error) {
	if id == "" {
		return nil, &errdefs.BadRequest{Violations: []errdefs.Violation{{Field: "session_id", Description: "required"}}}
	}
	b.mu.Lock()
	s := b.sessions[id]
	b.mu.Unlock()
	if s == nil {
		return nil, fmt.Errorf("session %q: %w", id, errdefs.ErrNotFound)
	}
	c.Session, c.Guest = s.id, s.guest.name
	if s.principal.Name != c.Principal.Name && !c.Principal.Admin {
		return nil, fmt.Errorf("session %s belongs to another principal: %w", id, errdefs.ErrPermissionDenied)
	}
	return s, nil
}

// closedErr returns the error of a request on a closed session (nil while it is open).
func (s *session) closedErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != brokerv1.SessionState_SESSION_STATE_OPEN {
		return fmt.Errorf("session %s is closed (%s): %w", s.id, s.closeReason, errdefs.ErrNotFound)
	}
	return nil
}

// openSession is session plus: it must be open, and it counts as used now.
func (b *Broker) openSession(c *auth.Caller, id string) (*session, error) {
	s, err := b.session(c, id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != brokerv1.SessionState_SESSION_STATE_OPEN {
		return nil, fmt.Errorf("session %s is closed (%s): %w", id, s.closeReason, errdefs.ErrNotFound)
	}
	s.lastUsed = b.now()
	return s, nil
}

// GetSession returns a session of the caller's.
func (b *Broker) GetSession(ctx context.Context, id string) (*brokerv1.Session, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	s, err := b.session(c, id)
	if err != nil {
		return nil, err
	}
	return s.proto(), nil
}

// ListSessions pages through the caller's sessions (everyone's for an admin), newest first.
func (b *Broker) ListSessions(ctx context.Context, r *brokerv1.ListSessionsRequest) ([]*brokerv1.Session, string, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, "", err
	}
	var v errdefs.Violations
	size := int(r.GetPageSize())
	if size < 0 || size > MaxSessionsPageSize {
		v.Addf("page_size", "must be 0..%d, got %d", MaxSessionsPageSize, size)
	}
	if size == 0 {
		size = DefaultPageSize
	}
	offset := 0
	if t := r.GetPageToken(); t != "" {
		raw, err := base64.RawURLEncoding.DecodeString(t)
		n, perr := strconv.Atoi(string(raw))
		if err != nil || perr != nil || n < 0 {
			v.Addf("page_token", "not a token from a previous response")
		}
		offset = n
	}
	if err := v.Err(); err != nil {
		return nil, "", err
	}
	b.mu.Lock()
	var list []*session
	for _, s := range b.sessions {
		if (c.Principal.Admin || s.principal.Name == c.Principal.Name) && (r.GetGuest() == "" || s.guest.name == r.GetGuest()) {
			list = append(list, s)
		}
	}
	b.mu.Unlock()
	var all []*brokerv1.Session
	for _, s := range list {
		if p := s.proto(); r.GetIncludeClosed() || p.GetState() == brokerv1.SessionState_SESSION_STATE_OPEN {
			all = append(all, p)
		}
	}
	sort.Slice(all, func(i, j int) bool {
		ti, tj := all[i].GetCreatedAt().AsTime(), all[j].GetCreatedAt().AsTime()
		if !ti.Equal(tj) {
			return ti.After(tj)
		}
		return all[i].GetId() < all[j].GetId()
	})
	if offset > len(all) {
		offset = len(all)
	}
	end := min(offset+size, len(all))
	next := ""
	if end < len(all) {
		next = base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(end)))
	}
	return all[offset:end], next, nil
}

// DeleteSession closes a session (REQUESTED) and releases what it holds on the guest.
func (b *Broker) DeleteSession(ctx context.Context, id string) (*brokerv1.Session, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	s, err := b.openSession(c, id)
	if err != nil {
		return nil, err
	}
	b.closeSessions(ctx, []*session{s}, brokerv1.CloseReason_CLOSE_REASON_REQUESTED)
	return s.proto(), nil
}

// SetSessionDefaults sets the session's default target; a window or a tab must exist on the guest and a
// display must be one the agent reported.
func (b *Broker) SetSessionDefaults(ctx context.Context, r *brokerv1.SetSessionDefaultsRequest) (*brokerv1.Session, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	s, err := b.openSession(c, r.GetSessionId())
	if err != nil {
		return nil, err
	}
	t := r.GetDefaultTarget()
	if t != nil && t.GetKind() == nil {
		t = nil
	}
	switch k := t.GetKind().(type) {
	case *agentv1.Target_Window:
		if k.Window.GetWindowId() == 0 {
			return nil, &errdefs.BadRequest{Violations: []errdefs.Violation{{Field: "default_target.window.window_id", Description: "required"}}}
		}
		var wins *agentv1.ListWindowsResponse
		err := s.guest.conn.Call(ctx, 0, func(ctx context.Context, cl guestClients) error {
			var err error
			wins, err = cl.Observe.ListWindows(ctx, &agentv1.ListWindowsRequest{})
			return err
		})
		if err != nil {
			return nil, err
		}
		found := false
		for _, w := range wins.GetWindows() {
			found = found || w.GetId() == k.Window.GetWindowId()
		}
		if !found {
			return nil, fmt.Errorf("default_target.window.window_id %d is not a window on guest %s: %w", k.Window.GetWindowId(), s.guest.name, errdefs.ErrTargetGone)
		}
	case *agentv1.Target_Tab:
		if err := checkDefaultTab(ctx, s, k.Tab); err != nil {
			return nil, err
		}
	case *agentv1.Target_App:
		if err := defaultApp(k.App); err != nil {
			return nil, err
		}
	case *agentv1.Target_Display:
		if info := s.guest.conn.Status().Info; info != nil && k.Display.GetDisplayId() != "" {
			found := false
			for _, d := range info.GetDisplays() {
				found = found || d.GetId() == k.Display.GetDisplayId()
			}
			if !found {
				return nil, &errdefs.BadRequest{Violations: []errdefs.Violation{{Field: "default_target.display.display_id", Description: fmt.Sprintf("guest %s has no display %q", s.guest.name, k.Display.GetDisplayId())}}}
			}
		}
	}
	s.mu.Lock()
	if t != nil {
		t = proto.CloneOf(t)
		t.Generation = 0
	}
	s.defTarget = t
	s.mu.Unlock()
	return s.proto(), nil
}

// closeSessions closes each session once with reason, releases what each holds on its guest (through the
// guest's input queue, so it lands after the session's queued input) and audits the close.
func (b *Broker) closeSessions(ctx context.Context, list []*session, reason brokerv1.CloseReason) {
	var wg sync.WaitGroup
	for _, s := range list {
		s.mu.Lock()
		if s.state != brokerv1.SessionState_SESSION_STATE_OPEN {
			s.mu.Unlock()
			continue
		}
		s.state, s.closeReason, s.closedAt = brokerv1.SessionState_SESSION_STATE_CLOSED, reason, b.now()
		s.mu.Unlock()
		s.events.add(&brokerv1.SessionEvent{Time: timestamppb.New(b.now()),
			Kind: &brokerv1.SessionEvent_SessionClosing{SessionClosing: &brokerv1.SessionClosing{Reason: reason}}}, true)
		s.guest.cancelHelp(s.id)
		b.metrics.SessionsOpen(-1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.release(ctx, s, reason)
		}()
	}
	wg.Wait()
}

// release sends release_all for the session's owner and audits the close with its outcome.
func (b *Broker) release(ctx context.Context, s *session, reason brokerv1.CloseReason) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	req := &agentv1.ActRequest{Owner: s.id, Action: &agentv1.ActRequest_ReleaseAll{ReleaseAll: &agentv1.ReleaseAll{}}}
	var err error
	s.guest.queue.do(s.id, func() {
		err = s.guest.conn.Call(ctx, 0, func(ctx context.Context, cl guestClients) error {
			_, err := cl.Act.Act(ctx, req)
			return err
		})
	})
	args := b.args(req)
	args.Fields["close_reason"] = structpb.NewStringValue(reason.String())
	code, why := outcome(err)
	b.appendAudit(ctx, &brokerv1.AuditRecord{
		Guest: s.guest.name, Phase: brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE, Rpc: rpcSessionClose,
		SessionId: s.id, Principal: s.principal.Name, Args: args, Code: code, Reason: why,
		DurationUs: time.Since(start).Microseconds(),
	})
	s.mu.Lock()
	rec := s.rec
	s.rec = nil
	s.mu.Unlock()
	b.seal(ctx, s.guest, rec)
	b.log.Info("session closed", "session", s.id, "guest", s.guest.name, "reason", reason.String(), "release_code", code)
}

// rpcSessionClose is the rpc of the audit record written when a session closes for any reason.
const rpcSessionClose = "/glovebox.broker.v1.SessionService/DeleteSession"

// reaper closes sessions past their idle timeout or TTL and forgets long-closed ones.
func (b *Broker) reaper(every time.Duration) {
	defer b.reaperWG.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
		}
		b.reap()
	}
}

func (b *Broker) reap() {
	now := b.now()
	idle, expired := []*session{}, []*session{}
	b.mu.Lock()
	for id, s := range b.sessions {
		s.mu.Lock()
		switch {
		case s.state != brokerv1.SessionState_SESSION_STATE_OPEN:
			if now.Sub(s.closedAt) > ClosedSessionRetention {
				delete(b.sessions, id)
			}
		case now.Sub(s.created) >= s.ttl:
			expired = append(expired, s)
		case now.Sub(s.lastUsed) >= s.idle:
			idle = append(idle, s)
		}
		s.mu.Unlock()
	}
	b.mu.Unlock()
	ctx := context.Background()
	b.expireLeases()
	b.closeSessions(ctx, expired, brokerv1.CloseReason_CLOSE_REASON_TTL_EXPIRED)
	b.closeSessions(ctx, idle, brokerv1.CloseReason_CLOSE_REASON_IDLE_TIMEOUT)
}
