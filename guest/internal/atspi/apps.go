package atspi

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/godbus/dbus/v5"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// appRef is an application on the bus: its unique bus name and the pid the bus daemon resolved for it.
type appRef struct {
	bus string
	pid int32
}

func (a appRef) id() string { return AppID(a.pid) }

// AppID is the app_id of the application with process id pid.
func AppID(pid int32) string { return "app:" + strconv.Itoa(int(pid)) }

// ParseAppID returns the pid of an app_id ("app:<pid>").
func ParseAppID(id string) (int32, error) {
	s, ok := strings.CutPrefix(id, "app:")
	n, err := strconv.ParseInt(s, 10, 32)
	if !ok || err != nil || n <= 0 {
		return 0, fmt.Errorf("app_id %q: want app:<pid>: %w", id, errdefs.ErrInvalidArgument)
	}
	return int32(n), nil
}

// apps lists the applications the registry knows, with their pids (from the bus daemon, cached per unique
// bus name). Applications whose pid cannot be resolved (gone meanwhile) are left out.
func (b *Backend) apps(ctx context.Context) ([]appRef, error) {
	var kids []struct {
		Name string
		Path dbus.ObjectPath
	}
	if err := b.call(ctx, registryName, rootPath, ifAccessible+".GetChildren").Store(&kids); err != nil {
		return nil, fmt.Errorf("atspi registry: %v: %w", err, errdefs.ErrUnavailable)
	}
	if len(kids) > 0 {
		b.seenApp.Store(true)
	}
	out := make([]appRef, len(kids))
	var wg sync.WaitGroup
	for i, k := range kids {
		out[i].bus = k.Name
		b.mu.Lock()
		pid, ok := b.pids[k.Name]
		b.mu.Unlock()
		if ok {
			out[i].pid = pid
			continue
		}
		wg.Go(func() {
			var pid uint32
			if err := b.call(ctx, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.GetConnectionUnixProcessID", k.Name).Store(&pid); err != nil {
				return
			}
			out[i].pid = int32(pid)
			b.mu.Lock()
			b.pids[k.Name] = int32(pid)
			b.mu.Unlock()
		})
	}
	wg.Wait()
	return slices.DeleteFunc(out, func(a appRef) bool { return a.pid <= 0 }), nil
}

// app resolves an app_id to the application on the bus, or NOT_FOUND.
func (b *Backend) app(ctx context.Context, appID string) (appRef, error) {
	pid, err := ParseAppID(appID)
	if err != nil {
		return appRef{}, err
	}
	apps, err := b.apps(ctx)
	if err != nil {
		return appRef{}, err
	}
	for _, a := range apps {
		if a.pid == pid {
			return a, nil
		}
	}
	if b.wasOnBus(pid) {
		// It quit (or left the bus): the same answer an element action on it gets.
		return appRef{}, errgrpc.WithCause(fmt.Errorf("%s left the accessibility bus: %w", appID, errdefs.ErrTargetGone), errgrpc.CauseGone)
	}
	return appRef{}, fmt.Errorf("%s: no such application on the accessibility bus: %w", appID, errdefs.ErrNotFound)
}

// wasOnBus reports whether an application with pid was seen on the bus by this backend (the pid cache keeps
// every bus name it looked up).
func (b *Backend) wasOnBus(pid int32) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.pids {
		if p == pid {
			return true
		}
	}
	return false
}

