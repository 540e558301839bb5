// Package browser drives Chromium browsers over the DevTools protocol (CDP): it finds them by their DevTools
// port, lists their tabs, snapshots a tab's accessibility tree with refs, and performs page actions with trusted
// input. One flat CDP session per tab, never shared across tabs; an action names its tab and lands there
// whichever tab is in front. Closing the backend closes our websockets and never a tab.
//
// It speaks CDP through chromedp's websocket transport (github.com/chromedp/chromedp/remote) and cdproto's typed
// commands over a small session multiplexer of its own (conn.go) rather than chromedp's Context: attaching a
// chromedp Context to a user's tab enables Network, CSS, DOM tracking and auto-attach on it, may pick "the only
// unused tab" by itself, and closes the tab on cancel unless told otherwise; here nothing is enabled on a tab but
// Page, Runtime, Inspector and the auto-attach of its out-of-process iframes (frames.go), and no code path closes
// a tab except close_tab.
package browser

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/validate"
)

// DefaultPort is the DevTools port of the default workspace browser.
const DefaultPort = 9222

// DefaultExecutable is Debian's Chromium.
const DefaultExecutable = "/usr/bin/chromium"

// Config configures the backend.
type Config struct {
	// Ports are the DevTools ports always probed; the first is the default workspace browser's (the only one
	// the agent may start). Empty: DefaultPort.
	Ports []int
	// ProfileDir is the default browser's persistent profile. Empty: <user cache dir>/glovebox/chromium.
	ProfileDir string
	// Executable starts the default browser. Empty: DefaultExecutable.
	Executable string
	// Display is the X display the default browser opens on (DISPLAY); empty: inherited.
	Display string
	// Proc is the proc filesystem scanned for --remote-debugging-port (and DevToolsActivePort); empty: /proc.
	Proc string
	// DownloadDir is where every browser the backend connects to saves downloads (Browser.setDownloadBehavior);
	// empty: the browser's own setting.
	DownloadDir string
	Logger      *slog.Logger
}

// Backend is the Chromium backend.
type Backend struct {
	cfg Config
	log *slog.Logger

	// snaps names the page snapshots (page-<random>-<n>), unlike those of any other agent process, so a ref
	// kept across an agent restart never names a new snapshot, and remembers which tab each is of.
	snaps *SnapshotIDs
	// frameSeq names the iframe elements of one frame walk in the page (frameToken).
	frameSeq atomic.Uint64

	mu       sync.Mutex
	browsers map[int]*chrome
	started  *exec.Cmd
	exited   chan struct{}
	// held are the keys held by page_key_down, per owner and tab.
	held map[string]map[tabKey][]heldKey
}

// tabKey names a tab across browsers.
type tabKey struct {
	port int
	tab  target.ID
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
		cfg.ProfileDir = filepath.Join(dir, "glovebox", "chromium")
	}
	if cfg.Proc == "" {
		cfg.Proc = "/proc"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Backend{cfg: cfg, log: cfg.Logger, browsers: map[int]*chrome{}, held: map[string]map[tabKey][]heldKey{},
		snaps: NewSnapshotIDs("page")}
}

// Close closes every DevTools connection (no tab is closed) and stops the default browser if this backend
// started it.
func (b *Backend) Close() error {
	b.mu.Lock()
	browsers := b.browsers
	b.browsers = map[int]*chrome{}
	cmd, exited := b.started, b.exited
	b.started = nil
	b.mu.Unlock()
	for _, c := range browsers {
		c.close()
	}
	if cmd != nil {
		stopProcess(cmd, exited)
	}
	return nil
}

// defaultPort is the default workspace browser's port.
func (b *Backend) defaultPort() int { return b.cfg.Ports[0] }

// ports are the ports discovery probes: the configured ones, then those on running command lines.
func (b *Backend) ports() []int {
	ports := slices.Clone(b.cfg.Ports)
	for _, p := range cmdlinePorts(b.cfg.Proc) {
		if !slices.Contains(ports, p) {
			ports = append(ports, p)
		}
	}
	return ports
}

