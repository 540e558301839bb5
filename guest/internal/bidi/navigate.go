package bidi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// Load limits.
const (
	// watchBuffer bounds the events buffered for one load: the tab's browsing context events and the network
	// events of its documents' requests (a subresource's are not delivered, see tab.event).
	watchBuffer = 256
	// abortGrace is how long a load whose navigation was aborted or failed without a network error waits for the
	// navigation that replaced it (a page's script going on to another document) before it answers so (a
	// download, say).
	abortGrace = 500 * time.Millisecond
	// abortedText is Firefox's error text of a request cancelled because its navigation was.
	abortedText = "NS_BINDING_ABORTED"
)

// nsError finds a Firefox error name (NS_ERROR_CONNECTION_REFUSED, NS_BINDING_ABORTED) in an error message.
var nsError = regexp.MustCompile(`\bNS_[A-Z0-9_]+\b`)

// tabEvent is one event of a tab that a load waits on.
type tabEvent struct {
	method string
	params json.RawMessage
}

// watch delivers the tab's browsing context events and its documents' network events from now on, until stop.
// A watcher that falls behind by watchBuffer events loses the later ones (the load then ends at its deadline).
func (t *tab) watch() (<-chan tabEvent, func()) {
	ch := make(chan tabEvent, watchBuffer)
	t.mu.Lock()
	t.watchers = append(t.watchers, ch)
	t.mu.Unlock()
	return ch, func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		for i, w := range t.watchers {
			if w == ch {
				t.watchers = append(t.watchers[:i:i], t.watchers[i+1:]...)
				break
			}
		}
	}
}

// deliver hands an event to the tab's watchers, on the connection's reader goroutine (it never blocks).
func (t *tab) deliver(method string, params json.RawMessage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, w := range t.watchers {
		select {
		case w <- tabEvent{method, params}:
		default:
		}
	}
}

// navParams is what a load reads of its events.
type navParams struct {
	Navigation *string `json:"navigation"`
	ErrorText  string  `json:"errorText"`
	Response   struct {
		Status   int    `json:"status"`
		BodySize *int64 `json:"bodySize"`
		Content  struct {
			Size *int64 `json:"size"`
		} `json:"content"`
	} `json:"response"`
}

// load sends a command that loads a document in the tab (navigate, reload) with wait "none" and waits, on the
// tab's events, for that navigation's document: its load (a same-document navigation: its fragmentNavigated),
// its request failing (network.fetchError: UNAVAILABLE with Firefox's error text, as Chromium's navigate answers
// net::ERR_...), or an HTTP error answered with an empty body (which Chromium answers as a failed load, showing
// its own error page). Events of another navigation id are not this load's: a late load of the document shown
// before never ends it. A navigation the page's own script replaces by another is followed to that one. timeout
// bounds it all; a tab closed, or whose content process ends, meanwhile ends it with TARGET_GONE.
func (t *tab) load(ctx context.Context, timeout time.Duration, what, method string, params map[string]any) error {
	events, stop := t.watch()
	defer stop()
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	late := func() error {
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w: %w", what, errdefs.ErrInterrupted, ctx.Err())
		}
		return fmt.Errorf("%s: not loaded within %v: %w", what, timeout, errdefs.ErrTimeout)
	}
	// A crash during the load ends it; a crashed tab's own load is what brings it back.
	crash := t.down()
	select {
	case <-crash:
		crash = nil
	default:
	}
	params["wait"] = "none"
	var res struct {
		Navigation *string `json:"navigation"`
	}
	err := t.f.conn.call(wctx, method, params, &res)
	// Whatever the outcome, the tab may show another document: its snapshots are stale.
	t.refs.Navigated()
	if err != nil {
		if wctx.Err() != nil && ctx.Err() == nil {
			return late()
		}
		var be *bidiError
		if errors.As(err, &be) && be.code == "unknown error" {
			// A load that fails at once fails the command itself ("Error: NS_ERROR_CONNECTION_REFUSED"): its error
			// name goes in the message, as Chromium's net::ERR_... does; the rest only in untrusted metadata.
			text := "the page did not load"
			if name := nsError.FindString(be.message); name != "" {
				text = name
			}
			return errgrpc.WithMetadata(fmt.Errorf("%s: %s: %w", what, text, errdefs.ErrUnavailable),
				map[string]string{errgrpc.Untrusted("detail"): errgrpc.UntrustedValue(be.message)})
		}
		return t.closedErr(err, what)
	}
	if res.Navigation == nil {
		return nil
	}
	nav := *res.Navigation
	var (
		ours    bool // an event of nav came: a later navigation of the tab replaced it, not one from before
		status  int
		empty   bool
		aborted <-chan time.Time
	)
	failed := func(text string) error {
		// Firefox's error names (NS_ERROR_CONNECTION_REFUSED), not the page's words: the message carries them.
		return fmt.Errorf("%s: %s: %w", what, text, errdefs.ErrUnavailable)
	}
	for {
		select {
		case ev := <-events:
			var p navParams
			if json.Unmarshal(ev.params, &p) != nil || p.Navigation == nil {
				continue
			}
			if *p.Navigation != nav {
				if ev.method == "browsingContext.navigationStarted" && ours {
					nav, status, empty, aborted = *p.Navigation, 0, false, nil
				}
				continue
			}
			ours = true
			switch ev.method {
			case "network.responseCompleted":
				size := p.Response.Content.Size
				if size == nil {
					size = p.Response.BodySize
				}
				status, empty = p.Response.Status, size != nil && *size == 0
			case "network.fetchError":
				if p.ErrorText != abortedText {
					return failed(p.ErrorText)
				}
				aborted = time.After(abortGrace)
			case "browsingContext.navigationFailed":
				// Also what a navigation the page's script replaced answers, before the replacing one starts.
				if aborted == nil {
					aborted = time.After(abortGrace)
				}
			case "browsingContext.fragmentNavigated":
				return nil
			case "browsingContext.load":
				if status >= 400 && empty {
					return failed(fmt.Sprintf("HTTP %d with an empty body", status))
				}
				return nil
			}
		case <-aborted:
			return failed("the navigation was aborted or failed (" + abortedText + ")")
		case <-t.closed:
			return t.goneErr(what)
		case <-crash:
			return t.crashedErr(what)
		case <-wctx.Done():
			return late()
		}
	}
}
