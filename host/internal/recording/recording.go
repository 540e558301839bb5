// Package recording keeps trajectories: one directory per recording (a session's mutations, or a person's
// input during one control lease) with its steps (steps.jsonl), optional screenshots and, once it ends, a
// manifest whose SHA-256 the broker writes into the guest's audit chain, so an edited recording no longer
// verifies. The directory layout and the step schema are documented in docs/RECORDINGS.md.
package recording

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"glovebox.dev/shared/errdefs"
)

// File names inside a recording's directory.
const (
	StepsFile    = "steps.jsonl"
	ManifestFile = "manifest.json"
)

// Audit rpc names of a recording's life: its manifest hash chained into the guest's log when it ends
// (args recording_id, manifest_sha256, steps, kind), its removal by retention (args recording_id, reason).
// `glovebox audit verify` checks every sealed recording against its Seal record.
const (
	SealRPC   = "/glovebox.broker.v1.Recording/Seal"
	RemoveRPC = "/glovebox.broker.v1.Recording/Remove"
)

// Kinds of recording.
const (
	KindSession = "session"
	KindLease   = "lease"
)

// Meta says whose recording it is.
type Meta struct {
	Kind      string `json:"kind"`
	Guest     string `json:"guest"`
	Principal string `json:"principal"`
	// SessionID is the session recorded (KindSession).
	SessionID string `json:"session_id,omitempty"`
	// KeepsText is true when the policy kept typed and pasted text in clear (request_text).
	KeepsText bool `json:"keeps_text"`
}

// Manifest is a sealed recording's summary: its files' hashes and the recording's span.
type Manifest struct {
	Meta
	ID      string    `json:"id"`
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended"`
	Steps   int       `json:"steps"`
	// Files maps each file of the directory but the manifest to its SHA-256 (hex).
	Files map[string]string `json:"files"`
	// Cut is set when the recording was sealed at a broker start, not when it ended (a crash cut it).
	Cut *Cut `json:"cut,omitempty"`
}

// Recording is one recording being written. Its methods are safe for concurrent use.
type Recording struct {
	id   string
	dir  string
	meta Meta

	mu      sync.Mutex
	f       *os.File
	w       *bufio.Writer
	steps   int
	started time.Time
	sealed  bool
	// closing is set when Seal begins: no more background writes are started.
	closing bool
	err     error
	pending sync.WaitGroup // image and text writes under way
	// textNext is the accessibility text waiting to be taken, textRunning whether a taker runs (text.go).
	textNext    *textJob
	textRunning bool
	// textSince is when the oldest step waiting for a text came; textWake ends the taker's wait at Seal.
	textSince time.Time
	textWake  chan struct{}
	// secrets are the texts the steps typed, redacted from the accessibility texts (AddSecrets).
	secrets []string
}

// newID returns a recording id: time-ordered, with a random part.
func newID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("rec-%s-%s", now.UTC().Format("20060102T150405.000000"), hex.EncodeToString(b[:]))
}

// ID is the recording's id (its directory name).
func (r *Recording) ID() string { return r.id }

// Meta is what the recording was started with.
func (r *Recording) Meta() Meta { return r.meta }

// Add appends one step; its Index is set here. Steps are written in order without an fsync each (Seal
// syncs); an error is sticky and returned again by Seal.
func (r *Recording) Add(s *Step) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sealed {
		return fmt.Errorf("recording %s is sealed: %w", r.id, errdefs.ErrInternal)
	}
	if r.err != nil {
		return r.err
	}
	s.Index = r.steps
	b, err := json.Marshal(s)
	if err != nil {
		r.err = fmt.Errorf("recording %s: step: %w", r.id, err)
		return r.err
	}
	b = append(b, '\n')
	if _, err := r.w.Write(b); err != nil {
		r.err = fmt.Errorf("recording %s: %w", r.id, err)
		return r.err
	}
	// Flushed per step so a crash loses at most the step being written.
	if err := r.w.Flush(); err != nil {
		r.err = fmt.Errorf("recording %s: %w", r.id, err)
		return r.err
	}
	r.steps++
	return nil
}

// NextIndex is the index the next step added will get.
func (r *Recording) NextIndex() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.steps
}

// WriteImageAsync writes an image file (a JPEG screenshot) in the background and lists its geometry in
// images.jsonl; Seal waits for it. produce returns the bytes and geometry, or nil bytes when there is nothing
// to write (the capture failed). Nothing is started once the recording is sealing.
func (r *Recording) WriteImageAsync(name string, produce func() ([]byte, Image)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closing {
		return
	}
	r.pending.Add(1)
	go func() {
		defer r.pending.Done()
		b, geo := produce()
		if b == nil {
			return
		}
		geo.Name = name
		err := os.WriteFile(filepath.Join(r.dir, name), b, 0o600)
		var line []byte
		if err == nil {
			line, err = json.Marshal(geo)
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if err == nil {
			err = appendLine(filepath.Join(r.dir, ImagesFile), line)
		}
		if err != nil && r.err == nil {
			r.err = fmt.Errorf("recording %s: image: %w", r.id, err)
		}
	}()
}

// appendLine appends line and a newline to path.
func appendLine(path string, line []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Seal ends the recording: waits for its images and texts (those running and the one waiting), syncs the
// steps, writes the manifest and returns it with the manifest's SHA-256 (hex), the value the broker chains
// into the audit log. Sealing twice is an error.
func (r *Recording) Seal(now time.Time) (*Manifest, string, error) {
	r.mu.Lock()
	r.closing = true
	r.mu.Unlock()
	select {
	case r.textWake <- struct{}{}:
	default:
	}
	r.pending.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sealed {
		return nil, "", fmt.Errorf("recording %s is sealed: %w", r.id, errdefs.ErrInternal)
	}
	r.sealed = true
	err := r.err
	if ferr := r.w.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	if serr := r.f.Sync(); err == nil && serr != nil {
		err = serr
	}
	if cerr := r.f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return nil, "", fmt.Errorf("recording %s: %w", r.id, err)
	}
	return writeManifest(r.dir, &Manifest{Meta: r.meta, ID: r.id, Started: r.started, Ended: now.UTC(), Steps: r.steps})
}

// writeManifest hashes dir's files into m, writes it as the manifest (whole or not at all: a temporary file
// renamed) and returns it with its SHA-256 (hex).
func writeManifest(dir string, m *Manifest) (*Manifest, string, error) {
	var err error
	if m.Files, err = hashFiles(dir); err != nil {
		return nil, "", err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, "", err
	}
	b = append(b, '\n')
	tmp := filepath.Join(dir, ManifestFile+".tmp")
	if err := writeSynced(tmp, b); err != nil {
		return nil, "", fmt.Errorf("recording %s: manifest: %w", m.ID, err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, ManifestFile)); err != nil {
		return nil, "", fmt.Errorf("recording %s: manifest: %w", m.ID, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	sum := sha256.Sum256(b)
	return m, hex.EncodeToString(sum[:]), nil
}

// hashFiles maps every regular file in dir but the manifest to its SHA-256.
func hashFiles(dir string) (map[string]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, e := range entries {
		if !e.Type().IsRegular() || e.Name() == ManifestFile || e.Name() == ManifestFile+".tmp" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(b)
		out[e.Name()] = hex.EncodeToString(sum[:])
	}
	return out, nil
}

// writeSynced writes b to path and syncs it.
func writeSynced(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// sortedNames returns m's keys in order.
func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
