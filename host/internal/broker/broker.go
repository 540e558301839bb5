// Package broker is glovebox-broker's domain: the registered guests and their connections, sessions with
// their own default targets, control leases and generations, the per-guest fair mutation queue, policy and
// the audit trail of every computer request. The gRPC services in package service are thin facades over it.
package broker

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"glovebox.dev/host/internal/auth"
	"glovebox.dev/host/internal/config"
	"glovebox.dev/host/internal/guestconn"
	"glovebox.dev/host/internal/metrics"
	"glovebox.dev/host/internal/policy"
	"glovebox.dev/host/internal/recording"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
)

// Auditor is the audit log as the broker uses it: Append returns the record's sequence number once it is
// durable. package audit's *Log implements it, and also WrittenAuditor.
type Auditor interface {
	Append(ctx context.Context, rec *brokerv1.AuditRecord) (uint64, error)
}

// WrittenAuditor is an Auditor that can also return a record's sequence number once the record has its
// place in the guest's chain (written in order, durable with the group commit under way) without waiting
// for the disk: the broker uses it for observations, whose answers need not wait for an fsync (package
// audit's doc gives the reasoning). With a plain Auditor observations wait for Append.
type WrittenAuditor interface {
	Auditor
	AppendWritten(ctx context.Context, rec *brokerv1.AuditRecord) (uint64, error)
}

// Redactor turns a request or response into the redacted Struct stored in AuditRecord.args (audit.Redact
// with the broker's key).
type Redactor func(m proto.Message) *structpb.Struct

// Tuning of the broker's housekeeping.
const (
	// DefaultReapInterval is how often idle and expired sessions are looked for; session timeouts are at
	// least 10 s, so a second's lateness is noise.
	DefaultReapInterval = time.Second
	// ClosedSessionRetention keeps closed sessions visible to GetSession for 10 minutes (the contract).
	ClosedSessionRetention = 10 * time.Minute
	// releaseTimeout bounds the release_all sent when a session closes.
	releaseTimeout = 5 * time.Second
)

// Options configure a Broker.
type Options struct {
	Config *config.Config
	Audit  Auditor
	Redact Redactor
	// Fingerprint hashes requests for request_id retries (keyed); nil: request_id is not enforced by the
	// broker. When Audit is also a RequestLog, the retry index is rebuilt from it at start.
	Fingerprint Fingerprinter
	Logger      *slog.Logger
	// Metrics may be nil.
	Metrics *metrics.Metrics
	// ReapInterval overrides DefaultReapInterval (tests).
	ReapInterval time.Duration
	// Now overrides time.Now (tests of timeouts).
	Now func() time.Time
}

// Broker ties guests, sessions, control, policy and audit together.
type Broker struct {
	cfg    *config.Config
	audit  Auditor
	redact Redactor
	// fingerprint and retries: the request_id index (retry.go).
	fingerprint Fingerprinter
	retries     *retries
	log         *slog.Logger
	metrics     *metrics.Metrics
	gates       policy.Gates
	now         func() time.Time
	timeout     time.Duration
	// recs is the recordings store, nil when the policy records nothing.
	recs *recording.Store

	mu       sync.Mutex
	guests   map[string]*guest
	sessions map[string]*session
	closed   bool

	stop     chan struct{}
	reaperWG sync.WaitGroup
}

// New creates the broker and registers the config's guests (they connect in the background).
func New(o Options) (*Broker, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ReapInterval == 0 {
		o.ReapInterval = DefaultReapInterval
	}
	if o.Redact == nil {
		o.Redact = func(proto.Message) *structpb.Struct { return &structpb.Struct{} }
	}
	b := &Broker{
		cfg: o.Config, audit: o.Audit, redact: o.Redact, log: o.Logger, metrics: o.Metrics,
		fingerprint: o.Fingerprint, retries: newRetries(),
		gates:   newGates(o.Config.Policy),
		now:     o.Now,
		timeout: time.Duration(o.Config.GuestCallTimeout),
		guests:  map[string]*guest{}, sessions: map[string]*session{},
		stop: make(chan struct{}),
	}
	if rl, ok := o.Audit.(RequestLog); ok && b.fingerprint != nil {
		if err := b.retries.rebuild(rl, b.now()); err != nil {
			return nil, fmt.Errorf("request_id index: %w", err)
		}
	}
	var err error
	if b.recs, err = openRecordings(o.Config); err != nil {
		return nil, err
	}
	b.sealCut(context.Background())
	for _, g := range o.Config.Guests {
		if _, err := b.addGuest(g, "config"); err != nil {
			b.Close(context.Background())
			return nil, err
		}
	}
	b.reaperWG.Add(1)
	go b.reaper(o.ReapInterval)
	return b, nil
}

