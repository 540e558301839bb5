package recording

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"glovebox.dev/shared/errdefs"
)

// A11yFile lists each accessibility text file written, one Text a line.
const A11yFile = "a11y.jsonl"

// A11yName is the file name of the accessibility text after the step whose outcome record is seq.
func A11yName(seq uint64) string { return fmt.Sprintf("seq-%012d.a11y.txt", seq) }

// Text describes one accessibility text file: the compact text rendering of a detached snapshot of the step's
// target window (AT-SPI) or tab, read after the step within the policy's byte budget. The file's content is
// untrusted text from the guest.
type Text struct {
	Name string `json:"name"`
	// AuditSeq is the audit seq of the step the text was read after (Step.AuditSeq).
	AuditSeq uint64 `json:"audit_seq"`
	// Source is "atspi" (a window's application on the accessibility bus) or "page" (a browser tab).
	Source string `json:"source"`
	// The target read: the X window or the AT-SPI app (and its window, an object path), or the tab.
	WindowID    uint32 `json:"window_id,omitempty"`
	AppID       string `json:"app_id,omitempty"`
	AppWindowID string `json:"app_window_id,omitempty"`
	BrowserID   string `json:"browser_id,omitempty"`
	TabID       string `json:"tab_id,omitempty"`
	// Complete is false when the budget (or the agent) left part of the tree out.
	Complete bool `json:"complete"`
	// Bytes is the file's length; Budget the snapshot budget it was read with.
	Bytes  int   `json:"bytes"`
	Budget int32 `json:"budget"`
	// TookUs is how long the agent took to read it.
	TookUs int64 `json:"took_us"`
}

// The pace of the text reads: a read waits until the recording has had no new step for TextQuiet (so it does
// not compete with the next step for the guest's CPU), but never longer than TextMaxLag after the first step
// it is waiting for (a long burst of steps still gets a text a second).
const (
	TextQuiet  = 50 * time.Millisecond
	TextMaxLag = time.Second
)

// textJob is one text to take: the step's file name and how to read it.
type textJob struct {
	name    string
	seq     uint64
	queued  time.Time
	produce func() ([]byte, Text)
}

// WriteTextAsync reads and writes a step's accessibility text in the background, one at a time per recording,
// paced by TextQuiet and TextMaxLag: a job still waiting when a newer one comes is replaced by it (steps faster
// than that: the newer text shows the state after both, the older name gets no file). Seal waits for the one
// running and reads the one waiting at once, so nothing queued is lost. produce returns the bytes (nil: nothing to write, the read failed) and the
// description; Name, AuditSeq and Bytes are set here. Refused (nothing queued) once the recording is sealing.
func (r *Recording) WriteTextAsync(name string, seq uint64, produce func() ([]byte, Text)) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closing {
		return false
	}
	now := time.Now()
	if r.textNext == nil {
		r.textSince = now
	}
	r.textNext = &textJob{name: name, seq: seq, queued: now, produce: produce}
	if !r.textRunning {
		r.textRunning = true
		r.pending.Add(1)
		go r.takeTexts()
	}
	return true
}

// takeTexts runs the text jobs until none waits.
func (r *Recording) takeTexts() {
	defer r.pending.Done()
	for {
		r.mu.Lock()
		j := r.textNext
		if j == nil {
			r.textRunning = false
			r.mu.Unlock()
			return
		}
		wait := min(time.Until(j.queued.Add(TextQuiet)), time.Until(r.textSince.Add(TextMaxLag)))
		if wait > 0 && !r.closing {
			r.mu.Unlock()
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-r.textWake:
				t.Stop()
			}
			continue
		}
		r.textNext = nil
		r.mu.Unlock()
		b, t := j.produce()
		if b == nil {
			continue
		}
		r.mu.Lock()
		b = r.redact(b)
		r.mu.Unlock()
		// Cut at the budget after the redaction (an agent that did not apply it; a mark longer than its text),
		// so no part of a typed text survives a cut through it.
		if t.Budget > 0 && len(b) > int(t.Budget) {
			b, t.Complete = cutUTF8(b, int(t.Budget)), false
		}
		t.Name, t.AuditSeq, t.Bytes = j.name, j.seq, len(b)
		err := os.WriteFile(filepath.Join(r.dir, j.name), b, 0o600)
		var line []byte
		if err == nil {
			line, err = json.Marshal(t)
		}
		r.mu.Lock()
		if err == nil {
			err = appendLine(filepath.Join(r.dir, A11yFile), line)
		}
		if err != nil && r.err == nil {
			r.err = fmt.Errorf("recording %s: accessibility text: %w", r.id, err)
		}
		r.mu.Unlock()
	}
}

// cutUTF8 cuts b to at most max bytes at a character boundary.
func cutUTF8(b []byte, max int) []byte {
	i := max
	for i > 0 && !utf8.RuneStart(b[i]) {
		i--
	}
	return b[:i]
}

// ReadTexts reads the descriptions of a recording's accessibility texts by file name.
func (s *Store) ReadTexts(id string) (map[string]Text, error) {
	dir, err := s.Path(id)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(dir, A11yFile))
	if os.IsNotExist(err) {
		return map[string]Text{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]Text{}
	for i, line := range splitLines(b) {
		var t Text
		if err := json.Unmarshal(line, &t); err != nil {
			return nil, fmt.Errorf("recording %s: %s line %d: %v: %w", id, A11yFile, i+1, err, errdefs.ErrInternal)
		}
		out[t.Name] = t
	}
	return out, nil
}

// Redaction of typed text in the accessibility texts: without keep_text, what the recording's steps typed,
// pasted or filled is kept only as length + HMAC, and the windows' texts would show it again (an entry's
// value). Each such text of at least MinRedacted bytes is replaced by RedactedMark wherever a text shows it.
const (
	MinRedacted  = 3
	RedactedMark = "[redacted: typed text]"
)

// AddSecrets adds texts a step typed, pasted or filled (before the step is sent, so a text read meanwhile is
// redacted too): every later accessibility text written has them replaced by RedactedMark. Shorter than
// MinRedacted: ignored.
func (r *Recording) AddSecrets(texts ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range texts {
		if len(t) >= MinRedacted && !slices.Contains(r.secrets, t) {
			r.secrets = append(r.secrets, t)
		}
	}
	// Longest first, so a text containing another is replaced whole.
	sort.SliceStable(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
}

// redact replaces the recording's secrets in b; r.mu held.
func (r *Recording) redact(b []byte) []byte {
	for _, s := range r.secrets {
		b = bytes.ReplaceAll(b, []byte(s), []byte(RedactedMark))
	}
	return b
}

// SecretTexts are the texts of a request that its redacted form keeps only as {length, hmac_sha256}: redacted
// is the redacted request's JSON, clear the request's protojson (field names in either JSON or proto form).
func SecretTexts(redacted, clear []byte) []string {
	var rm, cm any
	if json.Unmarshal(redacted, &rm) != nil || json.Unmarshal(clear, &cm) != nil {
		return nil
	}
	var out []string
	walkRedacted(rm, nil, func(path []any) {
		if s, ok := lookup(cm, path).(string); ok && s != "" {
			out = append(out, s)
		}
	})
	return out
}

// lookup finds path in v, matching object keys by their letters only (snake_case and lowerCamelCase agree).
func lookup(v any, path []any) any {
	norm := func(k string) string { return strings.ToLower(strings.ReplaceAll(k, "_", "")) }
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			var next any
			for mk, mv := range m {
				if norm(mk) == norm(k) {
					next = mv
				}
			}
			v = next
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}
