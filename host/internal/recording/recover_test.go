package recording

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCutSealsWhatSurvived: a recording left unsealed (the broker died) is listed by Unsealed and sealed by
// Cut over what survived intact: the half-written last line of steps.jsonl and of images.jsonl is cut off, an
// image no listing names (written in part) is removed, all of it said in the manifest's cut; the manifest
// verifies, and the steps read back. A line that does not decode before the last is not repaired.
func TestCutSealsWhatSurvived(t *testing.T) {
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	rec, err := st.Start(Meta{Kind: KindSession, Guest: "g1", Principal: "p", SessionID: "s-1"}, start)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(st.Dir(), rec.ID())
	rec.WriteImageAsync("seq-000000000001.jpg", func() ([]byte, Image) { return []byte("jpeg 1"), Image{Width: 1, Height: 1, Scale: 1} })
	for i := range 2 {
		if err := rec.Add(&Step{Time: start.Add(time.Duration(i) * time.Second), Source: "AGENT", Principal: "p", RPC: "/x/Act",
			Action: "click", Request: []byte(`{}`), Code: "OK", DurationUs: 1500, AuditSeq: uint64(2*i + 2)}); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, _ := os.ReadFile(filepath.Join(dir, ImagesFile)); len(b) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the image was not listed")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The crash: a step and an image listing half written, an image file written in part.
	appendTo := func(name, s string) {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}
	appendTo(StepsFile, `{"index":2,"time":"2026-12-02T01:00:02Z","sou`)
	appendTo(ImagesFile, `{"name":"seq-00000`)
	if err := os.WriteFile(filepath.Join(dir, "seq-000000000009.jpg"), []byte("jp"), 0o600); err != nil {
		t.Fatal(err)
	}

	ids, err := st.Unsealed()
	if err != nil || !slices.Equal(ids, []string{rec.ID()}) {
		t.Fatalf("unsealed %v, %v; want %s", ids, err, rec.ID())
	}
	m, sum, err := st.Cut(rec.ID())
	if err != nil {
		t.Fatal(err)
	}
	c := m.Cut
	if c == nil || c.Reason != CutReason || c.DroppedLines != 2 || c.DroppedBytes != int64(len(`{"index":2,"time":"2026-12-02T01:00:02Z","sou`)+len(`{"name":"seq-00000`)) ||
		!slices.Equal(c.DroppedFiles, []string{"seq-000000000009.jpg"}) {
		t.Errorf("cut %+v", c)
	}
	if m.Steps != 2 || m.Guest != "g1" || m.SessionID != "s-1" || !m.Started.Equal(start) || !m.Ended.Equal(start.Add(time.Second+1500*time.Microsecond)) {
		t.Errorf("manifest %+v", m)
	}
	if err := st.Verify(rec.ID(), sum); err != nil {
		t.Errorf("verify: %v", err)
	}
	if steps, err := st.ReadSteps(rec.ID()); err != nil || len(steps) != 2 {
		t.Errorf("steps %d, %v", len(steps), err)
	}
	if ids, _ := st.Unsealed(); len(ids) != 0 {
		t.Errorf("still unsealed: %v", ids)
	}

	// Not a torn write: left alone.
	rec2, err := st.Start(Meta{Kind: KindSession, Guest: "g1", Principal: "p"}, start)
	if err != nil {
		t.Fatal(err)
	}
	dir2 := filepath.Join(st.Dir(), rec2.ID())
	if err := os.WriteFile(filepath.Join(dir2, StepsFile), []byte("{}\n{bad\n{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Cut(rec2.ID()); err == nil || !strings.Contains(err.Error(), "not repaired") {
		t.Errorf("a bad middle line: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir2, StepsFile)); string(b) != "{}\n{bad\n{}\n" {
		t.Errorf("steps changed to %q", b)
	}
}
