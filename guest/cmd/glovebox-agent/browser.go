package main

import (
	"context"
	"log/slog"

	"glovebox.dev/guest/internal/browser"
	"glovebox.dev/guest/internal/files"
	"glovebox.dev/guest/internal/server"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// browserBackend is the CDP backend as the server sees it, plus Close.
type browserBackend struct {
	server.Browser
	b *browser.Backend
}

// PlaceFiles gives dropped files to a page element (server.BrowserFiles).
func (b browserBackend) PlaceFiles(ctx context.Context, p *agentv1.PageDrop, paths []string) error {
	return b.b.PlaceFiles(ctx, p, paths)
}

// Close closes the DevTools connections (never a tab) and stops the default browser if the agent started it.
func (b browserBackend) Close() error { return b.b.Close() }

// openBrowser makes the Chromium backend. It connects to nothing until a request comes: browsers are found per
// request on the configured ports and on running browsers' command lines; each saves its downloads into
// downloads (empty: where it would anyway).
func openBrowser(cfg Config, downloads string, log *slog.Logger) browserBackend {
	b := browser.New(browser.Config{
		Ports: cfg.BrowserPorts, ProfileDir: cfg.BrowserProfile, Display: cfg.Display, DownloadDir: downloads,
		Logger: log.With("backend", "browser"),
	})
	return browserBackend{Browser: server.AdaptBrowser(b), b: b}
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