// ListBrowsers lists the browsers that answer on the discovery ports, starting the default one first when
// asked and absent.
func (b *Backend) ListBrowsers(ctx context.Context, r *agentv1.ListBrowsersRequest) (*agentv1.ListBrowsersResponse, error) {
	if r.GetStartDefault() {
		if _, err := b.browser(ctx, b.defaultPort(), true); err != nil {
			return nil, err
		}
	}
	out := &agentv1.ListBrowsersResponse{}
	for _, port := range b.ports() {
		var v versionInfo
		if getJSON(ctx, port, "/json/version", &v) != nil || v.WSURL == "" {
			continue
		}
		tabs, err := pages(ctx, port)
		if err != nil {
			continue
		}
		out.Browsers = append(out.Browsers, b.describe(port, v, len(tabs)))
	}
	return out, nil
}

func (b *Backend) describe(port int, v versionInfo, tabs int) *agentv1.Browser {
	return &agentv1.Browser{
		BrowserId: browserID(port), Port: int32(port), Version: productVersion(v.Browser),
		TabCount: int32(tabs), DefaultWorkspace: port == b.defaultPort(), Engine: validate.EngineChromium,
	}
}

func browserID(port int) string { return fmt.Sprintf("chrome-%d", port) }

// GetBrowser finds a browser by id, or the one tab showing a URL.
func (b *Backend) GetBrowser(ctx context.Context, r *agentv1.GetBrowserRequest) (*agentv1.GetBrowserResponse, error) {
	if id := r.GetBrowserId(); id != "" {
		port, err := b.known(id)
		if err != nil {
			return nil, err
		}
		var v versionInfo
		if err := getJSON(ctx, port, "/json/version", &v); err != nil {
			return nil, fmt.Errorf("browser %s: %w: %w", id, errdefs.ErrNotFound, err)
		}
		tabs, err := pages(ctx, port)
		if err != nil {
			return nil, err
		}
		return &agentv1.GetBrowserResponse{Browser: b.describe(port, v, len(tabs))}, nil
	}
	type hit struct {
		port int
		v    versionInfo
		tabs []targetInfo
		tab  targetInfo
		i    int
	}
	var hits []hit
	for _, port := range b.ports() {
		var v versionInfo
		if getJSON(ctx, port, "/json/version", &v) != nil {
			continue
		}
		tabs, err := pages(ctx, port)
		if err != nil {
			continue
		}
		for i, t := range tabs {
			if t.URL == r.GetUrl() {
				hits = append(hits, hit{port, v, tabs, t, i})
			}
		}
	}
	switch len(hits) {
	case 0:
		return nil, fmt.Errorf("no tab shows that url: %w", errdefs.ErrNotFound)
	case 1:
		h := hits[0]
		return &agentv1.GetBrowserResponse{Browser: b.describe(h.port, h.v, len(h.tabs)), Tab: tabOf(h.port, h.tab, h.i == 0)}, nil
	}
	var cands []string
	for _, h := range hits {
		cands = append(cands, browserID(h.port)+"/"+h.tab.ID)
	}
	return nil, ambiguous(len(hits), cands)
}

// ambiguous is TARGET_AMBIGUOUS with the candidates ("chrome-9222/<tab_id>", comma-separated) in the error
// metadata; none is picked.
func ambiguous(n int, cands []string) error {
	return errgrpc.WithMetadata(fmt.Errorf("%d tabs show that url: %w", n, errdefs.ErrTargetAmbiguous),
		map[string]string{"candidates": strings.Join(cands, ",")})
}

func tabOf(port int, t targetInfo, active bool) *agentv1.Tab {
	return &agentv1.Tab{BrowserId: browserID(port), TabId: t.ID, Url: t.URL, Title: t.Title, Active: active}
}

// ListTabs lists a browser's page tabs; the most recently active one is marked active.
func (b *Backend) ListTabs(ctx context.Context, r *agentv1.ListTabsRequest) (*agentv1.ListTabsResponse, error) {
	port, err := b.known(r.GetBrowserId())
	if err != nil {
		return nil, err
	}
	tabs, err := pages(ctx, port)
	if err != nil {
		return nil, fmt.Errorf("browser %s: %w", r.GetBrowserId(), err)
	}
	out := &agentv1.ListTabsResponse{}
	for i, t := range tabs {
		out.Tabs = append(out.Tabs, tabOf(port, t, i == 0))
	}
	return out, nil
}

