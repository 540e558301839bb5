package broker

import (
	"context"
	"fmt"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/validate"
)

// The request_id window (the contract in computer.proto): how long and how many ids the broker answers
// retries for. The audit log is the durable memory; the index is rebuilt from it at start.
const (
	// RetryWindow is how long an id stays bound to the request that first reached its INTENT.
	RetryWindow = 24 * time.Hour
	// MaxRetainedRequests bounds the ids kept per principal and guest; the oldest are forgotten first.
	MaxRetainedRequests = 1024
	// maxKeptResponse bounds a recorded response kept in memory for replays; a bigger one is replayed
	// without its response (the log still has it).
	maxKeptResponse = 16 << 10
)

// RequestLog is the audit log read back at start to rebuild the request_id index: fn gets, in seq order,
// each of guest's records with a request_id written at or after since. package audit's *Log implements it.
type RequestLog interface {
	Guests() []string
	Recent(guest string, since time.Time, fn func(*brokerv1.AuditRecord) error) error
}

// Fingerprinter is a keyed hash of a request's content (package audit's Log.Fingerprint).
type Fingerprinter func(parts ...[]byte) string

// retryKey names a request_id: per principal and guest, whatever the session (sessions do not survive a
// broker restart, retries must).
type retryKey struct{ principal, guest, id string }

type retryState int

const (
	retryReserved    retryState = iota // first attempt past validation, no INTENT yet
	retryRunning                       // INTENT durable, no outcome yet
	retryDone                          // outcome known
	retryInterrupted                   // INTENT in the log without an OUTCOME: the broker stopped in between
)

type retryEntry struct {
	hash            string
	at              time.Time
	state           retryState
	intent, outcome uint64
	code, reason    string
	response        *structpb.Struct
}

// retries is the broker's request_id index.
type retries struct {
	mu      sync.Mutex
	entries map[retryKey]*retryEntry
	// order lists each principal's and guest's ids oldest first, for MaxRetainedRequests.
	order map[[2]string][]retryKey
}

func newRetries() *retries {
	return &retries{entries: map[retryKey]*retryEntry{}, order: map[[2]string][]retryKey{}}
}

// retry is a request's id and content hash, set on its call by the RPC.
type retry struct {
	key  retryKey
	hash string
}

// newRetry returns the retry of a request with request_id id (nil when id is not an id: validation refuses
// it). req is the wrapped agent request as the caller sent it and scope the broker request's own fields of
// its content; the hash leaves out what differs between sessions (session_id, the agent request's owner).
func (b *Broker) newRetry(cl *call, id string, scope []byte, req proto.Message) *retry {
	if b.fingerprint == nil || !validate.ValidID(id) {
		return nil
	}
	r := req.ProtoReflect()
	owner := r.Descriptor().Fields().ByName("owner")
	var saved protoreflect.Value
	if owner != nil {
		saved = r.Get(owner)
		r.Clear(owner)
	}
	enc, err := proto.MarshalOptions{Deterministic: true}.Marshal(req)
	if owner != nil && saved.IsValid() {
		r.Set(owner, saved)
	}
	if err != nil {
		return nil
	}
	return &retry{key: retryKey{cl.c.Principal.Name, cl.s.guest.name, id}, hash: b.fingerprint([]byte(cl.rpc), []byte{0}, scope, []byte{0}, enc)}
}

// requestIDViolation checks a broker-level request_id (Act's is in its agent request).
func requestIDViolation(id string) []errdefs.Violation {
	if id == "" || validate.ValidID(id) {
		return nil
	}
	return []errdefs.Violation{{Field: "request_id", Description: fmt.Sprintf("must be 1..%d bytes of [A-Za-z0-9._:-]", validate.MaxIDBytes)}}
}

// claim looks rt up: a first attempt is reserved (ok); anything else is answered without acting: a replay of
// the recorded outcome, or DUPLICATE_REQUEST (other content, or the first still running).
func (r *retries) claim(rt *retry, now time.Time) (e retryEntry, ok bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cur := r.entries[rt.key]
	if cur != nil && now.Sub(cur.at) > RetryWindow {
		delete(r.entries, rt.key)
		cur = nil
	}
	switch {
	case cur == nil:
		r.add(rt.key, &retryEntry{hash: rt.hash, at: now})
		return retryEntry{}, true, nil
	case cur.hash != rt.hash:
		return retryEntry{}, false, fmt.Errorf("request_id %q was used for a request with other content: %w", rt.key.id, errdefs.ErrDuplicateRequest)
	case cur.state == retryReserved || cur.state == retryRunning:
		return retryEntry{}, false, fmt.Errorf("request_id %q: the first attempt is still running: %w", rt.key.id, errdefs.ErrDuplicateRequest)
	}
	return *cur, false, nil
}

// add inserts e, forgetting the principal's and guest's oldest id beyond MaxRetainedRequests.
func (r *retries) add(k retryKey, e *retryEntry) {
	r.entries[k] = e
	pg := [2]string{k.principal, k.guest}
	q := append(r.order[pg], k)
	for len(q) > MaxRetainedRequests {
		if old := r.entries[q[0]]; old != nil && old != e {
			delete(r.entries, q[0])
		}
		q = q[1:]
	}
	r.order[pg] = q
}

// update changes rt's entry (if still its own) under the lock.
func (r *retries) update(rt *retry, fn func(e *retryEntry)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e := r.entries[rt.key]; e != nil && e.hash == rt.hash {
		fn(e)
	}
}

// release forgets a reservation that never reached its INTENT (refused, or the intent not written): the
// request did nothing, so the id may be used again.
func (r *retries) release(rt *retry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e := r.entries[rt.key]; e != nil && e.hash == rt.hash && e.state == retryReserved {
		delete(r.entries, rt.key)
	}
}

