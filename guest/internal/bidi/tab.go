package bidi

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"glovebox.dev/guest/internal/browser"
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
)

// tab is our state of one top-level browsing context: its snapshots' refs, console messages, and the waiters for
// whether it closed. Nothing here ever acts on another tab.
type tab struct {
	f    *instance
	id   string
	refs browser.Refs[refLoc]

	mu   sync.Mutex
	gone bool
	// closed is closed when the tab's context is destroyed: an action waiting on the tab stops waiting.
	closed chan struct{}
	// crashed is closed while the tab's content process is gone (Firefox shows its crashed-tab page in the
	// context, see event); a new one replaces it when the tab commits another document.
	crashed chan struct{}
	// lastCommit is the navigation id of the document the tab committed last.
	lastCommit string
	console    []*agentv1.ConsoleMessage
	// watchers get the tab's browsing context and document network events (navigate.go).
	watchers []chan tabEvent
}

func newTab(f *instance, id string) *tab {
	return &tab{f: f, id: id, closed: make(chan struct{}), crashed: make(chan struct{})}
}

func (t *tab) alive() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.gone && t.f.conn.alive()
}

func (t *tab) key() tabKey { return tabKey{t.f.port, t.id} }

// name is the tab in messages and in the snapshot owner table.
func (t *tab) name() string { return t.f.id() + "/" + t.id }

// goneErr is the error of an action that was waiting on the tab when it closed.
func (t *tab) goneErr(what string) error {
	return errgrpc.WithCause(fmt.Errorf("%s: tab %s of %s closed: %w", what, t.id, t.f.id(), errdefs.ErrTargetGone), errgrpc.CauseClosed)
}

// crashedErr is the error of an action on the tab while its content process is gone.
func (t *tab) crashedErr(what string) error {
	return errgrpc.WithCause(fmt.Errorf("%s: tab %s of %s crashed (its content process ended; navigate or reload brings it back): %w",
		what, t.id, t.f.id(), errdefs.ErrTargetGone), errgrpc.CauseCrashed)
}

// crashPage is the start of the URL of the page Firefox shows in a tab whose content process ended.
const crashPage = "about:tabcrashed"

// down answers a channel closed while the tab's content process is gone.
func (t *tab) down() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.crashed
}

// committed notes the document the tab committed under navigation id nav: Firefox's crashed-tab page when the
// content process ended, any other one when it is back. The crash shows first as an empty document committed under
// the navigation id of the document it replaces, with no navigation started (every navigation has an id of its
// own): that is taken for the crash already, so an action does not land in the empty document meanwhile.
func (t *tab) committed(url, nav string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	crashed := strings.HasPrefix(url, crashPage) || url == "about:blank" && nav != "" && nav == t.lastCommit
	t.lastCommit = nav
	select {
	case <-t.crashed:
		if !crashed {
			t.crashed = make(chan struct{})
		}
	default:
		if crashed {
			close(t.crashed)
		}
	}
}

// event handles one of the tab's events on the connection's reader goroutine: it must not call the browser.
func (t *tab) event(method string, params json.RawMessage) {
	if strings.HasPrefix(method, "browsingContext.") {
		t.deliver(method, params)
	} else if strings.HasPrefix(method, "network.") {
		// Only a document's requests carry a navigation id: a load waits on those, never on a subresource's.
		var ev struct {
			Navigation *string `json:"navigation"`
		}
		if json.Unmarshal(params, &ev) == nil && ev.Navigation != nil {
			t.deliver(method, params)
		}
		return
	}
	switch method {
	case "browsingContext.contextDestroyed":
		t.mu.Lock()
		if !t.gone {
			t.gone = true
			close(t.closed)
		}
		t.mu.Unlock()
		return
	case "log.entryAdded":
		var ev struct {
			Type      string  `json:"type"`
			Method    string  `json:"method"`
			Level     string  `json:"level"`
			Text      string  `json:"text"`
			Timestamp float64 `json:"timestamp"`
		}
		if json.Unmarshal(params, &ev) != nil {
			return
		}
		level := ev.Level
		if ev.Type == "console" && ev.Method != "" {
			// console.log is level "info" in BiDi; the console method is what CDP and callers name.
			level = ev.Method
		}
		if level == "warn" {
			level = "warning"
		}
		t.log(level, ev.Text, ev.Timestamp)
		return
	case "browsingContext.navigationCommitted":
		var ev struct {
			URL        string  `json:"url"`
			Navigation *string `json:"navigation"`
		}
		if json.Unmarshal(params, &ev) == nil {
			nav := ""
			if ev.Navigation != nil {
				nav = *ev.Navigation
			}
			t.committed(ev.URL, nav)
		}
		t.refs.Navigated()
	case "browsingContext.navigationStarted", "browsingContext.domContentLoaded", "browsingContext.load":
		// A new document (also one the page's own script or a link loads): every snapshot of the tab is stale.
		t.refs.Navigated()
	}
}

// log buffers a console message (bounded; the oldest is dropped first).
func (t *tab) log(level, text string, ms float64) {
	if len(text) > maxConsoleText {
		text = browser.CutUTF8(text, maxConsoleText)
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

// consoleMessages copies the buffered console messages.
func (t *tab) consoleMessages() []*agentv1.ConsoleMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]*agentv1.ConsoleMessage(nil), t.console...)
}

// node resolves a ref of this tab to where its element is kept (browser.Refs.Resolve).
func (t *tab) node(r *agentv1.ElementRef) (refLoc, error) {
	return t.refs.Resolve(r, t.name(), t.f.b.snaps)
}