// known returns the port of a browser id that discovery returns (a configured port or one on a running
// command line); any other id is NOT_FOUND, so an id never makes the agent probe an arbitrary port.
func (b *Backend) known(id string) (int, error) {
	port, ok := validate.BrowserID(id)
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

// browser returns the connected browser on port, connecting (and, for the default port when allowed,
// starting it) first.
func (b *Backend) browser(ctx context.Context, port int, mayStart bool) (*chrome, error) {
	b.mu.Lock()
	c := b.browsers[port]
	b.mu.Unlock()
	if c != nil && c.conn.alive() {
		return c, nil
	}
	var v versionInfo
	err := getJSON(ctx, port, "/json/version", &v)
	if err != nil && mayStart && port == b.defaultPort() {
		b.mu.Lock()
		running := b.started != nil
		b.mu.Unlock()
		if !running {
			cmd, exited, err := b.start(ctx, port)
			if err != nil {
				return nil, err
			}
			b.mu.Lock()
			b.started, b.exited = cmd, exited
			b.mu.Unlock()
		}
		err = getJSON(ctx, port, "/json/version", &v)
	}
	if err != nil {
		return nil, fmt.Errorf("browser %s: %w: %w", browserID(port), errdefs.ErrNotFound, err)
	}
	cn, err := dial(ctx, v.WSURL, b.log)
	if err != nil {
		return nil, err
	}
	c = &chrome{b: b, port: port, conn: cn, tabs: map[target.ID]*tab{}}
	b.mu.Lock()
	if old := b.browsers[port]; old != nil && old.conn.alive() {
		b.mu.Unlock()
		cn.close()
		return old, nil
	}
	b.browsers[port] = c
	b.mu.Unlock()
	if b.cfg.DownloadDir != "" {
		if err := c.allowDownloads(ctx, b.cfg.DownloadDir); err != nil {
			b.log.Warn("browser downloads stay where the browser puts them", "browser", c.id(), "error", err)
		}
	}
	return c, nil
}

// chrome is one connected browser.
type chrome struct {
	b    *Backend
	port int
	conn *conn

	mu   sync.Mutex
	tabs map[target.ID]*tab
}

func (c *chrome) id() string { return browserID(c.port) }

// root is the browser-level session.
func (c *chrome) root() session { return session{c: c.conn} }

func (c *chrome) close() {
	c.conn.close()
}

// tab returns the attached tab id, attaching one session to it first. A tab id the browser does not list is
// NOT_FOUND (or TARGET_GONE when we had it attached).
func (c *chrome) tab(ctx context.Context, id string) (*tab, error) {
	tid := target.ID(id)
	c.mu.Lock()
	t := c.tabs[tid]
	c.mu.Unlock()
	if t != nil {
		if t.alive() {
			return t, nil
		}
		return nil, fmt.Errorf("tab %s of %s closed: %w", id, c.id(), errdefs.ErrTargetGone)
	}
	targets, err := cdp.Call(ctx, c.root(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return nil, err
	}
	found := false
	for _, ti := range targets.TargetInfos {
		if ti.TargetID == tid && ti.Type == "page" {
			found = true
		}
	}
	if !found {
		return nil, fmt.Errorf("tab %s of %s: no such tab (ListTabs lists them): %w", id, c.id(), errdefs.ErrNotFound)
	}
	t, err = attach(ctx, c, tid)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if old := c.tabs[tid]; old != nil && old.alive() {
		c.mu.Unlock()
		t.detach(ctx)
		return old, nil
	}
	c.tabs[tid] = t
	c.mu.Unlock()
	return t, nil
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
	c, err := b.browser(ctx, port, false)
	if err != nil {
		return nil, err
	}
	return c.tab(ctx, ref.GetTabId())
}
