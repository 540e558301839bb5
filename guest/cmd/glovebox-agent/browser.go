package main

import (
	"context"
	"log/slog"

	"glovebox.dev/guest/internal/bidi"
	"glovebox.dev/guest/internal/browser"
	"glovebox.dev/guest/internal/engines"
	"glovebox.dev/guest/internal/files"
	"glovebox.dev/guest/internal/server"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// browserBackend is the browser engines (Chromium over CDP, Firefox over WebDriver BiDi) as the server sees
// them, plus Close.
type browserBackend struct {
	server.Browser
	chromium *browser.Backend
	firefox  *bidi.Backend
}

// PlaceFiles gives dropped files to a page element (server.BrowserFiles): Chromium only, by DevTools.
func (b browserBackend) PlaceFiles(ctx context.Context, p *agentv1.PageDrop, paths []string) error {
	return b.chromium.PlaceFiles(ctx, p, paths)
}

// Close closes the DevTools connections and BiDi sessions (never a tab) and stops the default browsers the
// agent started.
func (b browserBackend) Close() error {
	b.firefox.Close()
	return b.chromium.Close()
}

// openBrowser makes the browser backends. They connect to nothing until a request comes: browsers are found per
// request on the configured ports and on running browsers' command lines; Chromium saves its downloads into
// downloads (empty: where it would anyway).
func openBrowser(cfg Config, downloads string, log *slog.Logger) browserBackend {
	c := browser.New(browser.Config{
		Ports: cfg.BrowserPorts, ProfileDir: cfg.BrowserProfile, Display: cfg.Display, DownloadDir: downloads,
		Logger: log.With("backend", "browser", "engine", "chromium"),
	})
	f := bidi.New(bidi.Config{
		Ports: cfg.FirefoxPorts, ProfileDir: cfg.FirefoxProfile, Display: cfg.Display,
		Logger: log.With("backend", "browser", "engine", "firefox"),
	})
	return browserBackend{Browser: server.AdaptBrowser(engines.New(c, f)), chromium: c, firefox: f}
}

// openFiles makes the file backend over the home directory; nil (drops and reads CAPABILITY_UNAVAILABLE)
// when the home directory cannot be opened.
func openFiles(cfg Config, log *slog.Logger) *files.Store {
	st, err := files.New(files.Config{Home: cfg.Home, Drops: cfg.DropsDir, Downloads: cfg.DownloadsDir,
		Logger: log.With("backend", "files")})
	if err != nil {
		log.Warn("file backend unavailable", "error", err)
		return nil
	}
	return st
}
