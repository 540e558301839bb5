package broker_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/tests/internal/agenttest"
)

// payload is a file's content generated on the fly (ChaCha8 from a seed), so a 256 MiB file is never held
// in memory, plus an optional literal prefix (a canary).
type payload struct {
	name   string
	size   int64
	seed   uint64
	prefix []byte
}

// each calls fn with the payload's bytes, 1 MiB at a time.
func (p payload) each(fn func([]byte) error) error {
	r := rand.NewChaCha8([32]byte{byte(p.seed), byte(p.seed >> 8)})
	buf := make([]byte, 1<<20)
	var off int64
	for off < p.size {
		n := int(min(int64(len(buf)), p.size-off))
		r.Read(buf[:n])
		if off < int64(len(p.prefix)) {
			copy(buf[:n], p.prefix[off:])
		}
		if err := fn(buf[:n]); err != nil {
			return err
		}
		off += int64(n)
	}
	return nil
}

func (p payload) sha256() string {
	h := sha256.New()
	p.each(func(b []byte) error { h.Write(b); return nil })
	return hex.EncodeToString(h.Sum(nil))
}

// drop sends files through the broker's FilesService.DropFiles.
func drop(ctx context.Context, files brokerv1.FilesServiceClient, session string, target agentv1.DropTarget, ps ...payload) (*brokerv1.DropFilesResponse, error) {
	st, err := files.DropFiles(ctx)
	if err != nil {
		return nil, err
	}
	h := &agentv1.DropFilesHeader{Target: target}
	for _, p := range ps {
		h.Files = append(h.Files, &agentv1.DropFile{Name: p.name, Size: p.size, Sha256: p.sha256()})
	}
	if err := st.Send(&brokerv1.DropFilesRequest{SessionId: session, Request: &agentv1.DropFilesRequest{
		Frame: &agentv1.DropFilesRequest_Header{Header: h}}}); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	for i, p := range ps {
		err := p.each(func(b []byte) error {
			return st.Send(&brokerv1.DropFilesRequest{Request: &agentv1.DropFilesRequest{
				Frame: &agentv1.DropFilesRequest_Chunk{Chunk: &agentv1.FileChunk{File: int32(i), Data: b}}}})
		})
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return st.CloseAndRecv()
}

// peakRSS measures how far a process's resident set grows at its peak during a stretch, from the kernel's
// high-water mark rather than by sampling (which misses a short spike): watchPeakRSS resets VmHWM to the
// current VmRSS (writing 5 to /proc/PID/clear_refs) and keeps that VmRSS; growth reads VmHWM, the largest
// resident set since the reset.
type peakRSS struct {
	pid  int
	base int64 // kB
}

// statusKB reads one "Name:   N kB" line of /proc/PID/status.
func statusKB(t *testing.T, pid int, name string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("/proc/%d/status %s: %v", pid, name, err)
			}
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", name, pid)
	return 0
}

func watchPeakRSS(t *testing.T, pid int) *peakRSS {
	t.Helper()
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		t.Fatalf("reset the peak RSS of pid %d (Linux >= 4.0): %v", pid, err)
	}
	return &peakRSS{pid: pid, base: statusKB(t, pid, "VmRSS")}
}

// growth is the peak resident set since watchPeakRSS less the resident set then, in bytes.
func (r *peakRSS) growth(t *testing.T) int64 {
	t.Helper()
	return (statusKB(t, r.pid, "VmHWM") - r.base) << 10
}

