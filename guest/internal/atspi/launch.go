package atspi

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// launchPoll is how often a launch looks for the new app on the bus.
const launchPoll = 50 * time.Millisecond

// launch starts what r.name names and waits for it to appear on the bus.
func (b *Backend) launch(ctx context.Context, r *agentv1.GetAppRequest) (*agentv1.GetAppResponse, error) {
	argv, err := ResolveArgv(r.GetName())
	if err != nil {
		return nil, err
	}
	argv = append(argv, r.GetArgs()...)
	// Always an argv, never a shell: exec.Command runs argv[0] itself.
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = launchEnv(os.Environ(), b.session)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("launch %s: %v: %w", argv[0], err, errdefs.ErrNotFound)
	}
	pid := int32(cmd.Process.Pid)
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait() // reap it; the app outlives this call
		close(exited)
	}()
	b.log.Info("launched app", "argv0", argv[0], "args", len(argv)-1, "pid", pid)

	timeout := DefaultLaunchTimeout
	if ms := r.GetLaunchTimeoutMs(); ms > 0 {
		timeout = time.Duration(ms) * time.Millisecond
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(launchPoll)
	defer tick.Stop()
	notYet := &agentv1.GetAppResponse{Launched: true, Accessible: false, Pid: pid}
	for {
		if apps, err := b.apps(ctx); err == nil {
			for _, a := range apps {
				if a.pid == pid || descends(a.pid, pid) {
					app, err := b.describe(ctx, a)
					if err != nil {
						break
					}
					return &agentv1.GetAppResponse{App: app, Launched: true, Accessible: true, Pid: pid}, nil
				}
			}
		}
		select {
		case <-tick.C:
		case <-exited:
			return notYet, nil
		case <-deadline.C:
			return notYet, nil
		case <-ctx.Done():
			return notYet, nil
		}
	}
}

// descends reports whether process pid descends from ancestor.
func descends(pid, ancestor int32) bool {
	for range 32 {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(int(pid)) + "/stat")
		if err != nil {
			return false
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses, so parse after the last ')'.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 2 {
			return false
		}
		ppid, err := strconv.Atoi(f[1])
		if err != nil || ppid <= 1 {
			return false
		}
		if int32(ppid) == ancestor {
			return true
		}
		pid = int32(ppid)
	}
	return false
}

// launchEnv is the environment of a launched app: the agent's, on the session bus the backend uses, without
// the switches that keep toolkits off the accessibility bus.
func launchEnv(env []string, session string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		switch {
		case strings.HasPrefix(kv, "NO_AT_BRIDGE="), strings.HasPrefix(kv, "DBUS_SESSION_BUS_ADDRESS="):
			continue
		}
		out = append(out, kv)
	}
	return append(out, "DBUS_SESSION_BUS_ADDRESS="+session)
}

// ResolveArgv turns what GetApp names into an argv: an absolute path to an executable, a desktop entry id
// ("org.gnome.gedit" or "gedit.desktop", whose Exec line is split without a shell and stripped of field
// codes), or a program on PATH. Nothing is ever run through a shell.
func ResolveArgv(name string) ([]string, error) {
	if filepath.IsAbs(name) {
		st, err := os.Stat(name)
		if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			return nil, fmt.Errorf("%q is not an executable file: %w", name, errdefs.ErrNotFound)
		}
		return []string{name}, nil
	}
	if strings.ContainsRune(name, '/') {
		return nil, fmt.Errorf("%q: a path must be absolute: %w", name, errdefs.ErrNotFound)
	}
	if path := findDesktopEntry(name); path != "" {
		argv, err := desktopExec(path)
		if err != nil {
			return nil, err
		}
		if !filepath.IsAbs(argv[0]) {
			p, err := exec.LookPath(argv[0])
			if err != nil {
				return nil, fmt.Errorf("desktop entry %s: %q is not on PATH: %w", filepath.Base(path), argv[0], errdefs.ErrNotFound)
			}
			argv[0] = p
		}
		return argv, nil
	}
	p, err := exec.LookPath(name)
	if err != nil || !filepath.IsAbs(p) {
		return nil, fmt.Errorf("%q is neither a desktop entry nor a program on PATH: %w", name, errdefs.ErrNotFound)
	}
	return []string{p}, nil
}

// findDesktopEntry returns the path of the desktop entry with id name (or name.desktop), or "".
func findDesktopEntry(name string) string {
	id := name
	if !strings.HasSuffix(id, ".desktop") {
		id += ".desktop"
	}
	var dirs []string
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		dirs = append(dirs, d)
	} else if h, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(h, ".local", "share"))
	}
	data := os.Getenv("XDG_DATA_DIRS")
	if data == "" {
		data = "/usr/local/share:/usr/share"
	}
	dirs = append(dirs, filepath.SplitList(data)...)
	for _, d := range dirs {
		p := filepath.Join(d, "applications", id)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// desktopExec reads the Exec key of a desktop entry's [Desktop Entry] group and splits it into an argv.
func desktopExec(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("desktop entry %s: %v: %w", path, err, errdefs.ErrNotFound)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	group := ""
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if strings.HasPrefix(line, "[") {
			group = line
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && group == "[Desktop Entry]" && strings.TrimSpace(k) == "Exec" {
			argv, err := SplitExec(strings.TrimSpace(v))
			if err != nil {
				return nil, fmt.Errorf("desktop entry %s: %v: %w", filepath.Base(path), err, errdefs.ErrNotFound)
			}
			return argv, nil
		}
	}
	return nil, fmt.Errorf("desktop entry %s has no Exec key: %w", filepath.Base(path), errdefs.ErrNotFound)
}

// SplitExec splits a desktop entry's Exec value into an argv as the Desktop Entry Specification says: the
// string escapes (\s \n \t \r \\) first, then words separated by spaces, double quotes grouping a word (in
// which \" \` \$ \\ escape), and field codes removed (%f %F %u %U %i %c %k and the deprecated ones; %% is %).
func SplitExec(v string) ([]string, error) {
	v = unescapeString(v)
	var argv []string
	var cur strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case quoted && c == '\\' && i+1 < len(v) && strings.IndexByte("\"`$\\", v[i+1]) >= 0:
			cur.WriteByte(v[i+1])
			i++
		case c == '"':
			quoted = !quoted
			inWord = true
		case !quoted && (c == ' ' || c == '\t'):
			if inWord {
				argv = append(argv, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '%' && i+1 < len(v):
			i++
			inWord = true
			if v[i] == '%' {
				cur.WriteByte('%')
			} else if strings.IndexByte("fFuUickdDnNvm", v[i]) < 0 {
				return nil, fmt.Errorf("unknown field code %%%c", v[i])
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("unterminated quote in Exec")
	}
	if inWord {
		argv = append(argv, cur.String())
	}
	// A field code standing alone leaves an empty word: drop it (a quoted "" stays only if it had content).
	out := argv[:0]
	for _, a := range argv {
		if a != "" {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty Exec")
	}
	return out, nil
}

// unescapeString undoes the escapes of a desktop entry string value.
func unescapeString(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			switch v[i+1] {
			case 's':
				b.WriteByte(' ')
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '\\':
				b.WriteString(`\\`) // the Exec rules see \\ and make it one backslash inside quotes
			default:
				b.WriteByte('\\')
				b.WriteByte(v[i+1])
			}
			i++
			continue
		}
		b.WriteByte(v[i])
	}
	return b.String()
}
