package audit

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// crashHelperEnv makes the test binary a child that appends until killed (see crashHelper).
const crashHelperEnv = "GLOVEBOX_AUDIT_CRASH_DIR"

// crashHelper opens the log named by crashHelperEnv and appends from 8 goroutines forever, printing each
// acknowledged seq on its own line (one write each, so a kill never splits a line); 2 more goroutines
// append with AppendWritten (as the broker does for observations) and print "w <seq>".
func crashHelper() {
	l, err := Open(os.Getenv(crashHelperEnv), testKey, Options{RotateBytes: 16 << 10})
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		os.Exit(2)
	}
	var mu sync.Mutex
	for w := range 8 {
		go func() {
			for i := 0; ; i++ {
				seq, err := l.Append(context.Background(), clickRecord("vm1", fmt.Sprintf("w%d", w), i))
				if err != nil {
					fmt.Fprintln(os.Stderr, "append:", err)
					os.Exit(3)
				}
				mu.Lock()
				os.Stdout.WriteString(strconv.FormatUint(seq, 10) + "\n")
				mu.Unlock()
			}
		}()
	}
	for w := range 2 {
		go func() {
			for i := 0; ; i++ {
				seq, err := l.AppendWritten(context.Background(), clickRecord("vm1", fmt.Sprintf("o%d", w), i))
				if err != nil {
					fmt.Fprintln(os.Stderr, "append written:", err)
					os.Exit(3)
				}
				mu.Lock()
				os.Stdout.WriteString("w " + strconv.FormatUint(seq, 10) + "\n")
				mu.Unlock()
			}
		}()
	}
	select {}
}

// TestCrashSafety kills a child appending under load with SIGKILL at random moments, 24 times over the same
// directory, and checks after each kill that every acknowledged seq is in the log and the chain verifies,
// and that a record AppendWritten returned is in the log when a later durable Append was acknowledged (it
// precedes that record in the file, so the same fsync covered it).
func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	dir := t.TempDir()
	acked := map[uint64]bool{}
	rng := rand.New(rand.NewPCG(1, 2))
	const rounds = 24
	var lastSeq uint64
	for round := range rounds {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashHelperEnv+"="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr lockedBuffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		first := make(chan struct{})
		readDone := make(chan []uint64)
		var written []uint64 // AppendWritten seqs, printed before readDone is sent
		go func() {
			var seqs []uint64
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				line := sc.Text()
				w := strings.HasPrefix(line, "w ")
				seq, err := strconv.ParseUint(strings.TrimPrefix(line, "w "), 10, 64)
				if err != nil {
					continue
				}
				if w {
					written = append(written, seq)
					continue
				}
				if len(seqs) == 0 {
					close(first)
				}
				seqs = append(seqs, seq)
			}
			readDone <- seqs
		}()
		// Most rounds kill under load; every fourth kills at a random moment of startup and recovery.
		if round%4 != 3 {
			select {
			case <-first:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("round %d: no append acknowledged: %s", round, stderr.String())
			}
			time.Sleep(time.Duration(rng.IntN(60_000)) * time.Microsecond)
		} else {
			time.Sleep(time.Duration(rng.IntN(15_000)) * time.Microsecond)
		}
		cmd.Process.Kill() // SIGKILL
		cmd.Wait()
		seqs := <-readDone
		if s := stderr.String(); s != "" {
			t.Fatalf("round %d: child: %s", round, s)
		}
		for _, s := range seqs {
			acked[s] = true
		}

		rep, err := Verify(dir, "vm1")
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if !rep.OK() {
			t.Fatalf("round %d: chain does not verify: %v", round, rep.Problems)
		}
		present := map[uint64]bool{}
		if err := Scan(dir, "vm1", 1, func(r *brokerv1.AuditRecord) error { present[r.GetSeq()] = true; return nil }); err != nil {
			t.Fatal(err)
		}
		var maxAcked uint64
		for _, s := range seqs {
			maxAcked = max(maxAcked, s)
		}
		for s := range acked {
			if !present[s] {
				t.Fatalf("round %d: acknowledged seq %d is not in the log", round, s)
			}
		}
		for _, s := range written {
			if s < maxAcked && !present[s] {
				t.Fatalf("round %d: written seq %d is not in the log, though seq %d after it was acknowledged", round, s, maxAcked)
			}
		}
		if rep.LastSeq < lastSeq {
			t.Fatalf("round %d: log shrank from seq %d to %d", round, lastSeq, rep.LastSeq)
		}
		t.Logf("round %d: %d acknowledged, log at seq %d in %d files, torn tail %d bytes",
			round, len(seqs), rep.LastSeq, rep.Files, rep.TornTailBytes)
		lastSeq = rep.LastSeq
	}
	if len(acked) < rounds {
		t.Errorf("only %d appends acknowledged over %d rounds", len(acked), rounds)
	}
	// A final open repairs any torn tail and the chain still verifies.
	l, err := Open(dir, testKey, Options{})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if rep, err := Verify(dir, "vm1"); err != nil || !rep.OK() || rep.TornTailBytes != 0 {
		t.Errorf("after the last recovery: %+v, %v", rep, err)
	}
}

// lockedBuffer is a goroutine-safe buffer for a child's stderr.
type lockedBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
