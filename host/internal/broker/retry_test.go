package broker

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"glovebox.dev/host/internal/audit"
	"glovebox.dev/host/internal/config"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// loggedBroker is a broker over one fake agent with a real audit log in dir (request_id enforced).
func loggedBroker(t *testing.T, a *fakeAgent, dir string) (*testBroker, *audit.Log) {
	t.Helper()
	key, err := audit.LoadOrCreateKey(dir + "/audit.key")
	if err != nil {
		t.Fatal(err)
	}
	log, err := audit.Open(dir+"/log", key, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tb := newTestBroker(t, testConfig(config.Guest{Name: "g1", Endpoint: a.endpoint()}), func(o *Options) {
		o.Audit, o.Redact, o.Fingerprint = log, log.Redact, log.Fingerprint
	})
	return tb, log
}

// TestRetryGetAppLaunchAndListBrowsers: GetApp with launch and ListBrowsers with start_default take a
// request_id like Act: a retry is answered from the log (the agent asked once), also by a broker restarted
// on the same log from a new session, errors included; other content is DUPLICATE_REQUEST; a request_id
// that is not an id is refused naming the field.
func TestRetryGetAppLaunchAndListBrowsers(t *testing.T) {
	a := startFakeAgent(t)
	dir := t.TempDir()
	tb, log := loggedBroker(t, a, dir)
	ctx := tb.as("agent")
	s := tb.session(t, "agent", "g1")
	cur := tb
	launch := func(s, id, name string) (*brokerv1.GetAppResponse, error) {
		return cur.GetApp(ctx, &brokerv1.GetAppRequest{SessionId: s, RequestId: id, Request: &agentv1.GetAppRequest{Name: name, Launch: true}})
	}
	start := func(s, id string) (*brokerv1.ListBrowsersResponse, error) {
		return cur.ListBrowsers(ctx, &brokerv1.ListBrowsersRequest{SessionId: s, RequestId: id, Request: &agentv1.ListBrowsersRequest{StartDefault: true}})
	}
	calls := func() int {
		a.mu.Lock()
		defer a.mu.Unlock()
		return len(a.a11y)
	}
	first, err := launch(s, "l-1", "gedit")
	if err != nil || calls() != 1 {
		t.Fatalf("launch: %v, %d agent calls", err, calls())
	}
	_, browserErr := start(s, "b-1") // the fake agent has no ListBrowsers: an error to replay
	if status.Code(errgrpc.Error(browserErr)) != codes.Unimplemented {
		t.Fatalf("ListBrowsers on the fake agent: %v, want UNIMPLEMENTED", browserErr)
	}
	check := func(s, step string) {
		t.Helper()
		got, err := launch(s, "l-1", "gedit")
		if err != nil || !got.GetReplayed() || got.GetAuditSeq() != first.GetAuditSeq() || got.GetResponse().GetPid() != 42 || !got.GetResponse().GetLaunched() || calls() != 1 {
			t.Errorf("%s: launch retry = %v, %v (%d agent calls), want the first answer replayed", step, got, err, calls())
		}
		if _, err := launch(s, "l-1", "mousepad"); !errors.Is(err, errdefs.ErrDuplicateRequest) {
			t.Errorf("%s: same id, other app: %v, want DUPLICATE_REQUEST", step, err)
		}
		if got, err := start(s, "b-1"); status.Code(errgrpc.Error(err)) != codes.Unimplemented || got != nil {
			t.Errorf("%s: ListBrowsers retry = %v, %v; want the first error (%v) replayed", step, got, err, browserErr)
		}
	}
	check(s, "same broker")
	if _, err := launch(s, "not an id!", "gedit"); !errors.Is(err, errdefs.ErrInvalidArgument) {
		t.Errorf("bad request_id: %v, want INVALID_ARGUMENT", err)
	}

	tb.Close(context.Background())
	log.Close()
	cur, _ = loggedBroker(t, a, dir)
	check(cur.session(t, "agent", "g1"), "restarted broker")
	var intents int
	_ = audit.Scan(dir+"/log", "g1", 1, func(rec *brokerv1.AuditRecord) error {
		if rec.GetRequestId() == "l-1" && rec.GetPhase() == brokerv1.AuditPhase_AUDIT_PHASE_INTENT {
			intents++
		}
		return nil
	})
	if intents != 1 {
		t.Errorf("l-1 has %d INTENT records, want 1", intents)
	}
}

// TestRetryWindow: an id is forgotten after RetryWindow and beyond MaxRetainedRequests per principal and
// guest, oldest first.
func TestRetryWindow(t *testing.T) {
	r := newRetries()
	now := time.Now()
	rt := func(i int) *retry {
		return &retry{key: retryKey{"p", "g", string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))}, hash: "h"}
	}
	for i := range MaxRetainedRequests + 1 {
		if _, first, err := r.claim(rt(i), now); !first || err != nil {
			t.Fatalf("claim %d: first=%v %v", i, first, err)
		}
		r.update(rt(i), func(e *retryEntry) { e.settle(uint64(i+1), "OK", "", nil) })
	}
	if _, first, _ := r.claim(rt(0), now); !first {
		t.Errorf("the oldest of %d ids is still bound", MaxRetainedRequests+1)
	}
	if e, first, _ := r.claim(rt(MaxRetainedRequests), now); first || e.outcome != MaxRetainedRequests+1 {
		t.Errorf("the newest id is forgotten")
	}
	if _, first, _ := r.claim(rt(MaxRetainedRequests), now.Add(RetryWindow+time.Second)); !first {
		t.Errorf("an id is still bound after RetryWindow")
	}
}
