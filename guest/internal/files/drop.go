package files

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// maxCandidates bounds the "N-name" prefixes tried for one file before the drop gives up.
const maxCandidates = 10000

// pending is one file of a drop being received into its temporary file.
type pending struct {
	decl *agentv1.DropFile
	tmp  string
	f    *os.File
	sum  hash.Hash
	got  int64
}

// Drop receives the files h declares (validated by the caller) from next (which returns io.EOF after the
// last chunk), verifies each file's size and
// sha256 and only then gives every file its name in the drop directory, so a failed drop leaves nothing.
// Names never replace an existing file: a taken name gets a "2-", "3-", ... prefix.
func (s *Store) Drop(ctx context.Context, h *agentv1.DropFilesHeader, next Next, offer Offer, place Place) (*agentv1.DropFilesResponse, error) {
	switch {
	case h.GetTarget() == agentv1.DropTarget_DROP_TARGET_DESKTOP_CLIPBOARD && offer == nil:
		return nil, fmt.Errorf("target DESKTOP_CLIPBOARD: no clipboard: %w", errdefs.ErrCapabilityUnavailable)
	case h.GetTarget() == agentv1.DropTarget_DROP_TARGET_PAGE && place == nil:
		return nil, fmt.Errorf("target PAGE: no browser: %w", errdefs.ErrCapabilityUnavailable)
	}
	if err := os.MkdirAll(s.drops, 0o700); err != nil {
		return nil, fmt.Errorf("drop directory: %w", errors.Join(errdefs.ErrCapabilityUnavailable, err))
	}
	files := make([]*pending, len(h.GetFiles()))
	defer func() {
		for _, p := range files {
			if p != nil {
				p.f.Close()
				os.Remove(p.tmp)
			}
		}
	}()
	for i, d := range h.GetFiles() {
		f, err := os.CreateTemp(s.drops, ".glovebox-drop-*")
		if err != nil {
			return nil, fmt.Errorf("files[%d]: temporary file: %w", i, writeErr(err))
		}
		files[i] = &pending{decl: d, tmp: f.Name(), f: f, sum: sha256.New()}
	}
	if err := receive(ctx, files, next); err != nil {
		return nil, err
	}
	var bad errdefs.Violations
	for i, p := range files {
		if err := p.f.Close(); err != nil {
			return nil, fmt.Errorf("files[%d]: %w", i, writeErr(err))
		}
		if got := hex.EncodeToString(p.sum.Sum(nil)); got != p.decl.GetSha256() {
			bad.Addf(fmt.Sprintf("files[%d].sha256", i), "the bytes received have another sha256 (%s)", got)
		}
	}
	if err := bad.Err(); err != nil {
		return nil, err
	}
	resp := &agentv1.DropFilesResponse{Directory: s.drops, Target: agentv1.DropTarget_DROP_TARGET_DIRECTORY}
	var named []string
	for i, p := range files {
		path, err := s.name(p.tmp, SanitizeName(p.decl.GetName()))
		if err != nil {
			for _, n := range named {
				os.Remove(n)
			}
			return nil, fmt.Errorf("files[%d]: %w", i, err)
		}
		named = append(named, path)
		resp.Files = append(resp.Files, &agentv1.DroppedFile{Name: p.decl.GetName(), SavedName: filepath.Base(path),
			Path: path, Size: p.got, Sha256: p.decl.GetSha256()})
	}
	var err error
	switch h.GetTarget() {
	case agentv1.DropTarget_DROP_TARGET_DESKTOP_CLIPBOARD:
		text, targets := ClipboardTargets(named)
		if err = offer(ctx, text, targets); err == nil {
			for _, f := range resp.Files {
				f.OnClipboard = true
			}
		}
	case agentv1.DropTarget_DROP_TARGET_PAGE:
		if err = place(ctx, h.GetPage(), named); err == nil {
			resp.PageMode = h.GetPage().GetMode()
			for _, f := range resp.Files {
				f.InPage = true
			}
		}
	}
	if err != nil {
		// Nothing half-done: the files go again with the clipboard or page that did not take them.
		for _, n := range named {
			os.Remove(n)
		}
		return nil, fmt.Errorf("%s: %w", h.GetTarget(), err)
	}
	if h.GetTarget() != agentv1.DropTarget_DROP_TARGET_UNSPECIFIED {
		resp.Target = h.GetTarget()
	}
	s.log.Info("files dropped", "owner", h.GetOwner(), "files", len(files), "bytes", total(files), "target", resp.Target.String())
	return resp, nil
}

// receive writes the chunks to their files and checks that every file got exactly its declared size.
func receive(ctx context.Context, files []*pending, next Next) error {
	hs := startHashing()
	defer hs.stop()
	cur := 0
	for {
		for cur < len(files) && files[cur].got == files[cur].decl.GetSize() {
			cur++
		}
		file, data, err := next()
		if errors.Is(err, io.EOF) {
			if cur < len(files) {
				return &errdefs.BadRequest{Violations: []errdefs.Violation{{Field: fmt.Sprintf("files[%d].size", cur),
					Description: fmt.Sprintf("declared %d bytes, the stream ended after %d", files[cur].decl.GetSize(), files[cur].got)}}}
			}
			return nil
		}
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if cur == len(files) {
			return &errdefs.BadRequest{Violations: []errdefs.Violation{{Field: "chunk",
				Description: "past the last file's declared size"}}}
		}
		p := files[cur]
		n := size(data)
		if err := validate.FileChunk(file, n, cur, p.decl.GetSize()-p.got); err != nil {
			return err
		}
		// Hashed while it is written: the two read the same pieces, on two cores when there are.
		hs.hash(p.sum, data)
		werr := writePieces(p.f, data)
		hs.wait()
		if werr != nil {
			return fmt.Errorf("files[%d]: %w", cur, writeErr(werr))
		}
		p.got += int64(n)
	}
}

// name gives the temporary file tmp its final name in the drop directory: a hard link never replaces an
// existing file (EEXIST), so the first free candidate wins even against a concurrent drop.
func (s *Store) name(tmp, base string) (string, error) {
	for k := 1; k <= maxCandidates; k++ {
		path := filepath.Join(s.drops, cut(candidate(base, k), 255))
		err := os.Link(tmp, path)
		if err == nil {
			return path, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return "", writeErr(err)
		}
	}
	return "", fmt.Errorf("%d names taken: %w", maxCandidates, errdefs.ErrResourceExhausted)
}

// writeErr classifies a file system error: a full disk or quota is RESOURCE_EXHAUSTED, anything else
// UNAVAILABLE.
func writeErr(err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return errors.Join(errdefs.ErrResourceExhausted, err)
	}
	return errors.Join(errdefs.ErrUnavailable, err)
}

func total(files []*pending) (n int64) {
	for _, p := range files {
		n += p.got
	}
	return n
}

// ClipboardTargets are what file managers paste: the paths as text (one a line), text/uri-list (RFC 2483:
// CRLF-terminated URIs) and GNOME's x-special/gnome-copied-files ("copy" then one URI a line).
func ClipboardTargets(paths []string) (text string, targets map[string][]byte) {
	uris := make([]string, len(paths))
	for i, p := range paths {
		uris[i] = (&url.URL{Scheme: "file", Path: p}).String()
	}
	return strings.Join(paths, "\n"), map[string][]byte{
		"text/uri-list":                []byte(strings.Join(uris, "\r\n") + "\r\n"),
		"x-special/gnome-copied-files": []byte("copy\n" + strings.Join(uris, "\n")),
	}
}
