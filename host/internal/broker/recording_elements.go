package broker

import (
	"context"
	"strings"
	"sync"
	"time"

	"glovebox.dev/host/internal/recording"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// appNameWait bounds how long an element step's recording waits for the name of its app, asked of the agent
// in the background when the session snapshotted an app it never listed (a replay on another guest finds
// the app by that name: the app id is the recording guest's).
const appNameWait = time.Second

// snapshotsKept is how many of a recorded session's last snapshots the broker keeps to describe the
// elements its element actions name.
const snapshotsKept = 4

// snapCache keeps what a recorded session observed of the accessibility tree (its last snapshots, the app
// names it listed), so an element step is recorded with a stable description (role, name, the path of
// roles and names from the root, the app), not only its ref.
type snapCache struct {
	mu    sync.Mutex
	apps  map[string]string       // app_id -> name
	tabs  map[string]*agentv1.Tab // browser_id/tab_id -> the tab as last listed
	snaps []cachedSnapshot        // oldest first, at most snapshotsKept
	// asking holds the questions asked of the agent in the background (see ask), closed when answered.
	asking map[string]chan struct{}
}

type cachedSnapshot struct {
	id  string
	app string
	// window is the AT-SPI window (object path) a window snapshot was of; "" for an app's.
	window string
	// tab is browser_id/tab_id of a tab's snapshot ("" for an app's).
	tab   string
	elems map[string]*agentv1.Element
}

// noteObservation remembers the snapshots and app names a recorded session's observation returned.
func (b *Broker) noteObservation(cl *call, err error) {
	if b.recs == nil || err != nil || cl.response == nil || !b.cfg.Recording.Records(cl.c.Principal.Name, cl.s.guest.name) {
		return
	}
	c := cl.s.snapshots()
	switch r := cl.response.(type) {
	case *agentv1.ListAppsResponse:
		for _, a := range r.GetApps() {
			c.app(a.GetAppId(), a.GetName())
		}
	case *agentv1.GetAppResponse:
		c.app(r.GetApp().GetAppId(), r.GetApp().GetName())
	case *agentv1.SnapshotAppResponse:
		c.add(r.GetSnapshot())
		b.learnAppName(cl.s.guest, c, r.GetSnapshot().GetTarget().GetApp().GetAppId())
	case *agentv1.SnapshotWindowResponse:
		c.add(r.GetSnapshot())
		b.learnAppName(cl.s.guest, c, r.GetSnapshot().GetTarget().GetApp().GetAppId())
	case *agentv1.ListTabsResponse:
		c.mu.Lock()
		for _, t := range r.GetTabs() {
			c.tabs[tabKey(t.GetBrowserId(), t.GetTabId())] = t
		}
		c.mu.Unlock()
	case *agentv1.SnapshotTabResponse:
		c.add(r.GetSnapshot())
		b.learnTab(cl.s.guest, c, r.GetSnapshot().GetTarget().GetTab())
	}
}

// learnTab asks the agent, in the background, for the tabs of t's browser when the session snapshotted t
// without listing it, so its page steps carry the tab's URL (a replay finds the tab by it).
func (b *Broker) learnTab(g *guest, c *snapCache, t *agentv1.TabTarget) {
	if t.GetTabId() == "" {
		return
	}
	key := tabKey(t.GetBrowserId(), t.GetTabId())
	done, ok := c.ask("tab:" + key)
	if !ok {
		return
	}
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), recordingCaptureTimeout)
		defer cancel()
		var tabs []*agentv1.Tab
		err := g.conn.Call(ctx, 0, func(ctx context.Context, cl guestClients) error {
			r, err := cl.Browser.ListTabs(ctx, &agentv1.ListTabsRequest{BrowserId: t.GetBrowserId()})
			tabs = r.GetTabs()
			return err
		})
		if err != nil {
			return
		}
		c.mu.Lock()
		for _, tab := range tabs {
			if k := tabKey(tab.GetBrowserId(), tab.GetTabId()); c.tabs[k] == nil {
				c.tabs[k] = tab
			}
		}
		c.mu.Unlock()
	}()
}

// ask registers a question to the agent under key ("app:<app_id>": its name, "tab:<browser>/<tab>": its
// listing), unless it is answered (known) or asked already: done is closed by the asker when answered.
func (c *snapCache) ask(key string) (done chan struct{}, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, asked := c.asking[key]; asked {
		return nil, false
	}
	if kind, k, _ := strings.Cut(key, ":"); kind == "tab" && c.tabs[k] != nil || kind == "app" && c.apps[k] != "" {
		return nil, false
	}
	done = make(chan struct{})
	c.asking[key] = done
	return done, true
}

