package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// Tab limits.
const (
	// maxConsole bounds the console messages buffered per tab; the oldest go first.
	maxConsole = 1000
	// maxConsoleText bounds one console message's text.
	maxConsoleText = 4096
	// maxOldSnapshots bounds the superseded snapshot ids a tab remembers, to answer SNAPSHOT_SUPERSEDED
	// rather than STALE_REF for them.
	maxOldSnapshots = 64
)

// tab is one attached page target with its own flat session. Its snapshots and held keys are its own; nothing
// here ever acts on another tab.
type tab struct {
	c  *chrome
	id target.ID
	s  session
	// group is the object group of the action running on the tab, prevGroup the one before (see nextGroup);
	// actions counts the tab's actions. Actions are serialized by the agent's mutation queue.
	group, prevGroup string
	actions          int
	// objects are the page objects resolved for the newest snapshot's refs (see resolveCached); objectsOf is
	// that snapshot's id.
	objects   map[refLoc]pageObject
	objectsOf string
	// refs are the tab's snapshots; its navigation count counts main-frame navigations (Page.frameNavigated
	// without a parent).
	refs Refs[refLoc]

	mu sync.Mutex
	// host runs the scripts of the frames in the tab's process; oopifs are the attached out-of-process
	// iframes by frame id (frames.go). frameSignal is closed when either changes.
	host        *frameHost
	oopifs      map[cdp.FrameID]*frameHost
	frameSignal chan struct{}
	gone        bool
	// closed is closed when the session ends (the tab closed, the browser exited or we detached): an action
	// waiting on the tab stops waiting.
	closed chan struct{}
	// crashed is closed while the tab's page is crashed (Inspector.targetCrashed; a new one replaces it when
	// the page is reloaded) and when the session ends: a crashed page answers no command, a call on it fails
	// at once.
	crashed chan struct{}
	console []*agentv1.ConsoleMessage
}

// attach opens our session on a tab: Page (navigation and lifecycle events), Runtime (console, and the functions snapshots
// and actions call) and Inspector (crash events) are enabled on it, and auto-attach of its out-of-process iframes
// (frames.go), nothing else.
func attach(ctx context.Context, c *chrome, id target.ID) (*tab, error) {
	flat := true
	res, err := cdp.Call(ctx, c.root(), target.AttachToTarget, target.AttachToTargetParams{TargetID: id, Flatten: &flat})
	if err != nil {
		return nil, fmt.Errorf("attach tab %s: %w", id, err)
	}
	t := &tab{c: c, id: id, closed: make(chan struct{}), crashed: make(chan struct{})}
	t.s = session{c: c.conn, id: res.SessionID, down: t.down}
	t.host = newFrameHost(t, t.s)
	c.conn.handle(res.SessionID, t.event)
	methods := []command{{method: "Page.enable"}, {method: "Runtime.enable"}, {method: "Inspector.enable"},
		{method: "Page.setLifecycleEventsEnabled", params: page.SetLifecycleEventsEnabledParams{Enabled: true}},
		{method: target.CommandSetAutoAttach, params: autoAttach}}
	errs := make(chan error, len(methods))
	for _, m := range methods {
		go func() { errs <- t.s.Call(ctx, m.method, m.params, nil) }()
	}
	for range methods {
		if e := <-errs; e != nil && err == nil {
			err = e
		}
	}
	if err != nil {
		t.detach(ctx)
		return nil, fmt.Errorf("attach tab %s: %w", id, err)
	}
	return t, nil
}

// detach ends our session; the tab stays open.
func (t *tab) detach(ctx context.Context) {
	t.c.conn.handle(t.s.id, nil)
	cdp.Call(ctx, t.c.root(), target.DetachFromTarget, target.DetachFromTargetParams{SessionID: t.s.id})
}

func (t *tab) alive() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.gone && t.c.conn.alive()
}

// down answers a channel closed when the tab's session ended or its page crashed.
func (t *tab) down() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.crashed
}

// loader is the tab's session for commands that load a document (navigate, reload): the browser answers them
// on a crashed page too, and they bring it back.
func (t *tab) loader() session {
	return session{c: t.s.c, id: t.s.id, down: func() <-chan struct{} { return t.closed }}
}

// goneErr is the error of an action that was waiting on the tab when its session ended.
func (t *tab) goneErr(what string) error {
	return errgrpc.WithCause(fmt.Errorf("%s: tab %s of %s closed: %w", what, t.id, t.c.id(), errdefs.ErrTargetGone), errgrpc.CauseClosed)
}

// because gives *err, when it is TARGET_GONE without a cause, the tab's: closed (its session ended) or crashed
// (its page crashed; navigate or reload brings it back). Deferred by the backend's calls on a tab.
func (t *tab) because(err *error) {
	if *err == nil || !errors.Is(*err, errdefs.ErrTargetGone) || errgrpc.Metadata(*err)[errgrpc.MetaCause] != "" {
		return
	}
	select {
	case <-t.closed:
		*err = errgrpc.WithCause(*err, errgrpc.CauseClosed)
		return
	default:
	}
	select {
	case <-t.down():
		*err = errgrpc.WithCause(fmt.Errorf("tab %s of %s crashed (navigate or reload brings it back): %w", t.id, t.c.id(), *err), errgrpc.CauseCrashed)
	default:
	}
}

