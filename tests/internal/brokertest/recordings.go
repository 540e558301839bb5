package brokertest

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// RecordingsDir is where the broker keeps its recordings (the default, beside the audit directory).
func (b *Broker) RecordingsDir() string { return filepath.Join(filepath.Dir(b.AuditDir), "recordings") }

// WaitSealedRecording waits until the broker's recordings directory holds one recording, sealed (its
// manifest written), and returns its id.
func (b *Broker) WaitSealedRecording(t testing.TB, timeout time.Duration) string {
	t.Helper()
	dir := b.RecordingsDir()
	deadline := time.Now().Add(timeout)
	for {
		entries, err := os.ReadDir(dir)
		if err == nil && len(entries) == 1 {
			if _, err := os.Stat(filepath.Join(dir, entries[0].Name(), "manifest.json")); err == nil {
				return entries[0].Name()
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no single sealed recording in %s within %v (%d entries, %v)", dir, timeout, len(entries), err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
