// Package bidi drives Firefox over WebDriver BiDi: it finds Firefox browsers by their remote agent port
// (browser_id "firefox-<port>"), lists their tabs (top-level browsing contexts, whose ids are the tab ids),
// snapshots a tab with refs, and performs page actions with trusted input (input.performActions). It is the
// peer of the CDP backend (guest/internal/browser) behind the same BrowserService and page actions, and shares
// with it what does not depend on the engine: the page functions, the snapshot built from their answer, the ref
// store and the page errors' classes (browser.Scripts, Walk, Assemble, Refs, PageFailure).
//
// One WebSocket and one BiDi session per browser (Firefox allows one session at a time); our own page functions
// run in a sandbox realm ("glovebox"), so page scripts cannot see or replace them. Closing the backend ends our
// sessions and never closes a tab. The WebDriver BiDi messages are small typed structs of this package's own.
package bidi

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"glovebox.dev/guest/internal/browser"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/validate"
)

// DefaultPort is the remote agent port of the default workspace Firefox (9222 is Chromium's).
const DefaultPort = 9223

// DefaultExecutable is Debian's Firefox ESR.
const DefaultExecutable = "/usr/bin/firefox-esr"

// engineName is this engine in Browser.engine and in errors.
const engineName = validate.EngineFirefox

// Config configures the backend.
type Config struct {
	// Ports are the remote agent ports always probed; the first is the default workspace Firefox's (the only one
	// the agent may start). Empty: DefaultPort.
	Ports []int
	// ProfileDir is the default Firefox's persistent profile. Empty: <user cache dir>/glovebox/firefox.
	ProfileDir string
	// Executable starts the default Firefox. Empty: DefaultExecutable.
	Executable string
	// Display is the X display the default Firefox opens on (DISPLAY); empty: inherited.
	Display string
	// Proc is the proc filesystem scanned for Firefox command lines; empty: /proc.
	Proc   string
	Logger *slog.Logger
}

// Backend is the Firefox backend.
type Backend struct {
	cfg   Config
	log   *slog.Logger
	snaps *browser.SnapshotIDs

	mu       sync.Mutex
	browsers map[int]*instance
	started  *exec.Cmd
	exited   chan struct{}
	// held are the keys held by page_key_down, per owner and tab.
	held map[string]map[tabKey][]heldKey
	// dialing are the connections being opened, per port (see connectShared); gen counts Close calls, so a dial
	// that ends after one closes what it opened.
	dialing map[int]*pendingDial
	gen     int
}

// tabKey names a tab across browsers.
type tabKey struct {
	port int
	tab  string
}

// New returns a backend; it connects to nothing until asked.
func New(cfg Config) *Backend {
	if len(cfg.Ports) == 0 {
		cfg.Ports = []int{DefaultPort}
	}
	if cfg.Executable == "" {
		cfg.Executable = DefaultExecutable
	}
	if cfg.ProfileDir == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		cfg.ProfileDir = filepath.Join(dir, "glovebox", "firefox")
	}
	if cfg.Proc == "" {
		cfg.Proc = "/proc"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Backend{cfg: cfg, log: cfg.Logger, snaps: browser.NewSnapshotIDs("ffpage"), browsers: map[int]*instance{},
		held: map[string]map[tabKey][]heldKey{}, dialing: map[int]*pendingDial{}}
}

// Close ends every BiDi session (no tab is closed) and stops the default Firefox if this backend started it.
func (b *Backend) Close() error {
	b.mu.Lock()
	browsers := b.browsers
	b.browsers = map[int]*instance{}
	cmd, exited := b.started, b.exited
	b.started = nil
	b.gen++
	for _, d := range b.dialing {
		d.cancel()
	}
	b.mu.Unlock()
	for _, f := range browsers {
		f.conn.close()
	}
	if cmd != nil {
		stopProcess(cmd, exited)
	}
	return nil
}

func (b *Backend) defaultPort() int { return b.cfg.Ports[0] }

// ports are the ports discovery probes: the configured ones, then those on running Firefox command lines.
func (b *Backend) ports() []int {
	ports := slices.Clone(b.cfg.Ports)
	for _, p := range cmdlinePorts(b.cfg.Proc) {
		if !slices.Contains(ports, p) {
			ports = append(ports, p)
		}
	}
	return ports
}

func browserID(port int) string { return fmt.Sprintf("firefox-%d", port) }

