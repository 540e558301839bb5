// Package vm_test boots the test guest (images/test-guest) under QEMU/TCG and drives its desktop through a
// real glovebox-broker over virtio-serial; the in-guest vsock check runs inside the guest. It needs
// qemu-system-x86, linux-image-amd64 and busybox-static (skipped without them, failing under
// GLOVEBOX_REQUIRE_ALL=1). One boot serves every check, since TCG is slow.
package vm_test

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// guest is a booted test guest.
type guest struct {
	dir    string // sockets and the shared directory (/shared in the guest)
	start  time.Time
	build  string // images/test-guest/build
	cmd    *exec.Cmd
	exited chan struct{}

	mu      sync.Mutex
	console strings.Builder
	marks   map[string]time.Duration // GLOVEBOX-MARK name -> host time since QEMU start when it was printed
	markCh  chan struct{}
}

// needVM skips (or fails under GLOVEBOX_REQUIRE_ALL=1) without QEMU, the Debian kernel or busybox.
func needVM(t *testing.T) {
	t.Helper()
	testenv.NeedCommands(t, "qemu-system-x86_64", "cpio", "xz")
	if m, _ := filepath.Glob("/boot/vmlinuz-*"); len(m) == 0 {
		testenv.Missing(t, "no /boot/vmlinuz-* (apt-get install linux-image-amd64)")
	}
	if _, err := os.Stat("/bin/busybox"); err != nil {
		testenv.Missing(t, "no /bin/busybox (apt-get install busybox-static)")
	}
}

// bootGuest builds the test guest (images/test-guest/build.sh, idempotent) and starts QEMU; QEMU is
// killed when the test ends.
func bootGuest(t *testing.T) *guest {
	t.Helper()
	root := agenttest.RepoRoot(t)
	build := exec.Command(filepath.Join(root, "images/test-guest/build.sh"))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("images/test-guest/build.sh: %v\n%s", err, out)
	}
	return startQEMU(t, filepath.Join(root, "images/test-guest/run.sh"), filepath.Join(root, "images/test-guest/build"))
}

// startQEMU runs a boot script (run.sh of the test guest, boot.sh of the desktop image) with GB_VM_DIR set
// to a fresh directory; QEMU is killed when the test ends.
func startQEMU(t *testing.T, script, build string, env ...string) *guest {
	t.Helper()
	dir, err := os.MkdirTemp("", "gbvm") // short: unix socket paths are limited to 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	g := &guest{dir: dir, build: build, marks: map[string]time.Duration{}, markCh: make(chan struct{}), exited: make(chan struct{})}
	g.cmd = exec.Command(script)
	g.cmd.Env = append(append(os.Environ(), "GB_VM_DIR="+dir), env...)
	out, err := g.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	g.cmd.Stderr = g.cmd.Stdout
	g.start = time.Now()
	if err := g.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go g.readConsole(out)
	t.Cleanup(func() {
		g.cmd.Process.Kill()
		<-g.exited
		if t.Failed() {
			t.Logf("guest console:\n%s", g.consoleText())
			for _, f := range []string{"agent.log"} {
				if b, err := os.ReadFile(filepath.Join(dir, "shared", f)); err == nil {
					t.Logf("%s:\n%s", f, b)
				}
			}
		}
	})
	return g
}

func (g *guest) readConsole(r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		at := time.Since(g.start)
		g.mu.Lock()
		g.console.WriteString(line + "\n")
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "GLOVEBOX-MARK" {
			if _, seen := g.marks[f[1]]; !seen {
				g.marks[f[1]] = at
			}
			close(g.markCh)
			g.markCh = make(chan struct{})
		}
		g.mu.Unlock()
	}
	g.cmd.Wait()
	close(g.exited)
}

func (g *guest) consoleText() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.console.String()
}

// mark returns when (since QEMU start) the console marker name was printed, if it was.
func (g *guest) mark(name string) (time.Duration, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	at, ok := g.marks[name]
	return at, ok
}

// markNames returns the names of the console markers printed so far, in the order they were printed.
func (g *guest) markNames() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	names := make([]string, 0, len(g.marks))
	for n := range g.marks {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(g.marks[a], g.marks[b]) })
	return names
}

// waitMark waits for the console marker name and returns when (since QEMU start) it was printed.
func (g *guest) waitMark(t *testing.T, name string, timeout time.Duration) time.Duration {
	t.Helper()
	deadline := time.After(timeout)
	for {
		g.mu.Lock()
		at, ok := g.marks[name]
		ch := g.markCh
		g.mu.Unlock()
		if ok {
			return at
		}
		select {
		case <-ch:
		case <-g.exited:
			t.Fatalf("QEMU exited before %s", name)
		case <-deadline:
			t.Fatalf("no %s marker within %v", name, timeout)
		}
	}
}

// shell is the root shell on the guest's org.glovebox.test.ctl port.
type shell struct {
	c   net.Conn
	r   *bufio.Reader
	seq int
}

