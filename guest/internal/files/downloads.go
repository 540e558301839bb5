package files

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// MaxDownloads bounds a ListDownloads answer.
const MaxDownloads = 1000

// Downloads lists the regular files of the download directory, newest first, at most MaxDownloads; a
// directory that does not exist yet is an empty list. Chromium's partial files (.crdownload) are listed as
// incomplete.
func (s *Store) Downloads() (*agentv1.ListDownloadsResponse, error) {
	resp := &agentv1.ListDownloadsResponse{Directory: s.downloads}
	entries, err := os.ReadDir(s.downloads)
	if errors.Is(err, fs.ErrNotExist) {
		return resp, nil
	}
	if err != nil {
		return nil, fmt.Errorf("download directory: %w", errors.Join(errdefs.ErrUnavailable, err))
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		resp.Downloads = append(resp.Downloads, &agentv1.Download{Name: e.Name(), Path: filepath.Join(s.downloads, e.Name()),
			Size: info.Size(), ModifiedUnixMs: info.ModTime().UnixMilli(), Complete: !strings.HasSuffix(e.Name(), ".crdownload")})
	}
	slices.SortStableFunc(resp.Downloads, func(a, b *agentv1.Download) int {
		return int(b.GetModifiedUnixMs() - a.GetModifiedUnixMs())
	})
	if len(resp.Downloads) > MaxDownloads {
		resp.Downloads = resp.Downloads[:MaxDownloads]
	}
	return resp, nil
}
