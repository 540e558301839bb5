package broker

import (
	"context"
	"errors"
	"fmt"

	"glovebox.dev/host/internal/config"
	"glovebox.dev/host/internal/policy"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/actions"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// Full method names of the browser surface, as recorded in the audit log.
const (
	RPCListBrowsers = "/glovebox.broker.v1.ComputerService/ListBrowsers"
	RPCGetBrowser   = "/glovebox.broker.v1.ComputerService/GetBrowser"
	RPCListTabs     = "/glovebox.broker.v1.ComputerService/ListTabs"
	RPCSnapshotTab  = "/glovebox.broker.v1.ComputerService/SnapshotTab"
	RPCExtract      = "/glovebox.broker.v1.ComputerService/Extract"
	RPCCaptureTab   = "/glovebox.broker.v1.ComputerService/CaptureTab"
)

// newGates builds the policy gates from the config: confirmation gates and the navigation policy.
func newGates(p config.Policy) policy.Gates {
	g := policy.NewGates(p.ConfirmButtons, *p.ConfirmSecrets)
	g.Navigation = policy.NewNavigation(p.NavigationSchemes, p.NavigationOrigins)
	return g
}

// sessionTab is the session's default tab, nil when its default target is not a tab.
func sessionTab(s *session) *agentv1.TabTarget {
	return s.defaultTarget().GetTab()
}

// pageTarget makes a page action's tab and the request target agree before validation and freezing:
//   - a page action naming its tab makes that tab the request's (explicit) target;
//   - a page action without a tab takes the request's tab target, else the session's default tab (freezing then
//     reports source SESSION);
//   - new_tab without a browser takes the browser of the same.
func pageTarget(s *session, r *agentv1.ActRequest) {
	if nt := r.GetNewTab(); nt != nil {
		if nt.GetBrowserId() == "" {
			if t := r.GetTarget().GetTab(); t != nil {
				nt.BrowserId = t.GetBrowserId()
			} else if t := sessionTab(s); t != nil {
				nt.BrowserId = t.GetBrowserId()
			}
		}
		return
	}
	ref, path := actions.TabOf(r)
	if path == "" {
		return
	}
	if ref.GetBrowserId() != "" || ref.GetTabId() != "" {
		if r.GetTarget().GetKind() == nil {
			if r.Target == nil {
				r.Target = &agentv1.Target{}
			}
			r.Target.Kind = &agentv1.Target_Tab{Tab: &agentv1.TabTarget{BrowserId: ref.GetBrowserId(), TabId: ref.GetTabId()}}
		}
		return
	}
	t := r.GetTarget().GetTab()
	if t == nil && r.GetTarget().GetKind() == nil {
		t = sessionTab(s)
	}
	if t != nil {
		actions.SetTab(r, &agentv1.TabRef{BrowserId: t.GetBrowserId(), TabId: t.GetTabId()})
	}
}

// readTab fills a read's missing tab from the session's default tab and sets the call's target.
func readTab(cl *call, tab **agentv1.TabRef) {
	src := agentv1.TargetSource_TARGET_SOURCE_EXPLICIT
	if (*tab).GetBrowserId() == "" && (*tab).GetTabId() == "" {
		if t := sessionTab(cl.s); t != nil {
			*tab = &agentv1.TabRef{BrowserId: t.GetBrowserId(), TabId: t.GetTabId()}
			src = agentv1.TargetSource_TARGET_SOURCE_SESSION
		}
	}
	gen, _ := cl.s.guest.generations()
	cl.target = &agentv1.FrozenTarget{BrowserId: (*tab).GetBrowserId(), TabId: (*tab).GetTabId(), Source: src, Generation: gen}
}

// ListBrowsers lists the guest's browsers: an observation, or a mutation when it may start the default one.
func (b *Broker) ListBrowsers(ctx context.Context, r *brokerv1.ListBrowsersRequest) (*brokerv1.ListBrowsersResponse, error) {
	var start *call
	var replayed bool
	resp, seq, err := run(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.ListBrowsersRequest, *agentv1.ListBrowsersResponse]{
		rpc:       RPCListBrowsers,
		requestID: r.GetRequestId(),
		replayed:  &replayed,
		check:     validate.ListBrowsers,
		prepare: func(_ *call, req *agentv1.ListBrowsersRequest) []errdefs.Violation {
			if !req.GetStartDefault() {
				return nil // request_id is only read when the default browser may be started
			}
			return requestIDViolation(r.GetRequestId())
		},
		mutation: func(cl *call, req *agentv1.ListBrowsersRequest) (mutation, bool) {
			if !req.GetStartDefault() {
				return mutation{}, false
			}
			start = cl
			gen, _ := cl.s.guest.generations()
			cl.target = &agentv1.FrozenTarget{Source: agentv1.TargetSource_TARGET_SOURCE_EXPLICIT, Generation: gen}
			return mutation{}, true
		},
		send: func(ctx context.Context, c guestClients, req *agentv1.ListBrowsersRequest) (*agentv1.ListBrowsersResponse, error) {
			return c.Browser.ListBrowsers(ctx, req)
		},
		answered: func(cl *call, resp *agentv1.ListBrowsersResponse) {
			if cl == start {
				resp.Target = reportTarget(cl, resp.GetTarget())
				cl.target = resp.Target
			}
		},
	})
	if err != nil {
		return nil, err
	}
	var timing *brokerv1.MutationTiming
	if start != nil {
		timing = start.timing
	}
	return &brokerv1.ListBrowsersResponse{Response: resp, AuditSeq: seq, Timing: timing, Replayed: replayed}, nil
}

