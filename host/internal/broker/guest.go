package broker

import (
	"context"
	"fmt"
	"maps"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"glovebox.dev/host/internal/config"
	"glovebox.dev/host/internal/guestconn"
	"glovebox.dev/host/internal/metrics"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
)

// guest is a registered guest: its connection, input queue, control lease and generations.
type guest struct {
	name     string
	endpoint string
	labels   map[string]string
	source   string
	conn     *guestconn.Conn
	queue    *mutationQueue

	mu sync.Mutex
	// gen is the broker generation: bumped when control is released and when the agent restarts.
	gen uint64
	// agentGen is the agent's own generation at the last handshake; frozen targets carry it so the agent
	// re-checks it just before input.
	agentGen uint64
	lease    *brokerv1.ControlLease
	gone     bool

	// snapshots binds the snapshot ids handed out to their generation (its own lock, taken inside mu).
	snapshots snapshotGenerations
	// help holds the guest's help requests: pending and taken ones, and the last answered or cancelled.
	help []*brokerv1.HelpRequest
	// hideScreen refuses session observations while a human holds the guest (policy hide_screen_while_held).
	hideScreen bool
	// humanRec is the recording of the current control lease's console input (recording.go).
	humanRec *recorder
}

// onReady is called by the connection after each handshake.
func (g *guest) onReady(info *agentv1.GetInfoResponse, restarted bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.agentGen = info.GetGeneration()
	if restarted {
		g.gen++
	}
}

// generations returns the broker and agent generations.
func (g *guest) generations() (broker, agent uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.gen, g.agentGen
}

// screenHidden refuses a session's observation with ErrControlHeld while a human holds a guest whose policy
// hides the screen meanwhile (credentials may be on it); the console's own view is not a session's.
func (g *guest) screenHidden() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.hideScreen && g.lease != nil {
		return fmt.Errorf("guest %s is controlled by %s and hides its screen meanwhile: %w", g.name, g.lease.GetHolder(), errdefs.ErrControlHeld)
	}
	return nil
}

// controlHeld returns an error wrapping ErrControlHeld while a human holds the guest.
func (g *guest) controlHeld() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.lease != nil {
		return fmt.Errorf("guest %s is controlled by %s: %w", g.name, g.lease.GetHolder(), errdefs.ErrControlHeld)
	}
	return nil
}

func (g *guest) close(m *metrics.Metrics) {
	g.mu.Lock()
	g.gone = true
	g.mu.Unlock()
	state := g.conn.Status().State
	g.conn.Close()
	m.GuestState(stateLabel(state), "")
}

// addGuest registers a guest and starts connecting.
func (b *Broker) addGuest(cg config.Guest, source string) (*guest, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, fmt.Errorf("broker shutting down: %w", errdefs.ErrUnavailable)
	}
	if _, ok := b.guests[cg.Name]; ok {
		return nil, &errdefs.BadRequest{Violations: []errdefs.Violation{{Field: "name", Description: fmt.Sprintf("guest %q already exists", cg.Name)}}}
	}
	g := &guest{name: cg.Name, endpoint: cg.Endpoint, labels: maps.Clone(cg.Labels), source: source, gen: 1,
		hideScreen: cg.HideScreenWhileHeld}
	g.queue = newMutationQueue(cg.Name, b.metrics)
	conn, err := guestconn.New(cg.Name, cg.Endpoint, b.connOptions(g))
	if err != nil {
		return nil, &errdefs.BadRequest{Violations: []errdefs.Violation{{Field: "endpoint", Description: err.Error()}}}
	}
	g.conn = conn
	b.metrics.GuestState("", stateLabel(brokerv1.GuestState_GUEST_STATE_CONNECTING))
	b.guests[cg.Name] = g
	b.log.Info("guest registered", "guest", cg.Name, "endpoint", cg.Endpoint, "source", source)
	return g, nil
}

