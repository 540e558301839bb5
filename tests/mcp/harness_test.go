// Package mcp_test drives `glovebox mcp` with MCP clients Glovebox did not write (the official Go SDK's client
// here, the official TypeScript SDK in js/) against the real broker, agent, a GTK app on an AT-SPI session and
// Debian's Chromium; on the same harness, the CLI's accessibility and browser verbs and the TypeScript gRPC
// client (proto/ts). Effects are checked through the app's own stdout, the page's DOM read over the test's own
// DevTools connection, and the broker's audit files.
package mcp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/a11ybus"
	"glovebox.dev/shared/testenv/desktop"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// python is Debian's interpreter, which has python3-gi.
const python = "/usr/bin/python3"

// Screen and model sizes: the model sees the 1920x1200 screen at 2/3 scale, so coordinate mapping is exercised.
const (
	screenW, screenH = 1920, 1200
	modelW, modelH   = 1280, 800
)

// toScreen is the documented mapping of a model pixel to the screen pixel under its center, written out here
// independently of the server's code.
func toScreen(x, y int) (int, int) {
	return (2*x + 1) * screenW / (2 * modelW), (2*y + 1) * screenH / (2 * modelH)
}

// env is one desktop with the test app, the agent and the broker.
type env struct {
	app    *program
	broker *brokertest.Broker
	conn   *grpc.ClientConn
	// bin is the glovebox CLI binary.
	bin string
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// start brings up the desktop (1920x1200, AT-SPI session), the test app, the agent and the broker.
func start(t *testing.T) *env { return startConfig(t, nil) }

// startConfig is start with edit, when not nil, changing the broker's config.
func startConfig(t *testing.T, edit func(cfg map[string]any), agentArgs ...string) *env {
	t.Helper()
	testenv.NeedCommands(t, python)
	d := desktop.Start(t, desktop.Options{Width: screenW, Height: screenH})
	s := a11ybus.Start(t, d)
	app := startProgram(t, s, python, filepath.Join(agenttest.RepoRoot(t), "tests/mcp/testdata/mcpapp.py"), "mcpapp")
	a := agenttest.Start(t, agenttest.Options{Desktop: d, Env: []string{"DBUS_SESSION_BUS_ADDRESS=" + s.Address}, ExtraArgs: agentArgs})
	b := brokertest.StartConfig(t, a, edit)
	conn, err := grpc.NewClient(b.URI, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(agenttest.MaxMessageBytes)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &env{app: app, broker: b, conn: conn, bin: brokertest.Binary(t, "glovebox")}
}

// program is a started GTK program with its stdout as lines, also copied to the file Output (for clients in
// other languages that read the app's output themselves).
type program struct {
	Output string
	stdin  io.WriteCloser
	mu     sync.Mutex
	lines  []string
}

func startProgram(t *testing.T, s *a11ybus.Session, name string, args ...string) *program {
	t.Helper()
	c := s.Command(name, args...)
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &program{Output: filepath.Join(t.TempDir(), "app-output.txt")}
	if p.stdin, err = c.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	copyTo, err := os.Create(p.Output)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { copyTo.Close() })
	if err := s.StartProgram(t, c); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			fmt.Fprintln(copyTo, sc.Text())
			p.mu.Unlock()
		}
	}()
	return p
}

// waitLine waits until the program printed a line matching re and returns its submatches.
func (p *program) waitLine(t *testing.T, re string, timeout time.Duration) []string {
	t.Helper()
	rx := regexp.MustCompile("^" + re + "$")
	deadline := time.Now().Add(timeout)
	for {
		p.mu.Lock()
		for _, l := range p.lines {
			if m := rx.FindStringSubmatch(l); m != nil {
				p.mu.Unlock()
				return m
			}
		}
		lines := slices.Clone(p.lines)
		p.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("app did not print %q within %v; it printed %q", re, timeout, lines)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// clear forgets what the program printed so far.
func (p *program) clear() {
	p.mu.Lock()
	p.lines = nil
	p.mu.Unlock()
}

// printed is what the program printed since the last clear.
func (p *program) printed() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.lines)
}

// geometry waits for the app's report of a widget's root rectangle.
func (p *program) geometry(t *testing.T, name string) (x, y, w, h int) {
	t.Helper()
	m := p.waitLine(t, fmt.Sprintf(`geometry %s (\d+) (\d+) (\d+) (\d+)`, name), 20*time.Second)
	n := func(s string) int { v, _ := strconv.Atoi(s); return v }
	return n(m[1]), n(m[2]), n(m[3]), n(m[4])
}

// toModel picks the model pixel whose center falls inside the screen rectangle's middle.
func toModel(x, y, w, h int) (int, int) {
	return (x + w/2) * modelW / screenW, (y + h/2) * modelH / screenH
}

// auditText is every audit file of the broker, concatenated.
func auditText(t *testing.T, dir string) string {
	t.Helper()
	var all strings.Builder
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || filepath.Ext(p) == ".key" {
			return err
		}
		data, err := os.ReadFile(p)
		all.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return all.String()
}