// GetBrowser finds a browser by id or a tab by URL (an observation).
func (b *Broker) GetBrowser(ctx context.Context, r *brokerv1.GetBrowserRequest) (*brokerv1.GetBrowserResponse, error) {
	resp, seq, err := run(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.GetBrowserRequest, *agentv1.GetBrowserResponse]{
		rpc:   RPCGetBrowser,
		check: validate.GetBrowser,
		send: func(ctx context.Context, c guestClients, req *agentv1.GetBrowserRequest) (*agentv1.GetBrowserResponse, error) {
			return c.Browser.GetBrowser(ctx, req)
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.GetBrowserResponse{Response: resp, AuditSeq: seq}, nil
}

// ListTabs lists a browser's tabs (an observation); no browser_id: the session default tab's browser.
func (b *Broker) ListTabs(ctx context.Context, r *brokerv1.ListTabsRequest) (*brokerv1.ListTabsResponse, error) {
	resp, seq, err := run(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.ListTabsRequest, *agentv1.ListTabsResponse]{
		rpc: RPCListTabs,
		prepare: func(cl *call, req *agentv1.ListTabsRequest) []errdefs.Violation {
			if t := sessionTab(cl.s); t != nil && req.GetBrowserId() == "" {
				req.BrowserId = t.GetBrowserId()
			}
			return nil
		},
		check: validate.ListTabs,
		send: func(ctx context.Context, c guestClients, req *agentv1.ListTabsRequest) (*agentv1.ListTabsResponse, error) {
			return c.Browser.ListTabs(ctx, req)
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.ListTabsResponse{Response: resp, AuditSeq: seq}, nil
}

// SnapshotTab snapshots a tab (an observation); no tab: the session's default tab.
func (b *Broker) SnapshotTab(ctx context.Context, r *brokerv1.SnapshotTabRequest) (*brokerv1.SnapshotTabResponse, error) {
	resp, seq, err := run(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.SnapshotTabRequest, *agentv1.SnapshotTabResponse]{
		rpc:     RPCSnapshotTab,
		prepare: func(cl *call, req *agentv1.SnapshotTabRequest) []errdefs.Violation { readTab(cl, &req.Tab); return nil },
		check:   validate.SnapshotTab,
		snapshots: func(req *agentv1.SnapshotTabRequest) []actions.SnapshotRef {
			return optionSnapshots("options", req.GetOptions())
		},
		send: func(ctx context.Context, c guestClients, req *agentv1.SnapshotTabRequest) (*agentv1.SnapshotTabResponse, error) {
			return c.Browser.SnapshotTab(ctx, req)
		},
		answered: func(cl *call, resp *agentv1.SnapshotTabResponse) { stampSnapshot(cl, resp.GetSnapshot()) },
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.SnapshotTabResponse{Response: resp, AuditSeq: seq}, nil
}

// Extract returns a tab's content (an observation; the content is not audited).
func (b *Broker) Extract(ctx context.Context, r *brokerv1.ExtractRequest) (*brokerv1.ExtractResponse, error) {
	resp, seq, err := run(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.ExtractRequest, *agentv1.ExtractResponse]{
		rpc:     RPCExtract,
		prepare: func(cl *call, req *agentv1.ExtractRequest) []errdefs.Violation { readTab(cl, &req.Tab); return nil },
		check:   validate.Extract,
		send: func(ctx context.Context, c guestClients, req *agentv1.ExtractRequest) (*agentv1.ExtractResponse, error) {
			return c.Browser.Extract(ctx, req)
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.ExtractResponse{Response: resp, AuditSeq: seq}, nil
}

// CaptureTab captures a tab (an observation).
func (b *Broker) CaptureTab(ctx context.Context, r *brokerv1.CaptureTabRequest) (*brokerv1.CaptureTabResponse, error) {
	resp, seq, err := run(ctx, b, r.GetSessionId(), r.GetRequest(), op[*agentv1.CaptureTabRequest, *agentv1.CaptureTabResponse]{
		rpc:     RPCCaptureTab,
		prepare: func(cl *call, req *agentv1.CaptureTabRequest) []errdefs.Violation { readTab(cl, &req.Tab); return nil },
		check:   validate.CaptureTab,
		send: func(ctx context.Context, c guestClients, req *agentv1.CaptureTabRequest) (*agentv1.CaptureTabResponse, error) {
			return c.Browser.CaptureTab(ctx, req)
		},
	})
	if err != nil {
		return nil, err
	}
	return &brokerv1.CaptureTabResponse{Response: resp, AuditSeq: seq}, nil
}

// checkDefaultTab checks that a session default tab names a browser discovery returns and one of its tabs
// (ListTabs through the guest connection), so a typo fails when the default is set rather than at every
// later page action.
func checkDefaultTab(ctx context.Context, s *session, t *agentv1.TabTarget) error {
	var v errdefs.Violations
	if validate.Engine(t.GetBrowserId()) == "" {
		v.Addf("default_target.tab.browser_id", "a browser id chrome-<port> or firefox-<port> from ListBrowsers is required")
	}
	if t.GetTabId() == "" {
		v.Addf("default_target.tab.tab_id", "required")
	}
	if err := v.Err(); err != nil {
		return err
	}
	var tabs *agentv1.ListTabsResponse
	err := s.guest.conn.Call(ctx, 0, func(ctx context.Context, cl guestClients) error {
		var err error
		tabs, err = cl.Browser.ListTabs(ctx, &agentv1.ListTabsRequest{BrowserId: t.GetBrowserId()})
		return err
	})
	if errors.Is(err, errdefs.ErrNotFound) {
		return fmt.Errorf("default_target.tab.browser_id %s is not a browser on guest %s: %w", t.GetBrowserId(), s.guest.name, errdefs.ErrNotFound)
	}
	if err != nil {
		return err
	}
	for _, tab := range tabs.GetTabs() {
		if tab.GetTabId() == t.GetTabId() {
			return nil
		}
	}
	return fmt.Errorf("default_target.tab.tab_id %s is not a tab of %s on guest %s: %w", t.GetTabId(), t.GetBrowserId(), s.guest.name, errdefs.ErrNotFound)
}
