package cli

import (
	"fmt"
	"io"
	"time"

	"google.golang.org/protobuf/encoding/protojson"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

const usageView = `  view GUEST [-control] [-ttl 10m]           print a one-time link to the console's live view (-control: take
                                             control and drive the guest from the page; needs the control right)
`

const usageHelp = `  help-request -s S -reason R [-instructions I]  ask the person supervising the guest for help
  help-requests GUEST [-all]                 the guest's pending (with -all also answered) help requests
`

const usageEvents = `  events -s S [-from SEQ]                    stream the session's events (control, help, closing) as JSON lines
`

func (r *runner) view(args []string) error {
	const cmd = "view"
	fs := r.flagSet(cmd)
	control := fs.Bool("control", false, "a CONTROL link")
	ttl := fs.Duration("ttl", 10*time.Minute, "how long the link may wait to be opened (at most 1h)")
	pos, cc, err := parseForService(r, fs, cmd, args, brokerv1.NewConsoleServiceClient)
	if err != nil {
		return err
	}
	if err := wantArgs(cmd, pos, 1, "GUEST"); err != nil {
		return err
	}
	secs, err := parseSeconds(cmd, "ttl", *ttl)
	if err != nil {
		return err
	}
	mode := brokerv1.ViewerMode_VIEWER_MODE_VIEW
	if *control {
		mode = brokerv1.ViewerMode_VIEWER_MODE_CONTROL
	}
	return show(r, cc.CreateViewerLink, &brokerv1.CreateViewerLinkRequest{Guest: pos[0], Mode: mode, TtlSeconds: secs},
		func(w io.Writer, resp *brokerv1.CreateViewerLinkResponse) {
			fmt.Fprintf(w, "%s\n(opens once, until %s)\n", resp.GetUrl(), stamp(resp.GetExpiresAt()))
		})
}

func (r *runner) helpRequest(args []string) error {
	const cmd = "help-request"
	fs := r.flagSet(cmd)
	session := r.sessionFlag(fs)
	reason := fs.String("reason", "", "why help is needed (required)")
	instructions := fs.String("instructions", "", "what the person should do")
	if err := r.parseOnSession(fs, cmd, args, session); err != nil {
		return err
	}
	if *reason == "" {
		return usagef(cmd, "-reason is required")
	}
	hc, err := serviceClient(r, brokerv1.NewHandoffServiceClient)
	if err != nil {
		return err
	}
	return show(r, hc.RequestHelp, &brokerv1.RequestHelpRequest{SessionId: *session, Reason: *reason, Instructions: *instructions},
		func(w io.Writer, resp *brokerv1.RequestHelpResponse) { fmt.Fprintln(w, resp.GetHelp().GetId()) })
}

func (r *runner) helpRequests(args []string) error {
	const cmd = "help-requests"
	fs := r.flagSet(cmd)
	all := fs.Bool("all", false, "also answered and cancelled requests")
	pos, hc, err := parseForService(r, fs, cmd, args, brokerv1.NewHandoffServiceClient)
	if err != nil {
		return err
	}
	if err := wantArgs(cmd, pos, 1, "GUEST"); err != nil {
		return err
	}
	return show(r, hc.ListHelpRequests, &brokerv1.ListHelpRequestsRequest{Guest: pos[0], IncludeDone: *all},
		func(w io.Writer, resp *brokerv1.ListHelpRequestsResponse) {
			for _, h := range resp.GetRequests() {
				fmt.Fprintf(w, "%s  %s  %s  %s  %s\n", h.GetId(), h.GetState(), h.GetSessionId(), stamp(h.GetCreatedAt()), clean(h.GetReason()))
			}
		})
}

func (r *runner) events(args []string) error {
	const cmd = "events"
	fs := r.flagSet(cmd)
	session := r.sessionFlag(fs)
	from := fs.Uint64("from", 0, "send the kept events after this seq first")
	if err := r.parseOnSession(fs, cmd, args, session); err != nil {
		return err
	}
	hc, err := serviceClient(r, brokerv1.NewHandoffServiceClient)
	if err != nil {
		return err
	}
	st, err := hc.WatchSessionEvents(r.ctx, &brokerv1.WatchSessionEventsRequest{SessionId: *session, FromSeq: *from})
	if err != nil {
		return err
	}
	for {
		resp, err := st.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		b, err := protojson.Marshal(resp.GetEvent())
		if err != nil {
			return err
		}
		fmt.Fprintf(r.env.Stdout, "%s\n", b)
	}
}