// ListBrowsers lists the Firefox browsers whose remote agent answers on the discovery ports (see visit), starting
// the default one first when asked (r.start_default with engine firefox) and absent. A Firefox whose BiDi session
// another client holds cannot be driven and is not listed.
func (b *Backend) ListBrowsers(ctx context.Context, r *agentv1.ListBrowsersRequest) (*agentv1.ListBrowsersResponse, error) {
	if r.GetStartDefault() && r.GetEngine() == engineName {
		if _, err := b.browser(ctx, b.defaultPort(), true); err != nil {
			return nil, err
		}
	}
	out := &agentv1.ListBrowsersResponse{}
	for _, port := range b.ports() {
		f, done, err := b.visit(ctx, port)
		if err != nil {
			continue
		}
		tabs, err := f.contexts(ctx)
		done()
		if err != nil {
			continue
		}
		out.Browsers = append(out.Browsers, b.describe(f, len(tabs)))
	}
	return out, nil
}

// visit connects to the Firefox on port for a listing. A configured port, or one we are connected to, keeps our
// session (done does nothing). A port found only on a running Firefox's command line gets a session for the
// listing alone, ended by done: Firefox takes one BiDi session at a time, and listing must not lock another client
// out of a browser it drives; our session on it opens when a request names one of its tabs.
func (b *Backend) visit(ctx context.Context, port int) (*instance, func(), error) {
	b.mu.Lock()
	f := b.browsers[port]
	b.mu.Unlock()
	if f != nil && f.conn.alive() || slices.Contains(b.cfg.Ports, port) {
		f, err := b.browser(ctx, port, false)
		return f, func() {}, err
	}
	f, err := b.connect(ctx, port)
	if err != nil {
		return nil, nil, err
	}
	return f, f.conn.close, nil
}

func (b *Backend) describe(f *instance, tabs int) *agentv1.Browser {
	return &agentv1.Browser{BrowserId: f.id(), Port: int32(f.port), Version: f.version, TabCount: int32(tabs),
		DefaultWorkspace: f.port == b.defaultPort(), Engine: engineName}
}

// GetBrowser finds a Firefox by id, or the one tab showing a URL.
func (b *Backend) GetBrowser(ctx context.Context, r *agentv1.GetBrowserRequest) (*agentv1.GetBrowserResponse, error) {
	if id := r.GetBrowserId(); id != "" {
		port, err := b.known(id)
		if err != nil {
			return nil, err
		}
		f, err := b.browser(ctx, port, false)
		if err != nil {
			return nil, err
		}
		tabs, err := f.contexts(ctx)
		if err != nil {
			return nil, err
		}
		return &agentv1.GetBrowserResponse{Browser: b.describe(f, len(tabs))}, nil
	}
	type hit struct {
		f    *instance
		n    int
		tab  *agentv1.Tab
		cand string
	}
	var hits []hit
	for _, port := range b.ports() {
		f, done, err := b.visit(ctx, port)
		if err != nil {
			continue
		}
		tabs, err := f.tabs(ctx)
		done()
		if err != nil {
			continue
		}
		for _, t := range tabs {
			if t.GetUrl() == r.GetUrl() {
				hits = append(hits, hit{f, len(tabs), t, f.id() + "/" + t.GetTabId()})
			}
		}
	}
	switch len(hits) {
	case 0:
		return nil, fmt.Errorf("no tab shows that url: %w", errdefs.ErrNotFound)
	case 1:
		return &agentv1.GetBrowserResponse{Browser: b.describe(hits[0].f, hits[0].n), Tab: hits[0].tab}, nil
	}
	var cands []string
	for _, h := range hits {
		cands = append(cands, h.cand)
	}
	return nil, errgrpc.WithMetadata(fmt.Errorf("%d tabs show that url: %w", len(hits), errdefs.ErrTargetAmbiguous),
		map[string]string{"candidates": strings.Join(cands, ",")})
}

// ListTabs lists a Firefox's tabs; the visible ones are marked active.
func (b *Backend) ListTabs(ctx context.Context, r *agentv1.ListTabsRequest) (*agentv1.ListTabsResponse, error) {
	port, err := b.known(r.GetBrowserId())
	if err != nil {
		return nil, err
	}
	f, err := b.browser(ctx, port, false)
	if err != nil {
		return nil, err
	}
	tabs, err := f.tabs(ctx)
	if err != nil {
		return nil, fmt.Errorf("browser %s: %w", f.id(), err)
	}
	return &agentv1.ListTabsResponse{Tabs: tabs}, nil
}

