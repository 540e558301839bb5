package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

const usageApps = `  apps -s SESSION                            accessible applications (AT-SPI): app id, pid, toolkit, windows, name
`

const usageApp = `  app -s SESSION (APP_ID | -name NAME) [-launch [-timeout MS] [-- ARGS...]]
                                             one application; -launch starts it when absent (desktop entry, PATH
                                             or an absolute path, as an argv)
`

const usageSnapshot = `  snapshot app -s SESSION [APP_ID] [-window WINDOW_ID] [SNAPSHOT FLAGS]
  snapshot tab -s SESSION [-browser ID -tab ID] [SNAPSHOT FLAGS]
                                             the tree as text with refs ([e12] role "name" ...) for act el-* and
                                             page-click/fill -ref SNAPSHOT:REF (no app or tab: the session's default)
      -max-nodes N (1..20000) -max-depth N (1..256) -interactive -visible -omit-text
      -max-bytes N: print at most N bytes of the text (whole lines), saying how much was left out
`

func (r *runner) apps(args []string) error {
	const cmd = "apps"
	fs := r.flagSet(cmd)
	session := r.sessionFlag(fs)
	if err := r.parseOnSession(fs, cmd, args, session); err != nil {
		return err
	}
	resp, err := callComputer(r, brokerv1.ComputerServiceClient.ListApps, &brokerv1.ListAppsRequest{SessionId: *session, Request: &agentv1.ListAppsRequest{}})
	if err != nil {
		return err
	}
	return r.emit(resp, func(w io.Writer) { printApps(w, resp.GetResponse().GetApps()) })
}

func printApps(w io.Writer, apps []*agentv1.App) {
	rows := make([][]string, 0, len(apps))
	for _, a := range apps {
		rows = append(rows, []string{a.GetAppId(), strconv.Itoa(int(a.GetPid())), orDash(a.GetToolkit()), strconv.Itoa(len(a.GetWindows())), orDash(a.GetName())})
	}
	table(w, "APP\tPID\tTOOLKIT\tWINDOWS\tNAME", rows)
}

func (r *runner) app(args []string) error {
	const cmd = "app"
	fs := r.flagSet(cmd)
	session := r.sessionFlag(fs)
	name := fs.String("name", "", "app name (exact, case-insensitive)")
	launch := fs.Bool("launch", false, "start it when absent")
	timeout := int32Flag(fs, "timeout", 0, "launch timeout, ms")
	pos, err := r.parse(fs, cmd, args)
	if err != nil {
		return err
	}
	if err := needSession(cmd, *session); err != nil {
		return err
	}
	req := &agentv1.GetAppRequest{Name: *name, Launch: *launch, LaunchTimeoutMs: *timeout}
	switch {
	case *name == "" && len(pos) == 0:
		return usagef(cmd, "give APP_ID or -name NAME")
	case *name == "":
		req.AppId, req.Args = pos[0], pos[1:]
	default:
		req.Args = pos
	}
	if len(req.Args) > 0 && !*launch {
		return usagef(cmd, "arguments after the app are for -launch")
	}
	resp, err := callComputer(r, brokerv1.ComputerServiceClient.GetApp, &brokerv1.GetAppRequest{SessionId: *session, Request: req})
	if err != nil {
		return err
	}
	return r.emit(resp, func(w io.Writer) {
		a := resp.GetResponse()
		if a.GetLaunched() {
			fmt.Fprintf(w, "launched pid %d (accessible: %v)\n", a.GetPid(), a.GetAccessible())
		}
		if a.GetApp() != nil {
			printApps(w, []*agentv1.App{a.GetApp()})
			rows := [][]string{}
			for _, win := range a.GetApp().GetWindows() {
				rows = append(rows, []string{win.GetWindowId(), orDash(win.GetRole()), describeRect(win.GetBounds()), orDash(strings.Join(win.GetStates(), ",")), orDash(win.GetName())})
			}
			if len(rows) > 0 {
				table(w, "WINDOW\tROLE\tBOUNDS\tSTATES\tNAME", rows)
			}
		}
	})
}