// rebuild fills the index from the audit log's last RetryWindow: an INTENT with a request_id binds it, its
// OUTCOME settles it; an INTENT left without an OUTCOME was cut short by a broker stop (interrupted).
func (r *retries) rebuild(l RequestLog, now time.Time) error {
	since := now.Add(-RetryWindow)
	for _, guest := range l.Guests() {
		byIntent := map[uint64]*retryEntry{}
		err := l.Recent(guest, since, func(rec *brokerv1.AuditRecord) error {
			switch rec.GetPhase() {
			case brokerv1.AuditPhase_AUDIT_PHASE_INTENT:
				e := &retryEntry{hash: rec.GetRequestHash(), at: rec.GetTime().AsTime(), state: retryInterrupted, intent: rec.GetSeq()}
				r.add(retryKey{rec.GetPrincipal(), guest, rec.GetRequestId()}, e)
				byIntent[rec.GetSeq()] = e
			case brokerv1.AuditPhase_AUDIT_PHASE_OUTCOME:
				if e := byIntent[rec.GetIntentSeq()]; e != nil {
					e.settle(rec.GetSeq(), rec.GetCode(), rec.GetReason(), rec.GetResponse())
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// settle records the outcome.
func (e *retryEntry) settle(seq uint64, code, reason string, response *structpb.Struct) {
	e.state, e.outcome, e.code, e.reason = retryDone, seq, code, reason
	if proto.Size(response) <= maxKeptResponse {
		e.response = response
	}
}

// replay answers a retry from its entry: the recorded error, or nil after filling the response through
// fill. It audits the answer as a COMPLETE record with replay_of (no args: the request_hash names it) and
// returns the seq the caller is answered with (the first attempt's OUTCOME).
func (b *Broker) replay(ctx context.Context, cl *call, e retryEntry, fill func(*structpb.Struct) error) (uint64, error) {
	var err error
	of := e.outcome
	switch {
	case e.state == retryInterrupted:
		of = e.intent
		err = errgrpc.WithMetadata(fmt.Errorf("request_id %q: the broker stopped while the first attempt (audit seq %d) was in flight, so its outcome is unknown; observe, then act with a new request_id: %w",
			cl.retry.key.id, e.intent, errdefs.ErrInterrupted), map[string]string{"outcome": "unknown", "intent_seq": fmt.Sprint(e.intent)})
	case e.code != "OK":
		// The recorded class, else the bare code (a guest error without a Glovebox reason).
		var class error = status.Error(codeByName(e.code), e.code)
		if c := errdefs.FromReason(errgrpc.ParseReason(e.reason)); c != nil {
			class = c
		}
		err = fmt.Errorf("request_id %q was answered %s before (audit seq %d); not done again: %w", cl.retry.key.id, e.code, e.outcome, class)
	case fill != nil:
		if ferr := fill(e.response); ferr != nil {
			b.log.Warn("replay: recorded response", "rpc", cl.rpc, "seq", e.outcome, "error", ferr)
		}
	}
	cl.replayed = true
	code, reason := outcome(err)
	rec := &brokerv1.AuditRecord{
		Guest: cl.s.guest.name, Phase: brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE, Rpc: cl.rpc, SessionId: cl.s.id,
		Principal: cl.c.Principal.Name, Code: code, Reason: reason, DurationUs: time.Since(cl.start).Microseconds(),
		RequestId: cl.retry.key.id, RequestHash: cl.retry.hash, ReplayOf: of,
	}
	if _, aerr := b.appendObservation(ctx, rec); aerr != nil && err == nil {
		return 0, aerr
	}
	return of, err
}

// fromRecorded fills m from a response as the audit log recorded it: values the log keeps only as length +
// keyed hash (or size + keyed hash) are left out, everything else is as it was sent.
func fromRecorded(st *structpb.Struct, m proto.Message) error {
	if st == nil {
		return nil
	}
	st = proto.CloneOf(st)
	stripRedacted(st)
	b, err := protojson.Marshal(st)
	if err != nil {
		return err
	}
	return protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(b, m)
}

// stripRedacted removes every redacted value (an object with an "hmac_sha256" member) from st.
func stripRedacted(st *structpb.Struct) {
	for k, v := range st.GetFields() {
		if redactedValue(v) {
			delete(st.Fields, k)
			continue
		}
		stripValue(v)
	}
}

func stripValue(v *structpb.Value) {
	switch x := v.GetKind().(type) {
	case *structpb.Value_StructValue:
		stripRedacted(x.StructValue)
	case *structpb.Value_ListValue:
		kept := x.ListValue.GetValues()[:0]
		for _, e := range x.ListValue.GetValues() {
			if !redactedValue(e) {
				stripValue(e)
				kept = append(kept, e)
			}
		}
		x.ListValue.Values = kept
	}
}

func redactedValue(v *structpb.Value) bool {
	_, ok := v.GetStructValue().GetFields()["hmac_sha256"]
	return ok
}

// recordedResponse is the redacted response an OUTCOME of a request with a request_id keeps.
func (b *Broker) recordedResponse(cl *call, err error) *structpb.Struct {
	if cl.retry == nil || err != nil || cl.response == nil {
		return nil
	}
	return b.args(cl.response)
}

// codeByName is the gRPC code whose canonical name (codeName) is name; Unknown for none.
func codeByName(name string) codes.Code {
	for c := codes.OK; c <= codes.Unauthenticated; c++ {
		if codeName(c) == name {
			return c
		}
	}
	return codes.Unknown
}
