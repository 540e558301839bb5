package cli

import (
	"fmt"
	"io"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

const usageControl = `  control acquire GUEST -reason R            a human takes the guest: session mutations get CONTROL_HELD
  control release GUEST                      give it back (bumps the generation: agents must observe again)
  control get GUEST                          who holds it
`

func (r *runner) control(args []string) error {
	const cmd = "control"
	sub, args, err := r.subcommand(cmd, "", args)
	if err != nil {
		return err
	}
	fs := r.flagSet(cmd)
	var reason string
	if sub == "acquire" {
		fs.StringVar(&reason, "reason", "", "why (shown to agents and audited)")
	}
	pos, err := r.parse(fs, cmd, args)
	if err != nil {
		return err
	}
	if err := wantArgs(cmd, pos, 1, "GUEST"); err != nil {
		return err
	}
	guest := pos[0]
	cc, err := serviceClient(r, brokerv1.NewControlServiceClient)
	if err != nil {
		return err
	}
	switch sub {
	case "acquire":
		if reason == "" {
			return usagef(cmd, "-reason is required: agents and the audit log see it")
		}
		return show(r, cc.AcquireControl, &brokerv1.AcquireControlRequest{Guest: guest, Reason: reason},
			func(w io.Writer, resp *brokerv1.AcquireControlResponse) { printLease(w, resp.GetLease()) })
	case "release":
		return show(r, cc.ReleaseControl, &brokerv1.ReleaseControlRequest{Guest: guest}, func(w io.Writer, resp *brokerv1.ReleaseControlResponse) {
			fmt.Fprintf(w, "released %s; generation %d\n", clean(guest), resp.GetGeneration())
		})
	case "get":
		return show(r, cc.GetControl, &brokerv1.GetControlRequest{Guest: guest}, func(w io.Writer, resp *brokerv1.GetControlResponse) {
			if !resp.GetHeld() {
				fmt.Fprintf(w, "%s: not held; generation %d\n", clean(guest), resp.GetGeneration())
				return
			}
			printLease(w, resp.GetLease())
		})
	default:
		return usagef(cmd, "unknown control command %q", sub)
	}
}

func printLease(w io.Writer, l *brokerv1.ControlLease) {
	fmt.Fprintf(w, "%s: held by %s since %s: %s; generation %d\n", clean(l.GetGuest()), orDash(l.GetHolder()), stamp(l.GetAcquiredAt()),
		orDash(l.GetReason()), l.GetGeneration())
}
