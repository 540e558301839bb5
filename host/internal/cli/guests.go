package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

const usageGuests = `  guests [list]                              guests the caller may use, with state
  guests get NAME                            one guest: state, agent version, capabilities, displays
  guests register NAME URI [-label k=v]...   add a guest (agent endpoint vsock://CID:PORT, unix://, tcp://)
  guests unregister NAME                     close its sessions and forget it
`

// subcommand splits "CMD [global flags] SUB rest" into SUB (or def when none is given) and the rest.
func (r *runner) subcommand(cmd, def string, args []string) (string, []string, error) {
	fs := r.flagSet(cmd)
	fs.StringVar(&r.session, "s", r.session, "session id") // "clipboard -s S read" reads naturally
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(r.env.Stdout, usages[cmd])
			return "", nil, errHelpShown
		}
		return "", nil, usagef(cmd, "%v", err)
	}
	args = fs.Args()
	if len(args) == 0 {
		if def == "" {
			return "", nil, usagef(cmd, "%s: which one?", cmd)
		}
		return def, nil, nil
	}
	return args[0], args[1:], nil
}

// wantArgs checks the number of positional arguments.
func wantArgs(cmd string, pos []string, n int, what string) error {
	if len(pos) != n {
		return usagef(cmd, "want %s, got %d arguments", what, len(pos))
	}
	return nil
}

// positional is what one subcommand takes as positional arguments: how many, and how usage errors name them.
type positional struct {
	n    int
	what string
}

// wantArgsOf checks pos against what sub takes; a sub missing from takes is left to the command's own
// "unknown command" error.
func wantArgsOf(cmd, sub string, pos []string, takes map[string]positional) error {
	p, ok := takes[sub]
	if !ok {
		return nil
	}
	return wantArgs(cmd, pos, p.n, p.what)
}

// guestsArgs are the positional arguments of each guests command.
var guestsArgs = map[string]positional{"list": {0, "no arguments"}, "get": {1, "NAME"}, "register": {2, "NAME URI"}, "unregister": {1, "NAME"}}

func (r *runner) guests(args []string) error {
	const cmd = "guests"
	sub, args, err := r.subcommand(cmd, "list", args)
	if err != nil {
		return err
	}
	fs := r.flagSet(cmd)
	labels := labelFlag{}
	if sub == "register" {
		fs.Var(labels, "label", "k=v label (repeatable)")
	}
	pos, gc, err := parseForService(r, fs, cmd, args, brokerv1.NewGuestServiceClient)
	if err != nil {
		return err
	}
	if err := wantArgsOf(cmd, sub, pos, guestsArgs); err != nil {
		return err
	}
	switch sub {
	case "list":
		return show(r, gc.ListGuests, &brokerv1.ListGuestsRequest{}, func(w io.Writer, resp *brokerv1.ListGuestsResponse) {
			rows := make([][]string, 0, len(resp.GetGuests()))
			for _, g := range resp.GetGuests() {
				rows = append(rows, []string{clean(g.GetName()), shortEnum(g.GetState().String(), "GUEST_STATE_"),
					clean(g.GetEndpoint()), strconv.Itoa(int(g.GetOpenSessions())), heldWord(g.GetControlHeld()),
					strconv.FormatUint(g.GetGeneration(), 10), orDash(g.GetLastError())})
			}
			table(w, "NAME\tSTATE\tENDPOINT\tSESSIONS\tCONTROL\tGENERATION\tLAST ERROR", rows)
		})
	case "get":
		return show(r, gc.GetGuest, &brokerv1.GetGuestRequest{Name: pos[0]},
			func(w io.Writer, resp *brokerv1.GetGuestResponse) { printGuest(w, resp.GetGuest()) })
	case "register":
		return show(r, gc.RegisterGuest, &brokerv1.RegisterGuestRequest{Name: pos[0], Endpoint: pos[1], Labels: labels},
			func(w io.Writer, resp *brokerv1.RegisterGuestResponse) { printGuest(w, resp.GetGuest()) })
	case "unregister":
		return show(r, gc.UnregisterGuest, &brokerv1.UnregisterGuestRequest{Name: pos[0]},
			func(w io.Writer, _ *brokerv1.UnregisterGuestResponse) {
				fmt.Fprintf(w, "unregistered %s\n", clean(pos[0]))
			})
	default:
		return usagef(cmd, "unknown guests command %q", sub)
	}
}

func heldWord(held bool) string {
	if held {
		return "held"
	}
	return "-"
}

func printGuest(w io.Writer, g *brokerv1.Guest) {
	fmt.Fprintf(w, "name:        %s\n", clean(g.GetName()))
	fmt.Fprintf(w, "endpoint:    %s\n", clean(g.GetEndpoint()))
	fmt.Fprintf(w, "source:      %s\n", orDash(g.GetSource()))
	fmt.Fprintf(w, "state:       %s since %s\n", shortEnum(g.GetState().String(), "GUEST_STATE_"), stamp(g.GetStateSince()))
	if g.GetLastError() != "" {
		fmt.Fprintf(w, "last error:  %s\n", clean(g.GetLastError()))
	}
	fmt.Fprintf(w, "generation:  %d\n", g.GetGeneration())
	fmt.Fprintf(w, "control:     %s\n", heldWord(g.GetControlHeld()))
	fmt.Fprintf(w, "sessions:    %d\n", g.GetOpenSessions())
	if len(g.GetLabels()) > 0 {
		keys := make([]string, 0, len(g.GetLabels()))
		for k := range g.GetLabels() {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			keys[i] = clean(k + "=" + g.GetLabels()[k])
		}
		fmt.Fprintf(w, "labels:      %s\n", strings.Join(keys, " "))
	}
	if a := g.GetAgent(); a != nil {
		fmt.Fprintf(w, "agent:       %s (%s), X display %s\n", orDash(a.GetVersion()), orDash(a.GetProtocolVersion()), orDash(a.GetXDisplay()))
		for _, d := range a.GetDisplays() {
			primary := ""
			if d.GetPrimary() {
				primary = " primary"
			}
			fmt.Fprintf(w, "display:     %s %s%s\n", clean(d.GetId()), describeRect(d.GetBounds()), primary)
		}
		for _, c := range a.GetCapabilities() {
			line := shortEnum(c.GetBackend().String(), "BACKEND_") + " " + shortEnum(c.GetState().String(), "CAPABILITY_STATE_")
			if c.GetReason() != "" {
				line += ": " + clean(c.GetReason())
			}
			fmt.Fprintf(w, "capability:  %s\n", line)
		}
	}
}