// RegisterGuest adds a guest (RegisterGuest RPC). Only admins may register guests.
func (b *Broker) RegisterGuest(ctx context.Context, r *brokerv1.RegisterGuestRequest) (*brokerv1.Guest, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	if !c.Principal.Admin {
		return nil, fmt.Errorf("principal %s may not register guests: %w", c.Principal.Name, errdefs.ErrPolicyDenied)
	}
	cg := config.Guest{Name: r.GetName(), Endpoint: r.GetEndpoint(), Labels: r.GetLabels()}
	var v errdefs.Violations
	config.CheckGuest(&v, "", cg)
	if err := v.Err(); err != nil {
		return nil, trimDot(err)
	}
	c.Guest = cg.Name
	g, err := b.addGuest(cg, "api")
	if err != nil {
		return nil, err
	}
	return b.guestProto(g), nil
}

// trimDot removes the leading "." CheckGuest puts on field names when called with an empty prefix.
func trimDot(err error) error {
	br, ok := err.(*errdefs.BadRequest)
	if !ok {
		return err
	}
	for i := range br.Violations {
		if f := br.Violations[i].Field; len(f) > 0 && f[0] == '.' {
			br.Violations[i].Field = f[1:]
		}
	}
	return br
}

// UnregisterGuest closes the guest's sessions (GUEST_GONE) and its connection (admins only).
func (b *Broker) UnregisterGuest(ctx context.Context, name string) error {
	c, err := caller(ctx)
	if err != nil {
		return err
	}
	c.Guest = name
	if !c.Principal.Admin {
		return fmt.Errorf("principal %s may not unregister guests: %w", c.Principal.Name, errdefs.ErrPolicyDenied)
	}
	b.mu.Lock()
	g := b.guests[name]
	if g == nil {
		b.mu.Unlock()
		return fmt.Errorf("guest %s: %w", quoteGuest(name), errdefs.ErrNotFound)
	}
	delete(b.guests, name)
	var open []*session
	for _, s := range b.sessions {
		if s.guest == g && s.isOpen() {
			open = append(open, s)
		}
	}
	b.mu.Unlock()
	b.closeSessions(ctx, open, brokerv1.CloseReason_CLOSE_REASON_GUEST_GONE)
	g.close(b.metrics)
	b.log.Info("guest unregistered", "guest", name)
	return nil
}

// GetGuest returns one guest the caller may use.
func (b *Broker) GetGuest(ctx context.Context, name string) (*brokerv1.Guest, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	c.Guest = name
	g, err := b.lookupGuest(c, name)
	if err != nil {
		return nil, err
	}
	return b.guestProto(g), nil
}

// ListGuests returns the guests the caller may use, by name.
func (b *Broker) ListGuests(ctx context.Context) ([]*brokerv1.Guest, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	var out []*brokerv1.Guest
	for _, g := range b.sortedGuests() {
		if c.Principal.Admin || c.Principal.MayUse(g.name) {
			out = append(out, b.guestProto(g))
		}
	}
	return out, nil
}

func (b *Broker) guestProto(g *guest) *brokerv1.Guest {
	st := g.conn.Status()
	g.mu.Lock()
	out := &brokerv1.Guest{
		Name: g.name, Endpoint: g.endpoint, Labels: maps.Clone(g.labels),
		State: st.State, LastError: st.LastError, StateSince: timestamppb.New(st.Since),
		Generation: g.gen, ControlHeld: g.lease != nil, Source: g.source,
	}
	g.mu.Unlock()
	if st.Info != nil {
		// One generation per guest on the broker API: the agent's own counter (its start time) is replaced by
		// the broker's, the one every target, snapshot and lease carries.
		out.Agent = proto.CloneOf(st.Info)
		out.Agent.Generation = out.Generation
	}
	b.mu.Lock()
	for _, s := range b.sessions {
		if s.guest == g && s.isOpen() {
			out.OpenSessions++
		}
	}
	b.mu.Unlock()
	return out
}

// MayAudit returns nil when the caller may read the guest's audit log: admins always, principals with audit
// rights for guests they may use. The guest need not be registered any more (its log outlives it).
func (b *Broker) MayAudit(ctx context.Context, guest string) error {
	c, err := caller(ctx)
	if err != nil {
		return err
	}
	c.Guest = guest
	if c.Principal.Admin || c.Principal.Audit && c.Principal.MayUse(guest) {
		return nil
	}
	return fmt.Errorf("principal %s may not read the audit log of %q: %w", c.Principal.Name, guest, errdefs.ErrPermissionDenied)
}