// describe reads an application's name, toolkit and windows.
func (b *Backend) describe(ctx context.Context, a appRef) (*agentv1.App, error) {
	app := &agentv1.App{AppId: a.id(), Pid: a.pid}
	p := b.newPipe(ctx)
	var wins []struct {
		Name string
		Path dbus.ObjectPath
	}
	var werr error
	p.do(a.bus, rootPath, ifProperties+".Get", []any{ifAccessible, "Name"}, func(c *dbus.Call) {
		var v dbus.Variant
		if c.Store(&v) == nil {
			app.Name, _ = v.Value().(string)
		}
	})
	p.do(a.bus, rootPath, ifProperties+".Get", []any{ifApplication, "ToolkitName"}, func(c *dbus.Call) {
		var v dbus.Variant
		if c.Store(&v) == nil {
			app.Toolkit, _ = v.Value().(string)
		}
	})
	p.do(a.bus, rootPath, ifProperties+".Get", []any{ifApplication, "Version"}, func(c *dbus.Call) {
		var v dbus.Variant
		if c.Store(&v) == nil {
			app.ToolkitVersion, _ = v.Value().(string)
		}
	})
	p.do(a.bus, rootPath, ifAccessible+".GetChildren", nil, func(c *dbus.Call) { werr = c.Store(&wins) })
	p.wait()
	if werr != nil {
		return nil, classify(app.AppId, werr)
	}
	app.Windows = make([]*agentv1.AppWindow, len(wins))
	q := b.newPipe(ctx)
	for i, w := range wins {
		aw := &agentv1.AppWindow{WindowId: string(w.Path)}
		app.Windows[i] = aw
		q.do(w.Name, w.Path, ifProperties+".Get", []any{ifAccessible, "Name"}, func(c *dbus.Call) {
			var v dbus.Variant
			if c.Store(&v) == nil {
				aw.Name, _ = v.Value().(string)
			}
		})
		q.do(w.Name, w.Path, ifAccessible+".GetRole", nil, func(c *dbus.Call) {
			var r uint32
			if c.Store(&r) == nil {
				aw.Role = roleName(r)
			}
		})
		q.do(w.Name, w.Path, ifAccessible+".GetState", nil, func(c *dbus.Call) {
			var s []uint32
			if c.Store(&s) == nil {
				aw.States = stateList(s)
			}
		})
		q.do(w.Name, w.Path, ifComponent+".GetExtents", []any{coordScreen}, func(c *dbus.Call) {
			var r struct{ X, Y, W, H int32 }
			if c.Store(&r) == nil {
				aw.Bounds = rect(r.X, r.Y, r.W, r.H)
			}
		})
	}
	q.wait()
	return app, nil
}

// ListApps lists every application on the bus with its windows.
func (b *Backend) ListApps(ctx context.Context, _ *agentv1.ListAppsRequest) (*agentv1.ListAppsResponse, error) {
	apps, err := b.apps(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*agentv1.App, len(apps))
	var wg sync.WaitGroup
	for i, a := range apps {
		wg.Go(func() { out[i], _ = b.describe(ctx, a) })
	}
	wg.Wait()
	out = slices.DeleteFunc(out, func(a *agentv1.App) bool { return a == nil })
	slices.SortFunc(out, func(x, y *agentv1.App) int { return int(x.Pid - y.Pid) })
	return &agentv1.ListAppsResponse{Apps: out}, nil
}

// GetApp finds an application by app_id or by name (case-insensitive exact match); see AccessibilityService.
func (b *Backend) GetApp(ctx context.Context, r *agentv1.GetAppRequest) (*agentv1.GetAppResponse, error) {
	if id := r.GetAppId(); id != "" {
		a, err := b.app(ctx, id)
		if err != nil {
			return nil, err
		}
		app, err := b.describe(ctx, a)
		if err != nil {
			return nil, err
		}
		return &agentv1.GetAppResponse{App: app, Accessible: true, Pid: app.Pid}, nil
	}
	list, err := b.ListApps(ctx, nil)
	if err != nil {
		return nil, err
	}
	var found []*agentv1.App
	for _, a := range list.Apps {
		if strings.EqualFold(cleanName(a.Name), r.GetName()) {
			found = append(found, a)
		}
	}
	switch {
	case len(found) == 1:
		return &agentv1.GetAppResponse{App: found[0], Accessible: true, Pid: found[0].Pid}, nil
	case len(found) > 1:
		ids := make([]string, len(found))
		for i, a := range found {
			ids[i] = a.AppId
		}
		return nil, errgrpc.WithMetadata(fmt.Errorf("%d applications are named %q (%s); name one by app_id: %w",
			len(found), r.GetName(), strings.Join(ids, ", "), errdefs.ErrTargetAmbiguous),
			map[string]string{"candidates": strings.Join(ids, ",")})
	case !r.GetLaunch():
		return nil, fmt.Errorf("no application named %q on the accessibility bus: %w", r.GetName(), errdefs.ErrNotFound)
	}
	return b.launch(ctx, r)
}