// known returns the port of a Firefox browser id that discovery returns (a configured port, one on a running
// Firefox command line, or one connected); any other id is NOT_FOUND, so an id never makes the agent probe an
// arbitrary port.
func (b *Backend) known(id string) (int, error) {
	port, ok := validate.FirefoxID(id)
	if !ok {
		return 0, fmt.Errorf("browser %q: %w", id, errdefs.ErrNotFound)
	}
	b.mu.Lock()
	_, connected := b.browsers[port]
	b.mu.Unlock()
	if connected || slices.Contains(b.ports(), port) {
		return port, nil
	}
	return 0, fmt.Errorf("browser %s: no browser found on that port (ListBrowsers lists them): %w", id, errdefs.ErrNotFound)
}

// browser returns the connected Firefox on port, opening our session first (and, for the default port when
// allowed, starting it).
func (b *Backend) browser(ctx context.Context, port int, mayStart bool) (*instance, error) {
	b.mu.Lock()
	f := b.browsers[port]
	b.mu.Unlock()
	if f != nil && f.conn.alive() {
		return f, nil
	}
	f, err := b.connectShared(ctx, port)
	if err != nil && mayStart && port == b.defaultPort() {
		b.mu.Lock()
		running := b.started != nil
		b.mu.Unlock()
		if !running {
			cmd, exited, f2, err2 := b.start(ctx, port)
			if err2 != nil {
				return nil, err2
			}
			b.mu.Lock()
			b.started, b.exited = cmd, exited
			b.mu.Unlock()
			f, err = f2, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("browser %s: %w: %w", browserID(port), errdefs.ErrNotFound, err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if old := b.browsers[port]; old != nil && old != f && old.conn.alive() {
		f.conn.close()
		return old, nil
	}
	b.browsers[port] = f
	return f, nil
}

// pendingDial is a connection being opened to a port.
type pendingDial struct {
	done   chan struct{}
	cancel context.CancelFunc
	f      *instance
	err    error
}

// connectShared opens our session on port as connect does, but the dial outlives a caller that stops waiting
// (bounded by dialTimeout instead): Firefox can take longer to open a session than one guest call may wait (tens
// of seconds under TCG), and a dial cancelled with each call would never finish. A later request for the port
// waits for the same dial; Close cancels it, and a dial that ends after Close closes what it opened.
func (b *Backend) connectShared(ctx context.Context, port int) (*instance, error) {
	b.mu.Lock()
	d := b.dialing[port]
	if d == nil {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), dialTimeout)
		d = &pendingDial{done: make(chan struct{}), cancel: cancel}
		b.dialing[port] = d
		gen := b.gen
		go func() {
			defer cancel()
			f, err := b.connect(dctx, port)
			b.mu.Lock()
			delete(b.dialing, port)
			stale := b.gen != gen
			var dup *instance
			if err == nil && !stale {
				// Kept here, not by the caller: when every caller stopped waiting before Firefox answered, the
				// session would otherwise be held by a connection nobody has, and Firefox (one session at a time)
				// refuses every later session.new.
				if old := b.browsers[port]; old != nil && old.conn.alive() {
					dup, f = f, old
				} else {
					b.browsers[port] = f
				}
			}
			b.mu.Unlock()
			if dup != nil {
				dup.conn.close()
			}
			if err == nil && stale {
				f.conn.close()
				f, err = nil, fmt.Errorf("connect %s: %w: the backend closed meanwhile", browserID(port), errdefs.ErrUnavailable)
			}
			d.f, d.err = f, err
			close(d.done)
		}()
	}
	b.mu.Unlock()
	select {
	case <-d.done:
		return d.f, d.err
	case <-ctx.Done():
		return nil, ctxErr(ctx, "connect "+browserID(port))
	}
}

// connect opens our session on the Firefox on port and subscribes to the events the tabs need.
func (b *Backend) connect(ctx context.Context, port int) (*instance, error) {
	f := &instance{b: b, port: port, tabsByID: map[string]*tab{}}
	cn, err := dialBiDi(ctx, port, b.log, f.event)
	if err != nil {
		return nil, err
	}
	f.conn, f.version = cn, "Firefox/"+cn.version
	err = cn.call(ctx, "session.subscribe", subscribeParams{Events: subscribedEvents}, nil)
	if err != nil {
		cn.close()
		return nil, err
	}
	return f, nil
}

// subscribedEvents are the events our session subscribes to, for every browsing context: the tabs' lifecycle,
// navigations and console (tab.event), and their documents' requests (navigate.go). (Firefox ESR 153 refuses
// browsingContext.navigationAborted: an aborted document request's network.fetchError stands for it.)
var subscribedEvents = []string{
	"browsingContext.contextDestroyed", "browsingContext.navigationStarted", "browsingContext.navigationCommitted",
	"browsingContext.domContentLoaded", "browsingContext.load", "browsingContext.fragmentNavigated",
	"browsingContext.navigationFailed", "log.entryAdded",
	"network.responseCompleted", "network.fetchError",
}

type subscribeParams struct {
	Events []string `json:"events"`
}

// resolveTab finds the tab a request names.
func (b *Backend) resolveTab(ctx context.Context, ref interface {
	GetBrowserId() string
	GetTabId() string
}) (*tab, error) {
	port, err := b.known(ref.GetBrowserId())
	if err != nil {
		return nil, err
	}
	f, err := b.browser(ctx, port, false)
	if err != nil {
		return nil, err
	}
	return f.tab(ctx, ref.GetTabId())
}

// instance is one connected Firefox.
type instance struct {
	b       *Backend
	port    int
	conn    *conn
	version string

	mu       sync.Mutex
	tabsByID map[string]*tab
}

func (f *instance) id() string { return browserID(f.port) }

// treeInfo is one browsing context of browsingContext.getTree.
type treeInfo struct {
	Context string `json:"context"`
	URL     string `json:"url"`
}

// contexts lists the top-level browsing contexts (the tabs), in the browser's order.
func (f *instance) contexts(ctx context.Context) ([]treeInfo, error) {
	var res struct {
		Contexts []treeInfo `json:"contexts"`
	}
	if err := f.conn.call(ctx, "browsingContext.getTree", map[string]any{"maxDepth": 0}, &res); err != nil {
		return nil, err
	}
	return res.Contexts, nil
}

// tabs lists the tabs with their titles and whether each is visible (active), read in our sandbox in parallel.
func (f *instance) tabs(ctx context.Context) ([]*agentv1.Tab, error) {
	list, err := f.contexts(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*agentv1.Tab, len(list))
	var wg sync.WaitGroup
	for i, c := range list {
		out[i] = &agentv1.Tab{BrowserId: f.id(), TabId: c.Context, Url: c.URL}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var v struct {
				Title   string `json:"title"`
				Visible bool   `json:"visible"`
			}
			rctx, cancel := context.WithTimeout(ctx, probeTimeout)
			defer cancel()
			if callIn(rctx, f.conn, c.Context, `function() { return JSON.stringify({title: document.title, visible: document.visibilityState === 'visible'}); }`, "", &v) == nil {
				out[i].Title, out[i].Active = v.Title, v.Visible
			}
		}()
	}
	wg.Wait()
	return out, nil
}

