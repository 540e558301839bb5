package recording

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"time"

	"glovebox.dev/shared/errdefs"
)

// Store is the directory holding the recordings, one directory each.
type Store struct {
	dir string
}

// Open opens (creating it 0700) the recordings directory.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("recordings dir: %w", err)
	}
	return &Store{dir: dir}, nil
}

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// idRE is the form of recording ids (newID), checked before one is used as a path.
var idRE = regexp.MustCompile(`^rec-[0-9T.]{22}-[0-9a-f]{8}$`)

// CheckID refuses anything but a recording id, so an id never walks out of the store.
func CheckID(id string) error {
	if !idRE.MatchString(id) {
		return fmt.Errorf("recording id %q: want rec-<time>-<hex>: %w", id, errdefs.ErrInvalidArgument)
	}
	return nil
}

// Start creates a new recording.
func (s *Store) Start(meta Meta, now time.Time) (*Recording, error) {
	id := newID(now)
	dir := filepath.Join(s.dir, id)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("recording %s: %w", id, err)
	}
	b, err := json.Marshal(startMeta{Meta: meta, ID: id, Started: now.UTC()})
	if err == nil {
		err = writeSynced(filepath.Join(dir, MetaFile), append(b, '\n'))
	}
	if err != nil {
		return nil, fmt.Errorf("recording %s: %s: %w", id, MetaFile, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, StepsFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("recording %s: %w", id, err)
	}
	return &Recording{id: id, dir: dir, meta: meta, f: f, w: bufio.NewWriter(f), started: now.UTC(), textWake: make(chan struct{}, 1)}, nil
}

// Path is the directory of recording id.
func (s *Store) Path(id string) (string, error) {
	if err := CheckID(id); err != nil {
		return "", err
	}
	return filepath.Join(s.dir, id), nil
}

// ReadManifest reads a sealed recording's manifest.
func (s *Store) ReadManifest(id string) (*Manifest, error) {
	dir, err := s.Path(id)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("recording %s: no manifest (not sealed or not there): %w", id, errdefs.ErrNotFound)
		}
		return nil, err
	}
	m := &Manifest{}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("recording %s: manifest: %v: %w", id, err, errdefs.ErrInternal)
	}
	return m, nil
}

// ReadSteps reads a recording's steps in order.
func (s *Store) ReadSteps(id string) ([]Step, error) {
	dir, err := s.Path(id)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(dir, StepsFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("recording %s: %w", id, errdefs.ErrNotFound)
		}
		return nil, err
	}
	defer f.Close()
	var out []Step
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var st Step
		if err := json.Unmarshal(sc.Bytes(), &st); err != nil {
			return nil, fmt.Errorf("recording %s: step line %d: %v: %w", id, len(out)+1, err, errdefs.ErrInternal)
		}
		out = append(out, st)
	}
	return out, sc.Err()
}

// ReadImages reads the geometry of a recording's screenshots by file name.
func (s *Store) ReadImages(id string) (map[string]Image, error) {
	dir, err := s.Path(id)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(dir, ImagesFile))
	if errors.Is(err, os.ErrNotExist) {
		return map[string]Image{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]Image{}
	for i, line := range splitLines(b) {
		var im Image
		if err := json.Unmarshal(line, &im); err != nil {
			return nil, fmt.Errorf("recording %s: images line %d: %v: %w", id, i+1, err, errdefs.ErrInternal)
		}
		out[im.Name] = im
	}
	return out, nil
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		if i > 0 {
			out = append(out, b[:i])
		}
		if i == len(b) {
			break
		}
		b = b[i+1:]
	}
	return out
}

// Verify checks recording id against the manifest hash the audit chain holds: the manifest hashes to it,
// and every file the manifest lists is there with its hash, and no other file was added. The error names
// the recording and the file; a recording removed from the store is errdefs.ErrNotFound.
func (s *Store) Verify(id, manifestSHA256 string) error {
	dir, err := s.Path(id)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("recording %s: manifest missing: %w", id, errdefs.ErrNotFound)
		}
		return err
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != manifestSHA256 {
		return fmt.Errorf("recording %s: manifest.json hashes to %.12s…, the audit log has %.12s…: %w", id, got, manifestSHA256, errdefs.ErrInternal)
	}
	m := &Manifest{}
	if err := json.Unmarshal(b, m); err != nil {
		return fmt.Errorf("recording %s: manifest: %v: %w", id, err, errdefs.ErrInternal)
	}
	have, err := hashFiles(dir)
	if err != nil {
		return fmt.Errorf("recording %s: %w", id, err)
	}
	for _, name := range sortedNames(m.Files) {
		got, ok := have[name]
		switch {
		case !ok:
			return fmt.Errorf("recording %s: %s is missing: %w", id, name, errdefs.ErrInternal)
		case got != m.Files[name]:
			return fmt.Errorf("recording %s: %s was changed (hashes to %.12s…, manifest has %.12s…): %w", id, name, got, m.Files[name], errdefs.ErrInternal)
		}
	}
	for _, name := range sortedNames(have) {
		if _, ok := m.Files[name]; !ok {
			return fmt.Errorf("recording %s: %s was added after sealing: %w", id, name, errdefs.ErrInternal)
		}
	}
	return nil
}

// Retention bounds the store: sealed recordings older than MaxAge are removed, then the oldest sealed ones
// until the store holds at most MaxBytes. Zero: no bound.
type Retention struct {
	MaxAge   time.Duration
	MaxBytes int64
}

// Prune applies r and returns the manifests of the recordings it removed (the broker audits each removal,
// so verify tells a removed recording from a deleted one). Recordings not sealed are never removed.
func (s *Store) Prune(r Retention, now time.Time) ([]*Manifest, error) {
	if r.MaxAge <= 0 && r.MaxBytes <= 0 {
		return nil, nil
	}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, err
	}
	type rec struct {
		m    *Manifest
		size int64
	}
	var sealed []rec
	var total int64
	for _, e := range entries {
		if !e.IsDir() || CheckID(e.Name()) != nil {
			continue
		}
		size := dirSize(filepath.Join(s.dir, e.Name()))
		total += size
		m, err := s.ReadManifest(e.Name())
		if err != nil {
			continue
		}
		sealed = append(sealed, rec{m, size})
	}
	sort.Slice(sealed, func(i, j int) bool { return sealed[i].m.Ended.Before(sealed[j].m.Ended) })
	var removed []*Manifest
	for _, x := range sealed {
		old := r.MaxAge > 0 && now.Sub(x.m.Ended) > r.MaxAge
		big := r.MaxBytes > 0 && total > r.MaxBytes
		if !old && !big {
			continue
		}
		if err := os.RemoveAll(filepath.Join(s.dir, x.m.ID)); err != nil {
			return removed, err
		}
		total -= x.size
		removed = append(removed, x.m)
	}
	return removed, nil
}

func dirSize(dir string) int64 {
	var n int64
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if info, err := e.Info(); err == nil {
			n += info.Size()
		}
	}
	return n
}
