package bidi

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/firefoxprofile"
)

// Discovery and start-up limits.
const (
	// probeTimeout bounds one read a listing makes of a tab (its title): a page whose script never yields must
	// not stall ListTabs.
	probeTimeout = 2 * time.Second
	// startTimeout bounds waiting for a started Firefox's remote agent: it listens about 2 s after start and
	// takes BiDi sessions a few seconds later on a loaded 2-core machine.
	startTimeout = 45 * time.Second
)

// IsFirefox reports whether a command line's program is Firefox (firefox, firefox-esr, or a path to either).
func IsFirefox(argv0 []byte) bool {
	return strings.HasPrefix(filepath.Base(string(argv0)), "firefox")
}

// cmdlinePorts returns the remote agent ports named on the command lines of running Firefox processes
// (--remote-debugging-port=N or --remote-debugging-port N), read from /proc/*/cmdline.
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
		args := bytes.Split(b, []byte{0})
		if len(args) == 0 || !IsFirefox(args[0]) {
			continue
		}
		for i, arg := range args {
			v, ok := bytes.CutPrefix(arg, []byte(firefoxprofile.PortFlag))
			if !ok && string(arg) == strings.TrimSuffix(firefoxprofile.PortFlag, "=") && i+1 < len(args) {
				v, ok = args[i+1], true
			}
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

// start starts the default workspace Firefox on port with Glovebox's profile preferences and waits until our
// BiDi session on it is open. The process is in its own process group: Close stops it.
func (b *Backend) start(ctx context.Context, port int) (*exec.Cmd, chan struct{}, *instance, error) {
	exe := b.cfg.Executable
	if _, err := exec.LookPath(exe); err != nil {
		return nil, nil, nil, fmt.Errorf("start default firefox: %s: %w: %w", exe, errdefs.ErrCapabilityUnavailable, err)
	}
	if err := firefoxprofile.WriteProfile(b.cfg.ProfileDir); err != nil {
		return nil, nil, nil, fmt.Errorf("start default firefox: profile: %w: %w", errdefs.ErrCapabilityUnavailable, err)
	}
	cmd := exec.Command(exe, firefoxprofile.Args(port, b.cfg.ProfileDir)...)
	env := append(os.Environ(), "MOZ_CRASHREPORTER_DISABLE=1")
	if b.cfg.Display != "" {
		env = append(env, "DISPLAY="+b.cfg.Display)
	}
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, nil, nil, fmt.Errorf("start default firefox: %w: %w", errdefs.ErrCapabilityUnavailable, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(startTimeout)
	for {
		if f, err := b.connect(ctx, port); err == nil {
			b.log.Info("started default firefox", "port", port, "pid", cmd.Process.Pid)
			return cmd, exited, f, nil
		}
		select {
		case <-exited:
			return nil, nil, nil, fmt.Errorf("start default firefox: %s exited before its remote agent port %d answered: %w", exe, port, errdefs.ErrCapabilityUnavailable)
		case <-ctx.Done():
			stopProcess(cmd, exited)
			return nil, nil, nil, fmt.Errorf("start default firefox: %w: %w", errdefs.ErrInterrupted, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			stopProcess(cmd, exited)
			return nil, nil, nil, fmt.Errorf("start default firefox: port %d did not answer within %v: %w", port, startTimeout, errdefs.ErrTimeout)
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
