package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"glovebox.dev/shared/errdefs"
)

// Discovery and start-up limits.
const (
	// probeTimeout bounds one /json/version or /json/list request: a DevTools endpoint on loopback answers in
	// well under a millisecond, a port held by something else must not stall ListBrowsers.
	probeTimeout = 2 * time.Second
	// startTimeout bounds waiting for a started browser's DevTools port.
	startTimeout = 20 * time.Second
	// maxJSONBytes bounds a DevTools HTTP answer (a browser with thousands of tabs stays far below).
	maxJSONBytes = 16 << 20
)

// Command-line flags discovery reads.
const (
	// portFlag names a DevTools port; 0 asks Chromium to pick one and write it to DevToolsActivePort.
	portFlag = "--remote-debugging-port="
	// profileFlag names the profile (user data) directory, where DevToolsActivePort is.
	profileFlag = "--user-data-dir="
	// typeFlag marks a Chromium child process (renderer, zygote, GPU): it names its browser's port, or 0, but
	// never owns a DevToolsActivePort.
	typeFlag = "--type="
)

// activePortFile is the file in a profile where Chromium writes the DevTools port it listens on (first line)
// and its browser endpoint path (second line).
const activePortFile = "DevToolsActivePort"

// cmdlinePorts returns the DevTools ports of the running processes (any program: Chromium, Chrome, an Electron
// app; not Firefox, whose same flag names its WebDriver BiDi port), read from /proc/*/cmdline: a port named by flag, or for --remote-debugging-port=0 the port the browser
// wrote to DevToolsActivePort in its profile.
func cmdlinePorts(proc string) []int {
	dirs, _ := os.ReadDir(proc)
	var ports []int
	add := func(n int) {
		if n > 0 && n <= 65535 && !slices.Contains(ports, n) {
			ports = append(ports, n)
		}
	}
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(proc, d.Name(), "cmdline"))
		if err != nil {
			continue
		}
		c := parseCmdline(b)
		if c.firefox {
			continue
		}
		if c.port > 0 {
			add(c.port)
		} else if c.port == 0 && !c.child {
			for _, dir := range c.profiles {
				if n, ok := activePort(dir); ok {
					add(n)
					break
				}
			}
		}
	}
	return ports
}

// cmdline is what discovery reads from one process's command line.
type cmdline struct {
	// port is the DevTools port flag's value: -1 without the flag, 0 when the browser picks the port.
	port int
	// child says it is a Chromium child process (--type=).
	child bool
	// firefox says the program is Firefox: its --remote-debugging-port is a WebDriver BiDi port.
	firefox bool
	// profiles are the candidates for the profile directory, most likely first: one with NUL separators, one
	// per space the value could end at without them.
	profiles []string
}

// parseCmdline parses /proc/PID/cmdline in both forms Chromium leaves it in: arguments separated by NULs as
// exec passed them, or one string joined by spaces, which Chromium writes over its arguments (setproctitle) in
// its child processes and, once accessibility is on, in the browser process too.
func parseCmdline(b []byte) cmdline {
	c := cmdline{port: -1}
	b = bytes.TrimRight(b, "\x00")
	spaced := !bytes.Contains(b, []byte{0})
	var args [][]byte
	if spaced {
		args = bytes.Split(b, []byte(" "))
	} else {
		args = bytes.Split(b, []byte{0})
	}
	c.firefox = len(args) > 0 && strings.HasPrefix(filepath.Base(string(args[0])), "firefox")
	for i, arg := range args {
		if bytes.HasPrefix(arg, []byte(typeFlag)) {
			c.child = true
		}
		if v, ok := bytes.CutPrefix(arg, []byte(portFlag)); ok {
			if n, err := strconv.Atoi(string(v)); err == nil && n >= 0 {
				c.port = n
			}
		}
		v, ok := bytes.CutPrefix(arg, []byte(profileFlag))
		if !ok || len(v) == 0 {
			continue
		}
		c.profiles = []string{string(v)}
		if spaced {
			// The value may have held spaces: it ends before some later space, most likely before a flag.
			dir := string(v)
			for _, next := range args[i+1:] {
				dir += " " + string(next)
				c.profiles = append(c.profiles, dir)
			}
		}
	}
	if c.profiles == nil && !c.child && c.port == 0 {
		if dir, err := os.UserConfigDir(); err == nil {
			c.profiles = []string{filepath.Join(dir, "chromium"), filepath.Join(dir, "google-chrome")}
		}
	}
	return c
}

