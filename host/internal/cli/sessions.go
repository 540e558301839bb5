package cli

import (
	"fmt"
	"io"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

const usageSessions = `  sessions [list] [-guest G] [-closed] [-page-size N] [-page TOKEN]
                                             the caller's sessions, newest first
  sessions create GUEST [-observe] [-label L] [-idle D] [-ttl D]
                                             open a session (prints its id; -observe: observe-only)
  sessions get ID                            one session
  sessions delete ID                         close it and release every key and button it holds
  sessions defaults ID [-window WID | -display ID]
                                             set the default target (neither: the whole screen)
`

// sessionsArgs are the positional arguments of each sessions command.
var sessionsArgs = map[string]positional{"list": {0, "no arguments"}, "create": {1, "GUEST"}, "get": {1, "ID"}, "delete": {1, "ID"}, "defaults": {1, "ID"}}

func (r *runner) sessions(args []string) error {
	const cmd = "sessions"
	sub, args, err := r.subcommand(cmd, "list", args)
	if err != nil {
		return err
	}
	fs := r.flagSet(cmd)
	var (
		guest, label, page, window, display string
		closed, observe                     bool
		pageSize                            int32
		idle, ttl                           = fs.Duration("idle", 0, "idle timeout"), fs.Duration("ttl", 0, "hard TTL")
	)
	fs.StringVar(&guest, "guest", "", "only sessions on this guest")
	fs.BoolVar(&closed, "closed", false, "include closed sessions")
	fs.Var(int32Value{&pageSize}, "page-size", "page size")
	fs.StringVar(&page, "page", "", "page token")
	fs.StringVar(&label, "label", "", "label")
	fs.BoolVar(&observe, "observe", false, "observe-only session")
	fs.StringVar(&window, "window", "", "default window id")
	fs.StringVar(&display, "display", "", "default display id")
	pos, sc, err := parseForService(r, fs, cmd, args, brokerv1.NewSessionServiceClient)
	if err != nil {
		return err
	}
	if err := wantArgsOf(cmd, sub, pos, sessionsArgs); err != nil {
		return err
	}
	switch sub {
	case "list":
		req := &brokerv1.ListSessionsRequest{Guest: guest, IncludeClosed: closed, PageSize: pageSize, PageToken: page}
		return show(r, sc.ListSessions, req, func(w io.Writer, resp *brokerv1.ListSessionsResponse) {
			rows := make([][]string, 0, len(resp.GetSessions()))
			for _, s := range resp.GetSessions() {
				state := shortEnum(s.GetState().String(), "SESSION_STATE_")
				if s.GetCloseReason() != brokerv1.CloseReason_CLOSE_REASON_UNSPECIFIED {
					state += " (" + shortEnum(s.GetCloseReason().String(), "CLOSE_REASON_") + ")"
				}
				rows = append(rows, []string{s.GetId(), clean(s.GetGuest()), state, shortEnum(s.GetMode().String(), "SESSION_MODE_"),
					orDash(s.GetPrincipal()), stamp(s.GetCreatedAt()), orDash(s.GetLabel())})
			}
			table(w, "ID\tGUEST\tSTATE\tMODE\tPRINCIPAL\tCREATED\tLABEL", rows)
			if resp.GetNextPageToken() != "" {
				fmt.Fprintf(w, "more: -page %s\n", resp.GetNextPageToken())
			}
		})
	case "create":
		req := &brokerv1.CreateSessionRequest{Guest: pos[0], Label: label}
		if observe {
			req.Mode = brokerv1.SessionMode_SESSION_MODE_OBSERVE
		}
		if req.IdleTimeoutSeconds, err = parseSeconds(cmd, "-idle", *idle); err != nil {
			return err
		}
		if req.TtlSeconds, err = parseSeconds(cmd, "-ttl", *ttl); err != nil {
			return err
		}
		return show(r, sc.CreateSession, req, func(w io.Writer, resp *brokerv1.CreateSessionResponse) { fmt.Fprintln(w, resp.GetSession().GetId()) })
	case "get":
		return show(r, sc.GetSession, &brokerv1.GetSessionRequest{SessionId: pos[0]},
			func(w io.Writer, resp *brokerv1.GetSessionResponse) { printSession(w, resp.GetSession()) })
	case "delete":
		return show(r, sc.DeleteSession, &brokerv1.DeleteSessionRequest{SessionId: pos[0]},
			func(w io.Writer, resp *brokerv1.DeleteSessionResponse) {
				fmt.Fprintf(w, "closed %s\n", resp.GetSession().GetId())
			})
	case "defaults":
		target, err := parseTarget(cmd, window, display)
		if err != nil {
			return err
		}
		req := &brokerv1.SetSessionDefaultsRequest{SessionId: pos[0], DefaultTarget: target}
		return show(r, sc.SetSessionDefaults, req, func(w io.Writer, resp *brokerv1.SetSessionDefaultsResponse) {
			fmt.Fprintf(w, "%s default target: %s\n", resp.GetSession().GetId(), describeTarget(resp.GetSession().GetDefaultTarget()))
		})
	default:
		return usagef(cmd, "unknown sessions command %q", sub)
	}
}

func printSession(w io.Writer, s *brokerv1.Session) {
	fmt.Fprintf(w, "id:         %s\n", s.GetId())
	fmt.Fprintf(w, "guest:      %s\n", clean(s.GetGuest()))
	fmt.Fprintf(w, "principal:  %s\n", orDash(s.GetPrincipal()))
	fmt.Fprintf(w, "label:      %s\n", orDash(s.GetLabel()))
	fmt.Fprintf(w, "mode:       %s\n", shortEnum(s.GetMode().String(), "SESSION_MODE_"))
	state := shortEnum(s.GetState().String(), "SESSION_STATE_")
	if s.GetCloseReason() != brokerv1.CloseReason_CLOSE_REASON_UNSPECIFIED {
		state += fmt.Sprintf(" (%s at %s)", shortEnum(s.GetCloseReason().String(), "CLOSE_REASON_"), stamp(s.GetClosedAt()))
	}
	fmt.Fprintf(w, "state:      %s\n", state)
	fmt.Fprintf(w, "target:     %s\n", describeTarget(s.GetDefaultTarget()))
	fmt.Fprintf(w, "idle:       %ds\n", s.GetIdleTimeoutSeconds())
	fmt.Fprintf(w, "ttl:        %ds\n", s.GetTtlSeconds())
	fmt.Fprintf(w, "created:    %s\n", stamp(s.GetCreatedAt()))
	fmt.Fprintf(w, "last used:  %s\n", stamp(s.GetLastUsedAt()))
}