// tab returns our state of a tab; a context the browser does not list is NOT_FOUND, one that closed
// TARGET_GONE.
func (f *instance) tab(ctx context.Context, id string) (*tab, error) {
	f.mu.Lock()
	t := f.tabsByID[id]
	f.mu.Unlock()
	if t != nil {
		if t.alive() {
			return t, nil
		}
		return nil, fmt.Errorf("tab %s of %s closed: %w", id, f.id(), errdefs.ErrTargetGone)
	}
	list, err := f.contexts(ctx)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(list, func(c treeInfo) bool { return c.Context == id }) {
		return nil, fmt.Errorf("tab %s of %s: no such tab (ListTabs lists them): %w", id, f.id(), errdefs.ErrNotFound)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if t := f.tabsByID[id]; t != nil {
		return t, nil
	}
	t = newTab(f, id)
	f.tabsByID[id] = t
	return t, nil
}

// event handles the session's events on the connection's reader goroutine: it must not call the browser.
func (f *instance) event(method string, params json.RawMessage) {
	var ev struct {
		Context string `json:"context"`
		Source  struct {
			Context string `json:"context"`
		} `json:"source"`
	}
	if json.Unmarshal(params, &ev) != nil {
		return
	}
	id := ev.Context
	if id == "" {
		id = ev.Source.Context
	}
	f.mu.Lock()
	t := f.tabsByID[id]
	if method == "browsingContext.contextDestroyed" && t != nil {
		delete(f.tabsByID, id)
	}
	f.mu.Unlock()
	if t != nil {
		t.event(method, params)
	}
}
