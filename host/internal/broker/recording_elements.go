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
	apps  map[string]string // app_id -> name
	snaps []cachedSnapshot  // oldest first, at most snapshotsKept
	// asking holds the app names being asked of the agent, closed when answered (or not).
	asking map[string]chan struct{}
}

type cachedSnapshot struct {
	id  string
	app string
	// window is the AT-SPI window (object path) a window snapshot was of; "" for an app's.
	window string
	elems  map[string]*agentv1.Element
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
	}
}

// learnAppName asks the agent, in the background, for the name of app id when the session snapshotted it
// without listing it, so its element steps carry the app's name.
func (b *Broker) learnAppName(g *guest, c *snapCache, id string) {
	if id == "" {
		return
	}
	c.mu.Lock()
	_, known := c.apps[id]
	_, asked := c.asking[id]
	if known || asked {
		c.mu.Unlock()
		return
	}
	done := make(chan struct{})
	c.asking[id] = done
	c.mu.Unlock()
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

// waitAppName waits (at most appNameWait) for the name of app id being asked of the agent.
func (c *snapCache) waitAppName(id string) {
	c.mu.Lock()
	done := c.asking[id]
	_, known := c.apps[id]
	c.mu.Unlock()
	if done == nil || known {
		return
	}
	t := time.NewTimer(appNameWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// snapshots is the session's cache, created at first use.
func (s *session) snapshots() *snapCache {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snaps == nil {
		s.snaps = &snapCache{apps: map[string]string{}, asking: map[string]chan struct{}{}}
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
	cs := cachedSnapshot{id: s.GetSnapshotId(), app: s.GetTarget().GetApp().GetAppId(), window: s.GetTarget().GetApp().GetWindowId(), elems: make(map[string]*agentv1.Element, len(s.GetElements()))}
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

// describe is the stable description of the element r acts on, nil when r is no element action or its
// snapshot is not among the session's last ones.
func (c *snapCache) describe(r *agentv1.ActRequest) *recording.Element {
	ref := elementRef(r)
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
	c.waitAppName(app)
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
		if app == "" {
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
