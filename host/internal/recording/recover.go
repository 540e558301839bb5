package recording

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"glovebox.dev/shared/errdefs"
)

// MetaFile holds a recording's Meta and start time from its first moment, so a recording the broker never
// sealed (a crash) can be sealed at the next start.
const MetaFile = "meta.json"

// startMeta is MetaFile's content.
type startMeta struct {
	Meta
	ID      string    `json:"id"`
	Started time.Time `json:"started"`
}

// Cut says why and how a recording was sealed by recovery rather than when it ended.
type Cut struct {
	// Reason is why: the broker stopped (a crash) before sealing it.
	Reason string `json:"reason"`
	// DroppedLines and DroppedBytes count what was cut off the line files (steps.jsonl, images.jsonl,
	// a11y.jsonl): the last line of each, when the crash left it half written.
	DroppedLines int   `json:"dropped_lines"`
	DroppedBytes int64 `json:"dropped_bytes"`
	// DroppedFiles are the image and text files removed because no listing names them (written in part).
	DroppedFiles []string `json:"dropped_files,omitempty"`
}

// CutReason is Cut.Reason of a recording sealed at broker start.
const CutReason = "the broker stopped before sealing it"

// Cut seals, as cut, recording id found unsealed (no manifest) at broker start: a half-written last line of
// its line files is cut off, files no listing names are removed (both said in the manifest's cut), and the
// manifest is written over what is left, with Ended the last intact step's end (or the start). It returns
// the manifest and its SHA-256 for the audit chain. A recording without MetaFile (made before it existed)
// cannot be placed in a guest's chain: an error (errdefs.ErrInternal), the recording left as it is.
func (s *Store) Cut(id string) (*Manifest, string, error) {
	dir, err := s.Path(id)
	if err != nil {
		return nil, "", err
	}
	b, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, "", fmt.Errorf("recording %s: no %s (made by an older broker): %w", id, MetaFile, errdefs.ErrInternal)
		}
		return nil, "", err
	}
	var sm startMeta
	if err := json.Unmarshal(b, &sm); err != nil || sm.ID != id {
		return nil, "", fmt.Errorf("recording %s: %s unreadable: %w", id, MetaFile, errdefs.ErrInternal)
	}
	cut := &Cut{Reason: CutReason}
	for _, name := range []string{StepsFile, ImagesFile, A11yFile} {
		dropped, err := cutTorn(filepath.Join(dir, name))
		if err != nil {
			return nil, "", fmt.Errorf("recording %s: %s: %w", id, name, err)
		}
		if dropped > 0 {
			cut.DroppedLines++
			cut.DroppedBytes += dropped
		}
	}
	steps, err := s.ReadSteps(id)
	if err != nil {
		return nil, "", err
	}
	listed := map[string]bool{StepsFile: true, ImagesFile: true, A11yFile: true, MetaFile: true}
	images, err := s.ReadImages(id)
	if err != nil {
		return nil, "", err
	}
	for name := range images {
		listed[name] = true
	}
	texts, err := s.ReadTexts(id)
	if err != nil {
		return nil, "", err
	}
	for name := range texts {
		listed[name] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, "", err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || listed[e.Name()] {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return nil, "", fmt.Errorf("recording %s: %w", id, err)
		}
		cut.DroppedFiles = append(cut.DroppedFiles, e.Name())
	}
	sort.Strings(cut.DroppedFiles)
	ended := sm.Started
	if n := len(steps); n > 0 {
		ended = steps[n-1].Time.Add(time.Duration(steps[n-1].DurationUs) * time.Microsecond)
	}
	m := &Manifest{Meta: sm.Meta, ID: id, Started: sm.Started, Ended: ended.UTC(), Steps: len(steps), Cut: cut}
	return writeManifest(dir, m)
}

// cutTorn cuts the last line of a line file off when a crash left it half written (no newline, or not
// JSON) and returns the bytes dropped. A line that does not decode before the last is not a torn write: it is
// not repaired (errdefs.ErrInternal). A missing file is no error.
func cutTorn(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	keep := 0
	for keep < len(b) {
		i := bytes.IndexByte(b[keep:], '\n')
		if i < 0 || !json.Valid(b[keep:keep+i]) {
			break
		}
		keep += i + 1
	}
	if keep == len(b) {
		return 0, nil
	}
	if i := bytes.IndexByte(b[keep:], '\n'); i >= 0 && keep+i+1 < len(b) {
		return 0, fmt.Errorf("line at byte %d does not decode and lines follow it: not a torn write, not repaired: %w", keep, errdefs.ErrInternal)
	}
	if err := os.Truncate(path, int64(keep)); err != nil {
		return 0, err
	}
	return int64(len(b) - keep), nil
}

// Unsealed lists the recordings of the store that have no manifest, oldest first.
func (s *Store) Unsealed() ([]string, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || CheckID(e.Name()) != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(s.dir, e.Name(), ManifestFile)); errors.Is(err, os.ErrNotExist) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}
