package recording

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestTextsLatestWinsAndSealWaits: texts are read one at a time; one waiting while another is read is replaced
// by a newer one (its name gets no file), and Seal waits for the one being read and the one waiting, so the
// manifest covers both, and a11y.jsonl describes each file written.
func TestTextsLatestWinsAndSealWaits(t *testing.T) {
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rec, err := st.Start(Meta{Kind: KindSession, Guest: "g1", Principal: "p"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	started := make(chan struct{})
	produce := func(text string, wait bool) func() ([]byte, Text) {
		return func() ([]byte, Text) {
			if wait {
				close(started)
				select {
				case <-release:
				case <-time.After(10 * time.Second):
					t.Error("the first read was never released")
				}
			}
			return []byte(text), Text{Source: "atspi", Complete: true, Budget: 2048}
		}
	}
	if !rec.WriteTextAsync(A11yName(1), 1, produce("one", true)) {
		t.Fatal("refused before sealing")
	}
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the first read did not start")
	}
	rec.WriteTextAsync(A11yName(2), 2, produce("two", false))
	rec.WriteTextAsync(A11yName(3), 3, produce("three", false)) // replaces 2, which waits
	sealed := make(chan *Manifest, 1)
	go func() {
		m, _, err := rec.Seal(time.Now())
		if err != nil {
			t.Error(err)
		}
		sealed <- m
	}()
	select {
	case <-sealed:
		t.Fatal("sealed while a text was being read")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	var m *Manifest
	select {
	case m = <-sealed:
	case <-time.After(10 * time.Second):
		t.Fatal("Seal did not return")
	}
	if m == nil {
		t.FailNow()
	}
	for _, name := range []string{A11yName(1), A11yName(3), A11yFile} {
		if m.Files[name] == "" {
			t.Errorf("manifest does not cover %s: %v", name, m.Files)
		}
	}
	if _, err := os.Stat(filepath.Join(st.Dir(), rec.ID(), A11yName(2))); !os.IsNotExist(err) {
		t.Errorf("the replaced text was written: %v", err)
	}
	texts, err := st.ReadTexts(rec.ID())
	if err != nil {
		t.Fatal(err)
	}
	if got := texts[A11yName(3)]; got.AuditSeq != 3 || got.Bytes != len("three") || got.Source != "atspi" || len(texts) != 2 {
		t.Errorf("a11y.jsonl: %+v", texts)
	}
	if rec.WriteTextAsync(A11yName(4), 4, produce("four", false)) {
		t.Error("a text queued after sealing")
	}
}

// TestSecretTexts: the texts a redacted request keeps only as length + HMAC are found in the clear request
// whatever the field names' form, and a text written afterwards has each (of at least MinRedacted bytes)
// replaced, the longest first; a short one is left.
func TestSecretTexts(t *testing.T) {
	redacted := []byte(`{"owner":"s-1","type":{"text":{"length":9,"hmac_sha256":"ab"}},"fill":{"tab":{"tab_id":"T"},"value":{"length":2,"hmac_sha256":"cd"}}}`)
	clear := []byte(`{"owner":"s-1","type":{"text":"hunter2 x"},"fill":{"tab":{"tabId":"T"},"value":"ab"}}`)
	got := SecretTexts(redacted, clear)
	if len(got) != 2 || !slices.Contains(got, "hunter2 x") || !slices.Contains(got, "ab") {
		t.Fatalf("secrets %q", got)
	}
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rec, err := st.Start(Meta{Kind: KindSession, Guest: "g1", Principal: "p"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	rec.AddSecrets(append(got, "hunter2")...)
	rec.WriteTextAsync(A11yName(1), 1, func() ([]byte, Text) {
		return []byte(`[e1] text "hunter2 x" (editable) ab hunter2`), Text{Source: "atspi", Budget: 2048}
	})
	if _, _, err := rec.Seal(time.Now()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(st.Dir(), rec.ID(), A11yName(1)))
	if want := `[e1] text "` + RedactedMark + `" (editable) ab ` + RedactedMark; err != nil || string(b) != want {
		t.Errorf("written %q (%v), want %q", b, err, want)
	}
}
