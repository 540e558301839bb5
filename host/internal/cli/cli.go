// Package cli implements the glovebox command line client of glovebox-broker: guests, sessions, screenshots,
// every act verb (desktop, element and page actions), accessibility and browser reads, the clipboard, control
// takeover, the audit log tools and the MCP server on stdio. main only calls Run.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"google.golang.org/grpc"
)

// Exit codes of Run.
const (
	// ExitOK: the command did what was asked.
	ExitOK = 0
	// ExitFailure: an RPC failed, a file could not be read or written, or `audit verify` found a break.
	ExitFailure = 1
	// ExitUsage: the command line is wrong; nothing was sent.
	ExitUsage = 2
)

const (
	// DefaultBroker is the broker's default unix socket (the systemd unit's RuntimeDirectory).
	DefaultBroker = "unix:///run/glovebox/broker.sock"
	// defaultTimeout bounds each unary call; long enough for a 60 s wait or hold_key plus an observation.
	defaultTimeout = 90 * time.Second
)

// Env is what Run reads and writes besides its arguments, so tests can run it in process.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads GLOVEBOX_BROKER, GLOVEBOX_SESSION, GLOVEBOX_CERT, GLOVEBOX_KEY and GLOVEBOX_CA; nil reads none.
	Getenv func(string) string
	// DialOptions are appended to the options used to reach the broker (tests pass a bufconn dialer).
	DialOptions []grpc.DialOption
}

// usageError is a wrong command line: Run prints it with the command's usage and exits with ExitUsage.
type usageError struct {
	cmd string
	msg string
}

func (e *usageError) Error() string { return e.msg }

func usagef(cmd, format string, args ...any) error {
	return &usageError{cmd: cmd, msg: fmt.Sprintf(format, args...)}
}

// usages are the commands' usage lines, by command name (the first argument).
var usages = map[string]string{
	"guests":       usageGuests,
	"sessions":     usageSessions,
	"screenshot":   usageScreenshot,
	"act":          usageAct,
	"windows":      usageWindows,
	"cursor":       usageCursor,
	"clipboard":    usageClipboard,
	"files":        usageFiles,
	"control":      usageControl,
	"audit":        usageAudit,
	"view":         usageView,
	"help-request": usageHelp,
	"events":       usageEvents,
	"mcp":          usageMCP,
	"apps":         usageApps,
	"app":          usageApp,
	"snapshot":     usageSnapshot,
	"browsers":     usageBrowsers,
	"tabs":         usageTabs,
	"extract":      usageExtract,
	"recording":    usageRecording,
}

// commandRun returns what a command does with the arguments after its name. It is a function rather than a
// map beside usages because the commands themselves print usages.
func commandRun(name string) func(r *runner, args []string) error {
	switch name {
	case "guests":
		return (*runner).guests
	case "sessions":
		return (*runner).sessions
	case "screenshot":
		return (*runner).screenshot
	case "act":
		return (*runner).act
	case "windows":
		return (*runner).windows
	case "cursor":
		return (*runner).cursor
	case "clipboard":
		return (*runner).clipboard
	case "files":
		return (*runner).files
	case "control":
		return (*runner).control
	case "audit":
		return (*runner).audit
	case "view":
		return (*runner).view
	case "help-request":
		return (*runner).helpRequest
	case "help-requests":
		return (*runner).helpRequests
	case "events":
		return (*runner).events
	case "mcp":
		return (*runner).mcp
	case "apps":
		return (*runner).apps
	case "app":
		return (*runner).app
	case "snapshot":
		return (*runner).snapshot
	case "browsers":
		return (*runner).browsers
	case "tabs":
		return (*runner).tabs
	case "extract":
		return (*runner).extract
	case "recording":
		return (*runner).recording
	}
	return nil
}

// Usage is the full usage text (`glovebox help`).
func Usage() string {
	var b strings.Builder
	b.WriteString(usageHead)
	names := make([]string, 0, len(usages))
	for n := range usages {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b.WriteString("\n")
		b.WriteString(usages[n])
	}
	b.WriteString(usageTail)
	return b.String()
}

// Run runs one glovebox command line (without the program name) and returns the process exit code.
func Run(ctx context.Context, args []string, env Env) int {
	if env.Stdin == nil {
		env.Stdin = strings.NewReader("")
	}
	if env.Stdout == nil {
		env.Stdout = io.Discard
	}
	if env.Stderr == nil {
		env.Stderr = io.Discard
	}
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	r := &runner{env: env}
	r.global.broker = env.Getenv("GLOVEBOX_BROKER")
	if r.global.broker == "" {
		r.global.broker = DefaultBroker
	}
	r.global.cert, r.global.key, r.global.ca = env.Getenv("GLOVEBOX_CERT"), env.Getenv("GLOVEBOX_KEY"), env.Getenv("GLOVEBOX_CA")
	r.global.timeout = defaultTimeout
	defer r.close()

	err := r.dispatch(ctx, args)
	return r.report(err)
}

func (r *runner) dispatch(ctx context.Context, args []string) error {
	r.ctx = ctx
	fs := r.flagSet("")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(r.env.Stdout, Usage())
			return errHelpShown
		}
		return usagef("", "%v", err)
	}
	args = fs.Args()
	if len(args) == 0 {
		return usagef("", "no command given")
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(r.env.Stdout, Usage())
		return nil
	}
	run := commandRun(args[0])
	if run == nil {
		return usagef("", "unknown command %q", args[0])
	}
	return run(r, args[1:])
}

// report prints err the way its kind asks and returns the exit code.
func (r *runner) report(err error) int {
	if err == nil || errors.Is(err, errHelpShown) {
		return ExitOK
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(r.env.Stderr, "glovebox: %s\n", ue.msg)
		if u, ok := usages[ue.cmd]; ok {
			fmt.Fprintf(r.env.Stderr, "usage:\n%s", u)
		} else {
			fmt.Fprintf(r.env.Stderr, "run 'glovebox help' for usage\n")
		}
		return ExitUsage
	}
	if errors.Is(err, errSilent) {
		return ExitFailure
	}
	printError(r.env.Stderr, err)
	return ExitFailure
}

// errSilent is returned by commands that already printed why they fail (audit verify).
var errSilent = errors.New("failure already reported")

// errHelpShown ends a command after -h printed its usage.
var errHelpShown = errors.New("help shown")

const usageHead = `glovebox: command line client of glovebox-broker.

usage: glovebox [global flags] COMMAND [args and flags]

Flags may appear anywhere after the command; use -- before a positional argument starting with '-'.
Global flags (every command):
  -broker URI     broker endpoint: unix:///path or tcp://host:port (env GLOVEBOX_BROKER;
                  default ` + DefaultBroker + `)
  -cert FILE -key FILE -ca FILE
                  client certificate, key and CA for tcp:// (mTLS; env GLOVEBOX_CERT, GLOVEBOX_KEY, GLOVEBOX_CA)
  -timeout D      deadline of each call (default 1m30s)
  -json           print responses as protojson, one object per line
-s SESSION defaults to $GLOVEBOX_SESSION.
`

const usageTail = `
Exit status: 0 success, 1 the broker refused or failed (the reason and each bad field are printed, e.g.
"INVALID_ARGUMENT: request.action.click.count: must be 1..3, got 7") or audit verify found a break,
2 a wrong command line (nothing was sent).
`
