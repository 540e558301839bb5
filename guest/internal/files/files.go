// Package files moves files into and out of the desktop user's home: drops are written to a directory the
// agent chooses (~/Drops), under sanitised names that never replace an existing file, each checked against
// its declared size and sha256 before it gets its name; reads are confined to the home directory with every
// symlink resolved. File contents are never logged: only counts, sizes and names.
package files

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// Config says where the store works.
type Config struct {
	// Home is the desktop user's home directory; reads must stay inside it.
	Home string
	// Drops is the directory drops land in (default Home/Drops), created 0700 on the first drop.
	Drops string
	// Downloads is the browser download directory (default Home/Downloads).
	Downloads string
	Logger    *slog.Logger
}

// Offer is what a drop to the desktop clipboard needs of the clipboard: owning CLIPBOARD with text and extra
// targets (target atom name -> bytes) offered together.
type Offer = func(ctx context.Context, text string, targets map[string][]byte) error

// Place is what a drop into a page needs of the browser: the saved files (absolute paths) given to the
// element p names, by a drop event or its file input.
type Place = func(ctx context.Context, p *agentv1.PageDrop, paths []string) error

// Store is the file backend. Its methods are safe for concurrent use.
type Store struct {
	home      string // absolute, symlinks resolved
	rawHome   string // as configured (absolute), for absolute paths given through a symlinked home
	drops     string
	downloads string
	root      *os.Root
	log       *slog.Logger
}

// New opens the store over cfg.Home, which must exist.
func New(cfg Config) (*Store, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Home == "" {
		return nil, fmt.Errorf("files: no home directory: %w", errdefs.ErrCapabilityUnavailable)
	}
	raw, err := filepath.Abs(cfg.Home)
	if err != nil {
		return nil, fmt.Errorf("files: home %q: %w", cfg.Home, errors.Join(errdefs.ErrCapabilityUnavailable, err))
	}
	home, err := filepath.EvalSymlinks(raw)
	if err != nil {
		return nil, fmt.Errorf("files: home %q: %w", cfg.Home, errors.Join(errdefs.ErrCapabilityUnavailable, err))
	}
	root, err := os.OpenRoot(home)
	if err != nil {
		return nil, fmt.Errorf("files: home %q: %w", cfg.Home, errors.Join(errdefs.ErrCapabilityUnavailable, err))
	}
	s := &Store{home: home, rawHome: raw, root: root, log: log,
		drops: cfg.Drops, downloads: cfg.Downloads}
	if s.drops == "" {
		s.drops = filepath.Join(home, "Drops")
	}
	if s.downloads == "" {
		s.downloads = filepath.Join(home, "Downloads")
	}
	return s, nil
}

// Home is the home directory reads are confined to (symlinks resolved).
func (s *Store) Home() string { return s.home }

// DropDir is the directory drops land in.
func (s *Store) DropDir() string { return s.drops }

// DownloadDir is the browser download directory.
func (s *Store) DownloadDir() string { return s.downloads }

// Close releases the home directory handle.
func (s *Store) Close() error { return s.root.Close() }
