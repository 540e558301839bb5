package files

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// Open opens the regular file at path (relative to the home directory, or absolute inside it) for reading,
// refusing (INVALID_ARGUMENT naming path) a path that resolves outside the home directory, symlinks
// included, or that is not a regular file, and (RESOURCE_EXHAUSTED) a file larger than maxBytes (0: the
// agent's cap). Nothing is read before these checks pass. The caller closes the file and sends exactly
// info.Size bytes.
func (s *Store) Open(path string, maxBytes int64) (io.ReadCloser, *agentv1.ReadFileInfo, error) {
	if maxBytes <= 0 || maxBytes > validate.MaxFileBytes {
		maxBytes = validate.MaxFileBytes
	}
	rel, err := s.relative(path)
	if err != nil {
		return nil, nil, err
	}
	// EvalSymlinks gives the reason (where the path leads); opening through the home's os.Root then makes
	// the check hold even if a symlink is swapped in between.
	resolved, err := filepath.EvalSymlinks(filepath.Join(s.home, rel))
	if err != nil {
		return nil, nil, notFound(err)
	}
	inside, err := filepath.Rel(s.home, resolved)
	if err != nil || !filepath.IsLocal(inside) {
		return nil, nil, pathError("resolves outside the home directory")
	}
	// O_NONBLOCK: opening a FIFO must not wait for a writer; the fstat below refuses it.
	f, err := s.root.OpenFile(inside, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, notFound(err)
		}
		if strings.Contains(err.Error(), "escapes") {
			return nil, nil, pathError("resolves outside the home directory")
		}
		return nil, nil, fmt.Errorf("open: %w", errors.Join(errdefs.ErrUnavailable, err))
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("stat: %w", errors.Join(errdefs.ErrUnavailable, err))
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, pathError(fmt.Sprintf("is not a regular file (%s)", st.Mode().Type()))
	}
	if st.Size() > maxBytes {
		f.Close()
		return nil, nil, fmt.Errorf("file of %d bytes is above max_bytes %d: %w", st.Size(), maxBytes, errdefs.ErrResourceExhausted)
	}
	return f, &agentv1.ReadFileInfo{Path: resolved, Size: st.Size()}, nil
}

// relative turns path into one relative to the home directory, refusing an absolute path outside it and
// a relative one that climbs out of it ("../x", "a/../../x") before anything is resolved.
func (s *Store) relative(path string) (string, error) {
	if filepath.IsAbs(path) {
		clean := filepath.Clean(path)
		for _, home := range []string{s.home, s.rawHome} {
			if rel, err := filepath.Rel(home, clean); err == nil && filepath.IsLocal(rel) {
				return rel, nil
			}
			if clean == home {
				return "", pathError("is the home directory, not a file")
			}
		}
		return "", pathError("is outside the home directory")
	}
	if !filepath.IsLocal(path) {
		return "", pathError("climbs out of the home directory")
	}
	return filepath.Clean(path), nil
}

func pathError(why string) error {
	return &errdefs.BadRequest{Violations: []errdefs.Violation{{Field: "path", Description: why}}}
}

func notFound(err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return fmt.Errorf("path: no such file: %w", errdefs.ErrNotFound)
	}
	return fmt.Errorf("path: %w", errors.Join(errdefs.ErrUnavailable, err))
}
