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

// portFlag is how a Chromium command line names its DevTools port.
const portFlag = "--remote-debugging-port="

// cmdlinePorts returns the DevTools ports named on the command lines of the running processes (any program:
// Chromium, Chrome, an Electron app), read from /proc/*/cmdline.
func cmdlinePorts(proc string) []int {
	dirs, _ := os.ReadDir(proc)
	var ports []int
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(proc, d.Name(), "cmdline"))
		if err != nil {
			continue
		}
		for _, arg := range bytes.Split(b, []byte{0}) {
			v, ok := bytes.CutPrefix(arg, []byte(portFlag))
			if !ok {
				continue
			}
			if n, err := strconv.Atoi(string(v)); err == nil && n > 0 && n <= 65535 && !slices.Contains(ports, n) {
				ports = append(ports, n)
			}
		}
	}
	return ports
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