// activePort reads the port from a profile's DevToolsActivePort.
func activePort(profile string) (int, bool) {
	f, err := os.Open(filepath.Join(profile, activePortFile))
	if err != nil {
		return 0, false
	}
	defer f.Close()
	var buf [64]byte
	n, _ := io.ReadFull(f, buf[:])
	line, _, _ := bytes.Cut(buf[:n], []byte("\n"))
	p, err := strconv.Atoi(string(bytes.TrimSpace(line)))
	return p, err == nil && p > 0 && p <= 65535
}

// versionInfo is a DevTools /json/version answer.
type versionInfo struct {
	Browser string `json:"Browser"`
	WSURL   string `json:"webSocketDebuggerUrl"`
}

// targetInfo is one entry of a DevTools /json/list answer. Chrome lists targets most recently active first.
type targetInfo struct {
	ID    string `json:"id"`
	Type  string `json:"type"`
	Title string `json:"title"`
	URL   string `json:"url"`
}

// getJSON fetches http://127.0.0.1:<port><path> into v.
func getJSON(ctx context.Context, port int, path string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("port %d%s: HTTP %d", port, path, resp.StatusCode)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, maxJSONBytes)).Decode(v)
}

// pages lists a browser's page targets, most recently active first.
func pages(ctx context.Context, port int) ([]targetInfo, error) {
	var all []targetInfo
	if err := getJSON(ctx, port, "/json/list", &all); err != nil {
		return nil, fmt.Errorf("list tabs of chrome-%d: %w: %w", port, errdefs.ErrUnavailable, err)
	}
	out := all[:0]
	for _, t := range all {
		if t.Type == "page" {
			out = append(out, t)
		}
	}
	return out, nil
}

// startArgs are the flags of the default workspace browser (DEVELOPERS.md): a DevTools port, no first-run
// dialogs, no background traffic, and the renderer accessibility tree kept on (snapshots read it).
func startArgs(port int, profile string, root bool) []string {
	args := []string{
		portFlag + strconv.Itoa(port),
		"--remote-allow-origins=*",
		"--user-data-dir=" + profile,
		"--disable-gpu",
		"--no-first-run",
		"--no-default-browser-check",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		"--force-renderer-accessibility",
		"--password-store=basic",
	}
	if root {
		// Chromium refuses to run as root with its sandbox on.
		args = append(args, "--no-sandbox")
	}
	return append(args, "about:blank")
}

// start starts the default workspace browser on port and waits until its DevTools endpoint answers. The
// process is in its own process group so it outlives nothing it should not: Close stops it.
func (b *Backend) start(ctx context.Context, port int) (*exec.Cmd, chan struct{}, error) {
	exe := b.cfg.Executable
	if _, err := exec.LookPath(exe); err != nil {
		return nil, nil, fmt.Errorf("start default browser: %s: %w: %w", exe, errdefs.ErrCapabilityUnavailable, err)
	}
	if err := os.MkdirAll(b.cfg.ProfileDir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("start default browser: profile: %w: %w", errdefs.ErrCapabilityUnavailable, err)
	}
	cmd := exec.Command(exe, startArgs(port, b.cfg.ProfileDir, os.Geteuid() == 0)...)
	env := os.Environ()
	if b.cfg.Display != "" {
		env = append(env, "DISPLAY="+b.cfg.Display)
	}
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("start default browser: %w: %w", errdefs.ErrCapabilityUnavailable, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(startTimeout)
	for {
		var v versionInfo
		if getJSON(ctx, port, "/json/version", &v) == nil && v.WSURL != "" {
			b.log.Info("started default browser", "port", port, "pid", cmd.Process.Pid)
			return cmd, exited, nil
		}
		select {
		case <-exited:
			return nil, nil, fmt.Errorf("start default browser: %s exited before its DevTools port %d answered: %w", exe, port, errdefs.ErrCapabilityUnavailable)
		case <-ctx.Done():
			stopProcess(cmd, exited)
			return nil, nil, fmt.Errorf("start default browser: %w: %w", errdefs.ErrInterrupted, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			stopProcess(cmd, exited)
			return nil, nil, fmt.Errorf("start default browser: port %d did not answer within %v: %w", port, startTimeout, errdefs.ErrTimeout)
		}
	}
}

// stopProcess stops a browser we started: SIGTERM to its group, then SIGKILL.
func stopProcess(cmd *exec.Cmd, exited <-chan struct{}) {
	pgid := -cmd.Process.Pid
	syscall.Kill(pgid, syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(3 * time.Second):
		syscall.Kill(pgid, syscall.SIGKILL)
		<-exited
	}
}

// productVersion shortens /json/version's Browser ("Chrome/120.0.6099.224") for Browser.version.
func productVersion(s string) string { return strings.TrimSpace(s) }