// Close closes every open session with BROKER_SHUTDOWN (releasing what they hold on their guests), then the
// guest connections. The audit log is the caller's to close afterwards.
func (b *Broker) Close(ctx context.Context) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	close(b.stop)
	var open []*session
	for _, s := range b.sessions {
		open = append(open, s)
	}
	guests := b.guests
	b.guests = map[string]*guest{}
	b.mu.Unlock()
	b.reaperWG.Wait()
	b.closeSessions(ctx, open, brokerv1.CloseReason_CLOSE_REASON_BROKER_SHUTDOWN)
	for _, g := range guests {
		g.mu.Lock()
		r := g.humanRec
		g.humanRec = nil
		g.mu.Unlock()
		b.seal(ctx, g, r)
		g.close(b.metrics)
	}
}

// caller returns the authenticated caller of ctx.
func caller(ctx context.Context) (*auth.Caller, error) {
	c := auth.CallerFrom(ctx)
	if c == nil || c.Principal == nil {
		return nil, fmt.Errorf("no authenticated principal: %w", errdefs.ErrPermissionDenied)
	}
	return c, nil
}

// lookupGuest returns the guest named name if the caller may use it.
func (b *Broker) lookupGuest(c *auth.Caller, name string) (*guest, error) {
	b.mu.Lock()
	g := b.guests[name]
	b.mu.Unlock()
	if g == nil || !(c.Principal.Admin || c.Principal.MayUse(name)) {
		// A guest the caller may not use is reported like an absent one: names are not disclosed.
		return nil, fmt.Errorf("guest %s: %w", quoteGuest(name), errdefs.ErrNotFound)
	}
	return g, nil
}

// sortedGuests returns the guests ordered by name.
func (b *Broker) sortedGuests() []*guest {
	b.mu.Lock()
	defer b.mu.Unlock()
	gs := make([]*guest, 0, len(b.guests))
	for _, g := range b.guests {
		gs = append(gs, g)
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i].name < gs[j].name })
	return gs
}

// appendAudit writes rec durably; the caller's cancellation does not stop it (a record half-decided is
// worse than a late one).
func (b *Broker) appendAudit(ctx context.Context, rec *brokerv1.AuditRecord) (uint64, error) {
	start := time.Now()
	seq, err := b.audit.Append(context.WithoutCancel(ctx), rec)
	b.metrics.AuditAppend(time.Since(start))
	if err != nil {
		b.log.Error("audit append", "guest", rec.GetGuest(), "rpc", rec.GetRpc(), "error", err)
		return 0, fmt.Errorf("audit log: %v: %w", err, errdefs.ErrUnavailable)
	}
	return seq, nil
}

// appendObservation records an observation: durable later, in order (see WrittenAuditor).
func (b *Broker) appendObservation(ctx context.Context, rec *brokerv1.AuditRecord) (uint64, error) {
	wa, ok := b.audit.(WrittenAuditor)
	if !ok {
		return b.appendAudit(ctx, rec)
	}
	start := time.Now()
	seq, err := wa.AppendWritten(context.WithoutCancel(ctx), rec)
	b.metrics.AuditAppend(time.Since(start))
	if err != nil {
		b.log.Error("audit append", "guest", rec.GetGuest(), "rpc", rec.GetRpc(), "error", err)
		return 0, fmt.Errorf("audit log: %v: %w", err, errdefs.ErrUnavailable)
	}
	return seq, nil
}

// connOptions are the guestconn options for guest g.
func (b *Broker) connOptions(g *guest) guestconn.Options {
	return guestconn.Options{
		Timeout: b.timeout,
		Logger:  b.log,
		OnReady: g.onReady,
		OnState: func(old, new brokerv1.GuestState) {
			b.metrics.GuestState(stateLabel(old), stateLabel(new))
			_, agentGen := g.generations()
			b.emit(g, func() *brokerv1.SessionEvent {
				return &brokerv1.SessionEvent{Kind: &brokerv1.SessionEvent_GuestStateChanged{GuestStateChanged: &brokerv1.GuestStateChanged{
					State: new, AgentGeneration: agentGen}}}
			})
		},
	}
}

func stateLabel(s brokerv1.GuestState) string {
	switch s {
	case brokerv1.GuestState_GUEST_STATE_CONNECTING:
		return "connecting"
	case brokerv1.GuestState_GUEST_STATE_READY:
		return "ready"
	case brokerv1.GuestState_GUEST_STATE_UNREACHABLE:
		return "unreachable"
	}
	return ""
}

// quoteGuest is a guest name a caller sent, quoted for an error message; a string that is not a guest name
// (the caller's text, of any size) is described by its size instead, so errors and the RPC log stay bounded.
func quoteGuest(name string) string {
	if config.ValidName(name, config.MaxGuestNameBytes, "-") {
		return strconv.Quote(name)
	}
	return fmt.Sprintf("(a name of %d bytes that is not a guest name)", len(name))
}