func (r *runner) snapshot(args []string) error {
	const cmd = "snapshot"
	sub, args, err := r.subcommand(cmd, "", args)
	if err != nil {
		return err
	}
	fs := r.flagSet(cmd)
	session := r.sessionFlag(fs)
	maxNodes := int32Flag(fs, "max-nodes", 0, "1..20000")
	maxDepth := int32Flag(fs, "max-depth", 0, "1..256")
	interactive := fs.Bool("interactive", false, "interactive elements only")
	visible := fs.Bool("visible", false, "showing elements only")
	omitText := fs.Bool("omit-text", false, "leave out text contents")
	maxBytes := fs.Int("max-bytes", 0, "print at most N bytes of the text")
	window := fs.String("window", "", "window id (snapshot app)")
	var tf tabFlags
	if sub == "tab" {
		tf.register(fs)
	}
	pos, err := r.parse(fs, cmd, args)
	if err != nil {
		return err
	}
	if err := needSession(cmd, *session); err != nil {
		return err
	}
	if *maxBytes < 0 {
		return usagef(cmd, "-max-bytes must be >= 0, got %d", *maxBytes)
	}
	opts := &agentv1.SnapshotOptions{MaxNodes: *maxNodes, MaxDepth: *maxDepth, InteractiveOnly: *interactive, VisibleOnly: *visible, OmitText: *omitText}
	var snap *agentv1.Snapshot
	var seq uint64
	var resp proto.Message
	switch sub {
	case "app":
		if len(pos) > 1 {
			return usagef(cmd, "want [APP_ID], got %d arguments", len(pos))
		}
		app := ""
		if len(pos) == 1 {
			app = pos[0]
		}
		if *window != "" {
			rr, err := callComputer(r, brokerv1.ComputerServiceClient.SnapshotWindow, &brokerv1.SnapshotWindowRequest{SessionId: *session,
				Request: &agentv1.SnapshotWindowRequest{AppId: app, WindowId: *window, Options: opts}})
			if err != nil {
				return err
			}
			snap, seq, resp = rr.GetResponse().GetSnapshot(), rr.GetAuditSeq(), rr
		} else {
			rr, err := callComputer(r, brokerv1.ComputerServiceClient.SnapshotApp, &brokerv1.SnapshotAppRequest{SessionId: *session,
				Request: &agentv1.SnapshotAppRequest{AppId: app, Options: opts}})
			if err != nil {
				return err
			}
			snap, seq, resp = rr.GetResponse().GetSnapshot(), rr.GetAuditSeq(), rr
		}
	case "tab":
		if err := wantArgs(cmd, pos, 0, "no positional arguments"); err != nil {
			return err
		}
		rr, err := callComputer(r, brokerv1.ComputerServiceClient.SnapshotTab, &brokerv1.SnapshotTabRequest{SessionId: *session,
			Request: &agentv1.SnapshotTabRequest{Tab: tf.ref(), Options: opts}})
		if err != nil {
			return err
		}
		snap, seq, resp = rr.GetResponse().GetSnapshot(), rr.GetAuditSeq(), rr
	default:
		return usagef(cmd, "unknown snapshot %q (app or tab)", sub)
	}
	return r.emit(resp, func(w io.Writer) { printSnapshot(w, snap, seq, *maxBytes) })
}

// printSnapshot prints the snapshot's header in our words and its text (guest content) below, cut at whole
// lines to maxBytes when > 0.
func printSnapshot(w io.Writer, s *agentv1.Snapshot, seq uint64, maxBytes int) {
	state := "complete"
	if !s.GetComplete() {
		state = "incomplete"
	}
	fmt.Fprintf(w, "snapshot %s of %s: %d elements, %s, %.1f ms (audit seq %d)\n", s.GetSnapshotId(), describeTarget(s.GetTarget()),
		len(s.GetElements()), state, float64(s.GetTookUs())/1000, seq)
	text := s.GetText()
	if maxBytes > 0 && len(text) > maxBytes {
		cut := strings.LastIndexByte(text[:maxBytes], '\n') + 1
		fmt.Fprint(w, text[:cut])
		fmt.Fprintf(w, "... %d more bytes (raise -max-bytes)\n", len(text)-cut)
		return
	}
	fmt.Fprint(w, text)
	if text != "" && !strings.HasSuffix(text, "\n") {
		fmt.Fprintln(w)
	}
}