func fileSHA(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// filesSetup is an agent with its own home directory behind a broker.
type filesSetup struct {
	home    string
	agent   *agenttest.Agent
	broker  *brokerProc
	files   brokerv1.FilesServiceClient
	session string
}

func startFiles(t testing.TB, edit func(cfg map[string]any)) *filesSetup {
	t.Helper()
	return startFilesIn(t, t.TempDir(), edit)
}

// startFilesIn is startFiles with the agent's home directory given.
func startFilesIn(t testing.TB, home string, edit func(cfg map[string]any)) *filesSetup {
	t.Helper()
	a := agenttest.Start(t, agenttest.Options{ExtraArgs: []string{"-home", home}})
	p := setupBroker(t, map[string]string{"g1": "unix://" + a.Socket}, edit).start(t)
	return &filesSetup{home: home, agent: a, broker: p, files: brokerv1.NewFilesServiceClient(p.Conn), session: p.session(t, "g1")}
}

const canaryFile = "canary file bytes q7v3 Ünïcode"

// TestDropFilesThroughBroker drops three files (300 MiB in all: one at the 256 MiB cap, one whose name needs
// sanitising, one whose name exists already) and reads the drop directory directly: the right names and
// sha256s, neither process grown by more than 64 MiB, the existing file untouched; a fourth drop over the cap
// is refused before any byte is written.
func TestDropFilesThroughBroker(t *testing.T) {
	f := startFiles(t, nil)
	drops := filepath.Join(f.home, "Drops")
	if err := os.MkdirAll(drops, 0o700); err != nil {
		t.Fatal(err)
	}
	existing := []byte("the user's own report, never overwritten")
	if err := os.WriteFile(filepath.Join(drops, "report.pdf"), existing, 0o600); err != nil {
		t.Fatal(err)
	}
	big := payload{name: "big.bin", size: 256 << 20, seed: 1}
	odd := payload{name: "../../etc/\x01pass\u202ewd.txt", size: 22 << 20, seed: 2, prefix: []byte(canaryFile)}
	dup := payload{name: "report.pdf", size: 22<<20 + 7, seed: 3}
	agentRSS, brokerRSS := watchPeakRSS(t, f.agent.Pid()), watchPeakRSS(t, f.broker.cmd.Process.Pid)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	resp, err := drop(ctx, f.files, f.session, agentv1.DropTarget_DROP_TARGET_UNSPECIFIED, big, odd, dup)
	ag, bg := agentRSS.growth(t), brokerRSS.growth(t)
	if err != nil {
		t.Fatalf("drop: %v", err)
	}
	t.Logf("peak RSS growth during the drop: agent %d MiB, broker %d MiB", ag>>20, bg>>20)
	if ag > 64<<20 || bg > 64<<20 {
		t.Errorf("peak RSS grew by agent %d, broker %d bytes; want <= 64 MiB each", ag, bg)
	}
	want := map[string]payload{"big.bin": big, "_.._etc__pass_wd.txt": odd, "2-report.pdf": dup}
	entries, err := os.ReadDir(drops)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 4 {
		t.Errorf("drop directory holds %q; want the three dropped files and report.pdf", names)
	}
	for name, p := range want {
		if got, wantSum := fileSHA(t, filepath.Join(drops, name)), p.sha256(); got != wantSum {
			t.Errorf("%s: sha256 %s, want %s", name, got, wantSum)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(drops, "report.pdf")); !bytes.Equal(got, existing) {
		t.Errorf("report.pdf was changed: %q", got)
	}
	for i, df := range resp.GetResponse().GetFiles() {
		if _, ok := want[df.GetSavedName()]; !ok || df.GetPath() != filepath.Join(drops, df.GetSavedName()) {
			t.Errorf("response files[%d] = %v; want one of the saved names under %s", i, df, drops)
		}
	}

	// Over the cap: refused naming the field, nothing written (no new file, no temporary file).
	_, err = drop(ctx, f.files, f.session, agentv1.DropTarget_DROP_TARGET_UNSPECIFIED,
		payload{name: "small.txt", size: 10, seed: 4}, payload{name: "huge.bin", size: 256<<20 + 1, seed: 5})
	if !errors.Is(errgrpc.FromError(err), errdefs.ErrInvalidArgument) || !strings.Contains(err.Error(), "request.files[1].size") {
		t.Errorf("oversize drop: %v; want INVALID_ARGUMENT naming request.files[1].size", err)
	}
	after, _ := os.ReadDir(drops)
	if len(after) != len(entries) {
		t.Errorf("after the refused drop the directory holds %d entries, before %d", len(after), len(entries))
	}
	// The other way: reading the 256 MiB file back through broker and agent holds neither process's peak
	// growth above the bound either; the bytes arrive with the file's sha256.
	agentRSS, brokerRSS = watchPeakRSS(t, f.agent.Pid()), watchPeakRSS(t, f.broker.cmd.Process.Pid)
	st, err := f.files.ReadFile(ctx, &brokerv1.ReadFileRequest{SessionId: f.session, Request: &agentv1.ReadFileRequest{Path: filepath.Join(drops, "big.bin")}})
	if err != nil {
		t.Fatal(err)
	}
	h, n := sha256.New(), 0
	for {
		m, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("read big.bin: %v", err)
		}
		h.Write(m.GetResponse().GetData())
		n += len(m.GetResponse().GetData())
	}
	ag, bg = agentRSS.growth(t), brokerRSS.growth(t)
	t.Logf("peak RSS growth during the 256 MiB read: agent %d MiB, broker %d MiB", ag>>20, bg>>20)
	if ag > 64<<20 || bg > 64<<20 {
		t.Errorf("reading: peak RSS grew by agent %d, broker %d bytes; want <= 64 MiB each", ag, bg)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != big.sha256() || n != int(big.size) {
		t.Errorf("read big.bin: %d bytes, sha256 %s; want %d bytes, %s", n, got, big.size, big.sha256())
	}
	checkNoCanary(t, f, odd.sha256())
}

// checkNoCanary fails when the canary file's bytes or its sha256 in clear appear in the audit log or in
// either process's log.
func checkNoCanary(t *testing.T, f *filesSetup, sum string) {
	t.Helper()
	logs := []string{readAuditText(t, f)}
	if logs[0] == "" {
		t.Fatal("no audit records")
	}
	logs = append(logs, f.broker.Log.String(), f.agent.Log.String())
	for i, l := range logs {
		for _, c := range []string{canaryFile, "canary file", sum} {
			if strings.Contains(l, c) {
				t.Errorf("log %d (audit files, broker, agent) holds %q", i, c)
			}
		}
	}
	if !strings.Contains(logs[0], "DropFiles") || !strings.Contains(logs[0], "_.._etc__pass_wd.txt") {
		t.Errorf("the audit log does not record the drop with its saved names:\n%.2000s", logs[0])
	}
}