// openShell connects to the control port and waits until the guest's shell answers.
func (g *guest) openShell(t *testing.T, timeout time.Duration) *shell {
	t.Helper()
	c, err := net.Dial("unix", filepath.Join(g.dir, "ctl.sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s := &shell{c: c, r: bufio.NewReader(c)}
	if out := s.run(t, timeout, "echo shell-up"); strings.TrimSpace(out) != "shell-up" {
		t.Fatalf("guest shell answered %q", out)
	}
	return s
}

// run runs a command line in the guest and returns its output; a non-zero exit fails the test.
func (s *shell) run(t *testing.T, timeout time.Duration, cmdline string) string {
	t.Helper()
	out, code := s.try(t, timeout, cmdline)
	if code != "0" {
		t.Fatalf("guest: %s: exit %s\n%s", cmdline, code, out)
	}
	return out
}

// try runs a command line in the guest and returns its output and exit status.
func (s *shell) try(t *testing.T, timeout time.Duration, cmdline string) (string, string) {
	t.Helper()
	s.seq++
	end := fmt.Sprintf("__GB_END_%d__", s.seq)
	s.c.SetDeadline(time.Now().Add(timeout))
	defer s.c.SetDeadline(time.Time{})
	if _, err := fmt.Fprintf(s.c, "%s\necho; echo %s $?\n", cmdline, end); err != nil {
		t.Fatalf("guest shell: %v", err)
	}
	var out strings.Builder
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			t.Fatalf("guest shell: %s: %v (output so far %q)", cmdline, err, out.String())
		}
		if rest, ok := strings.CutPrefix(line, end+" "); ok {
			return strings.TrimSuffix(out.String(), "\n"), strings.TrimSpace(rest)
		}
		out.WriteString(line)
	}
}

// broker is a glovebox-broker process on a config that lets this uid do everything.
type broker struct {
	dir, cfg, sock, auditDir string
	cmd                      *exec.Cmd
	done                     chan struct{}
	log                      *agenttest.SyncBuffer
	conn                     *grpc.ClientConn
}

func newBroker(t *testing.T) *broker {
	t.Helper()
	dir, err := os.MkdirTemp("", "gbb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	b := &broker{dir: dir, cfg: filepath.Join(dir, "broker.json"), sock: filepath.Join(dir, "broker.sock"), auditDir: filepath.Join(dir, "audit")}
	cfg := map[string]any{
		"listen": []string{"unix://" + b.sock},
		"audit":  map[string]any{"dir": b.auditDir, "key_file": filepath.Join(b.auditDir, "audit.key")},
		"principals": []map[string]any{{
			"name": "vmtest", "uids": []int{os.Getuid()}, "guests": []string{"*"}, "control": true, "admin": true, "audit": true,
			"rate_per_second": -1,
		}},
		"guest_call_timeout": "10s",
	}
	data, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b.cfg, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return b
}

// start runs the broker and waits until its socket accepts connections.
func (b *broker) start(t *testing.T) {
	t.Helper()
	os.Remove(b.sock) // a killed broker leaves its socket behind
	b.log = &agenttest.SyncBuffer{}
	b.done = make(chan struct{})
	b.cmd = exec.Command(brokertest.Binary(t, "glovebox-broker"), "-config", b.cfg, "-log-level", "debug")
	b.cmd.Stderr = b.log
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cmd, done, log := b.cmd, b.done, b.log
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
		if t.Failed() {
			t.Logf("broker log:\n%s", log.String())
		}
	})
	conn, err := grpc.NewClient("unix://"+b.sock, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(agenttest.MaxMessageBytes)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	b.conn = conn
	for deadline := time.Now().Add(20 * time.Second); ; {
		// A dial, not the socket file: the file exists between the broker's bind and its listen.
		if c, err := net.Dial("unix", b.sock); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("broker socket never appeared\n%s", b.log.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// kill sends SIGKILL and waits until the process is gone.
func (b *broker) kill() {
	b.cmd.Process.Kill()
	<-b.done
}

// waitReady waits until the broker reports the guest READY and returns it.
func (b *broker) waitReady(t *testing.T, name string, timeout time.Duration, ok func(*brokerv1.Guest) bool) *brokerv1.Guest {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last string
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		r, err := brokerv1.NewGuestServiceClient(b.conn).GetGuest(ctx, &brokerv1.GetGuestRequest{Name: name})
		cancel()
		if err == nil && r.GetGuest().GetState() == brokerv1.GuestState_GUEST_STATE_READY && (ok == nil || ok(r.GetGuest())) {
			return r.GetGuest()
		}
		last = fmt.Sprint(r.GetGuest().GetState(), " ", r.GetGuest().GetLastError(), " ", err)
		if time.Now().After(deadline) {
			t.Fatalf("guest %s not ready within %v: %s", name, timeout, last)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