// waitAsked waits (at most appNameWait) for the question under key ("app:<app_id>", "tab:<browser>/<tab>")
// being asked of the agent.
func (c *snapCache) waitAsked(key string) {
	c.mu.Lock()
	done := c.asking[key]
	c.mu.Unlock()
	if done == nil {
		return
	}
	t := time.NewTimer(appNameWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

func tabKey(browser, tab string) string { return browser + "/" + tab }

// tabOf is the tab as the session last listed it, nil when it never did.
func (c *snapCache) tabOf(browser, tab string) *recording.TabDesc {
	if c == nil || tab == "" {
		return nil
	}
	d := &recording.TabDesc{BrowserID: browser, TabID: tab}
	c.waitAsked("tab:" + tabKey(browser, tab))
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.tabs[tabKey(browser, tab)]; t != nil {
		d.URL, d.Title = t.GetUrl(), t.GetTitle()
	}
	return d
}

// learnAppName asks the agent, in the background, for the name of app id when the session snapshotted it
// without listing it, so its element steps carry the app's name.
func (b *Broker) learnAppName(g *guest, c *snapCache, id string) {
	if id == "" {
		return
	}
	done, ok := c.ask("app:" + id)
	if !ok {
		return
	}
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), recordingCaptureTimeout)
		defer cancel()
		var name string
		err := g.conn.Call(ctx, 0, func(ctx context.Context, cl guestClients) error {
			r, err := cl.Accessibility.GetApp(ctx, &agentv1.GetAppRequest{AppId: id})
			name = r.GetApp().GetName()
			return err
		})
		if err == nil && name != "" {
			c.app(id, name)
		}
	}()
}

// snapshots is the session's cache, created at first use.
func (s *session) snapshots() *snapCache {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snaps == nil {
		s.snaps = &snapCache{apps: map[string]string{}, tabs: map[string]*agentv1.Tab{}, asking: map[string]chan struct{}{}}
	}
	return s.snaps
}

func (c *snapCache) app(id, name string) {
	if id == "" {
		return
	}
	c.mu.Lock()
	c.apps[id] = name
	c.mu.Unlock()
}

func (c *snapCache) add(s *agentv1.Snapshot) {
	if s.GetSnapshotId() == "" {
		return
	}
	var tab string
	if t := s.GetTarget().GetTab(); t != nil {
		tab = tabKey(t.GetBrowserId(), t.GetTabId())
	}
	cs := cachedSnapshot{id: s.GetSnapshotId(), app: s.GetTarget().GetApp().GetAppId(), window: s.GetTarget().GetApp().GetWindowId(), tab: tab, elems: make(map[string]*agentv1.Element, len(s.GetElements()))}
	for _, e := range s.GetElements() {
		cs.elems[e.GetRef()] = &agentv1.Element{Ref: e.GetRef(), Role: e.GetRole(), Name: e.GetName(), ParentRef: e.GetParentRef()}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.snaps = append(c.snaps, cs)
	if len(c.snaps) > snapshotsKept {
		c.snaps = c.snaps[len(c.snaps)-snapshotsKept:]
	}
}

// windowOf is the AT-SPI window snapshot id was of, "" when it was an app's or is not among the last ones.
func (c *snapCache) windowOf(id string) string {
	if c == nil || id == "" {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.snaps {
		if s.id == id {
			return s.window
		}
	}
	return ""
}

// describe is the stable description of the element r acts on (an element action's, or a page action's first
// ref locator), nil when r names none or its snapshot is not among the session's last ones.
func (c *snapCache) describe(r *agentv1.ActRequest) *recording.Element {
	ref := recording.FirstRef(r)
	if ref == nil || c == nil {
		return nil
	}
	app, _, _ := strings.Cut(ref.GetSnapshotId(), ".")
	c.mu.Lock()
	for _, s := range c.snaps {
		if s.id == ref.GetSnapshotId() && s.app != "" {
			app = s.app
		}
	}
	c.mu.Unlock()
	c.waitAsked("app:" + app)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.snaps {
		if s.id != ref.GetSnapshotId() {
			continue
		}
		e := s.elems[ref.GetRef()]
		if e == nil {
			return nil
		}
		app := s.app
		if app == "" && s.tab == "" {
			app, _, _ = strings.Cut(s.id, ".")
		}
		d := &recording.Element{AppID: app, App: c.apps[app], Role: e.GetRole(), Name: e.GetName(), Ref: e.GetRef(), SnapshotID: s.id}
		var path []recording.PathStep
		for p := s.elems[e.GetParentRef()]; p != nil && len(path) < 64; p = s.elems[p.GetParentRef()] {
			path = append(path, recording.PathStep{Role: p.GetRole(), Name: p.GetName()})
		}
		for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
			path[i], path[j] = path[j], path[i]
		}
		d.Path = path
		if d.App == "" && len(path) > 0 && path[0].Role == "application" {
			d.App = path[0].Name // an app snapshot's root is the application, named
		}
		return d
	}
	return nil
}