func (t *tab) tabKey() tabKey { return tabKey{t.c.port, t.id} }

// event handles the session's events on the connection's reader goroutine: it must not call the browser.
func (t *tab) event(method string, params jsonv2.Value) {
	switch method {
	case "Runtime.executionContextCreated", "Runtime.executionContextDestroyed", "Runtime.executionContextsCleared", "Target.attachedToTarget":
		t.host.event(method, params)
	case "Target.detachedFromTarget":
		if params != nil {
			// An OOPIF of the tab detaching is told on the tab's session too: only our own session's end is the tab's.
			var ev target.EventDetachedFromTarget
			if jsonv2.Unmarshal(params, &ev, chromedp.DefaultUnmarshalOptions) == nil && ev.SessionID != t.s.id {
				return
			}
		}
		t.mu.Lock()
		if !t.gone {
			t.gone = true
			close(t.closed)
			select {
			case <-t.crashed:
			default:
				close(t.crashed)
			}
		}
		t.mu.Unlock()
		t.c.forget(t)
	case "Inspector.targetCrashed":
		t.mu.Lock()
		select {
		case <-t.crashed:
		default:
			close(t.crashed)
		}
		t.mu.Unlock()
	case "Inspector.targetReloadedAfterCrash":
		t.mu.Lock()
		select {
		case <-t.crashed:
			if !t.gone {
				t.crashed = make(chan struct{})
			}
		default:
		}
		t.mu.Unlock()
	case "Page.frameNavigated":
		var ev struct {
			Frame struct {
				ParentID string `json:"parentId"`
			} `json:"frame"`
		}
		if jsonv2.Unmarshal(params, &ev, chromedp.DefaultUnmarshalOptions) == nil && ev.Frame.ParentID == "" {
			t.invalidate()
		}
	case "Runtime.consoleAPICalled":
		var ev struct {
			Type      string        `json:"type"`
			Args      []remoteValue `json:"args"`
			Timestamp float64       `json:"timestamp"`
		}
		if jsonv2.Unmarshal(params, &ev, chromedp.DefaultUnmarshalOptions) != nil {
			return
		}
		parts := make([]string, 0, len(ev.Args))
		for _, a := range ev.Args {
			parts = append(parts, a.text())
		}
		t.log(ev.Type, strings.Join(parts, " "), ev.Timestamp)
	case "Runtime.exceptionThrown":
		var ev struct {
			Timestamp float64 `json:"timestamp"`
			Details   struct {
				Text      string       `json:"text"`
				Exception *remoteValue `json:"exception"`
			} `json:"exceptionDetails"`
		}
		if jsonv2.Unmarshal(params, &ev, chromedp.DefaultUnmarshalOptions) != nil {
			return
		}
		text := ev.Details.Text
		if ev.Details.Exception != nil {
			text += " " + ev.Details.Exception.text()
		}
		t.log("error", text, ev.Timestamp)
	}
}

// remoteValue is the part of a Runtime.RemoteObject console text needs.
type remoteValue struct {
	Type        string       `json:"type"`
	Value       jsonv2.Value `json:"value"`
	Unser       string       `json:"unserializableValue"`
	Description string       `json:"description"`
}

func (v remoteValue) text() string {
	switch {
	case v.Type == "string" && len(v.Value) > 0:
		var s string
		if jsonv2.Unmarshal(v.Value, &s) == nil {
			return s
		}
	case v.Unser != "":
		return v.Unser
	case len(v.Value) > 0 && v.Type != "object":
		return string(v.Value)
	}
	if v.Description != "" {
		return v.Description
	}
	return v.Type
}

// log buffers a console message (bounded; the oldest is dropped first).
func (t *tab) log(level, text string, ms float64) {
	if level == "warning" || level == "warn" {
		level = "warning"
	}
	if len(text) > maxConsoleText {
		text = cutUTF8(text, maxConsoleText)
	}
	m := &agentv1.ConsoleMessage{Level: level, Text: text, TimestampUs: int64(ms * 1000)}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.console) >= maxConsole {
		copy(t.console, t.console[1:])
		t.console = t.console[:maxConsole-1]
	}
	t.console = append(t.console, m)
}

// invalidate makes every snapshot of the tab stale (the main frame navigated: a new document).
func (t *tab) invalidate() {
	t.refs.Navigated()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.objects = nil
}

// forget drops a closed tab from its browser.
func (c *chrome) forget(t *tab) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tabs[t.id] == t {
		delete(c.tabs, t.id)
	}
}

// consoleMessages copies the buffered console messages.
func (t *tab) consoleMessages() []*agentv1.ConsoleMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]*agentv1.ConsoleMessage(nil), t.console...)
}

// cutUTF8 cuts s to at most n bytes on a rune boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// since is microseconds since start.
func since(start time.Time) int64 { return time.Since(start).Microseconds() }

// name is the tab in messages and in the snapshot owner table: <browser id>/<tab id>.
func (t *tab) name() string { return t.c.id() + "/" + string(t.id) }

// node resolves a ref of this tab to where its element is kept (Refs.Resolve: the snapshot must be this tab's
// newest, taken in the current document). Whether the element is still in the document is checked when the
// action runs.
func (t *tab) node(r *agentv1.ElementRef) (refLoc, error) {
	return t.refs.Resolve(r, t.name(), t.c.b.snaps)
}
