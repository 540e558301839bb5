package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

const usageAct = `  act -s SESSION VERB ARGS [-window WID | -display ID] [-confirm] [-request-id ID]
      [-observe [-o FILE] [-jpeg] [-quality N] [-max-edge N] [-cursor]]
                                             one action; -observe saves the settled screen to -o FILE
    click [X Y] [-button left|middle|right|back|forward] [-count N] [-mod ctrl,shift]
    move X Y
    down [X Y] [-button B]          up [X Y] [-button B]
    drag X1 Y1 X2 Y2 [X Y]... [-button B] [-step-delay MS] [-mod M]
    scroll [-at X,Y] DX DY [-mod M]  (DY > 0 scrolls down)
    key COMBO [-repeat N]           (X keysym names: ctrl+s, alt+Tab, Return)
    keydown COMBO                   keyup COMBO
    hold COMBO DURATION             (like 500ms)
    type (TEXT | -stdin) [-delay MS]
    wait DURATION
    release-all [-everything]
` + usageActRefs

// actVerb builds one action: register adds the verb's own flags and returns the function that turns the
// positional arguments (after the verb) into the action.
type actVerb func(fs *flag.FlagSet) func(r *runner, pos []string) (*agentv1.ActRequest, error)

const actCmd = "act"

var actVerbs = map[string]actVerb{
	"click": func(fs *flag.FlagSet) func(*runner, []string) (*agentv1.ActRequest, error) {
		button := fs.String("button", "", "mouse button")
		count := int32Flag(fs, "count", 0, "clicks 1..3")
		var mods listFlag
		fs.Var(&mods, "mod", "modifier (repeatable)")
		return func(_ *runner, pos []string) (*agentv1.ActRequest, error) {
			at, b, err := parseButtonAt(pos, *button)
			if err != nil {
				return nil, err
			}
			return &agentv1.ActRequest{Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{At: at, Button: b, Count: *count, Modifiers: mods}}}, nil
		}
	},
	"move": argsVerb(2, "X Y", func(pos []string) (*agentv1.ActRequest, error) {
		to, err := parseOptionalPoint(actCmd, pos)
		if err != nil {
			return nil, err
		}
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{To: to}}}, nil
	}),
	"down": buttonVerb(func(at *agentv1.Point, b agentv1.MouseButton) *agentv1.ActRequest {
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_MouseDown{MouseDown: &agentv1.MouseDown{At: at, Button: b}}}
	}),
	"up": buttonVerb(func(at *agentv1.Point, b agentv1.MouseButton) *agentv1.ActRequest {
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_MouseUp{MouseUp: &agentv1.MouseUp{At: at, Button: b}}}
	}),
	"drag": func(fs *flag.FlagSet) func(*runner, []string) (*agentv1.ActRequest, error) {
		button := fs.String("button", "", "mouse button")
		stepDelay := int32Flag(fs, "step-delay", 0, "pause after each motion, ms")
		var mods listFlag
		fs.Var(&mods, "mod", "modifier (repeatable)")
		return func(_ *runner, pos []string) (*agentv1.ActRequest, error) {
			if len(pos) < 4 {
				return nil, usagef(actCmd, "drag needs at least two points: X1 Y1 X2 Y2")
			}
			path, err := parsePoints(actCmd, pos)
			if err != nil {
				return nil, err
			}
			b, err := parseButton(actCmd, *button)
			if err != nil {
				return nil, err
			}
			return &agentv1.ActRequest{Action: &agentv1.ActRequest_Drag{Drag: &agentv1.Drag{Path: path, Button: b, StepDelayMs: *stepDelay, Modifiers: mods}}}, nil
		}
	},
	"scroll": func(fs *flag.FlagSet) func(*runner, []string) (*agentv1.ActRequest, error) {
		at := fs.String("at", "", "X,Y")
		var mods listFlag
		fs.Var(&mods, "mod", "modifier (repeatable)")
		return func(_ *runner, pos []string) (*agentv1.ActRequest, error) {
			if err := wantArgs(actCmd, pos, 2, "DX DY"); err != nil {
				return nil, err
			}
			dx, err := parseInt32(actCmd, "DX", pos[0])
			if err != nil {
				return nil, err
			}
			dy, err := parseInt32(actCmd, "DY", pos[1])
			if err != nil {
				return nil, err
			}
			p, err := parsePointFlag(actCmd, "-at", *at)
			if err != nil {
				return nil, err
			}
			return &agentv1.ActRequest{Action: &agentv1.ActRequest_Scroll{Scroll: &agentv1.Scroll{At: p, Dx: dx, Dy: dy, Modifiers: mods}}}, nil
		}
	},
	"key": func(fs *flag.FlagSet) func(*runner, []string) (*agentv1.ActRequest, error) {
		repeat := int32Flag(fs, "repeat", 0, "times 1..100")
		return func(_ *runner, pos []string) (*agentv1.ActRequest, error) {
			if err := wantArgs(actCmd, pos, 1, "COMBO"); err != nil {
				return nil, err
			}
			return &agentv1.ActRequest{Action: &agentv1.ActRequest_Key{Key: &agentv1.Key{Combo: pos[0], Repeat: *repeat}}}, nil
		}
	},
	"keydown": argsVerb(1, "COMBO", func(pos []string) (*agentv1.ActRequest, error) {
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_KeyDown{KeyDown: &agentv1.KeyDown{Combo: pos[0]}}}, nil
	}),
	"keyup": argsVerb(1, "COMBO", func(pos []string) (*agentv1.ActRequest, error) {
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_KeyUp{KeyUp: &agentv1.KeyUp{Combo: pos[0]}}}, nil
	}),
	"hold": argsVerb(2, "COMBO DURATION", func(pos []string) (*agentv1.ActRequest, error) {
		ms, err := parseMillis(actCmd, "DURATION", pos[1])
		if err != nil {
			return nil, err
		}
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_HoldKey{HoldKey: &agentv1.HoldKey{Combo: pos[0], DurationMs: ms}}}, nil
	}),
	"type": func(fs *flag.FlagSet) func(*runner, []string) (*agentv1.ActRequest, error) {
		fromStdin := fs.Bool("stdin", false, "read the text from standard input")
		delay := int32Flag(fs, "delay", 0, "pause between characters, ms")
		return func(r *runner, pos []string) (*agentv1.ActRequest, error) {
			text, err := r.readText(actCmd, pos, *fromStdin)
			if err != nil {
				return nil, err
			}
			return &agentv1.ActRequest{Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: text, DelayMs: *delay}}}, nil
		}
	},
	"wait": argsVerb(1, "DURATION", func(pos []string) (*agentv1.ActRequest, error) {
		ms, err := parseMillis(actCmd, "DURATION", pos[0])
		if err != nil {
			return nil, err
		}
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_Wait{Wait: &agentv1.Wait{DurationMs: ms}}}, nil
	}),
	"release-all": func(fs *flag.FlagSet) func(*runner, []string) (*agentv1.ActRequest, error) {
		everything := fs.Bool("everything", false, "every key and button down on the X server")
		return func(_ *runner, pos []string) (*agentv1.ActRequest, error) {
			if err := wantArgs(actCmd, pos, 0, "no arguments"); err != nil {
				return nil, err
			}
			return &agentv1.ActRequest{Action: &agentv1.ActRequest_ReleaseAll{ReleaseAll: &agentv1.ReleaseAll{Everything: *everything}}}, nil
		}
	},
}

// buttonVerb is a verb at an optional X Y with -button and no other flags (down, up).
func buttonVerb(action func(at *agentv1.Point, b agentv1.MouseButton) *agentv1.ActRequest) actVerb {
	return func(fs *flag.FlagSet) func(*runner, []string) (*agentv1.ActRequest, error) {
		button := fs.String("button", "", "mouse button")
		return func(_ *runner, pos []string) (*agentv1.ActRequest, error) {
			at, b, err := parseButtonAt(pos, *button)
			if err != nil {
				return nil, err
			}
			return action(at, b), nil
		}
	}
}

// parseButtonAt parses the optional X Y and the -button of a mouse button verb.
func parseButtonAt(pos []string, button string) (*agentv1.Point, agentv1.MouseButton, error) {
	at, err := parseOptionalPoint(actCmd, pos)
	if err != nil {
		return nil, 0, err
	}
	b, err := parseButton(actCmd, button)
	if err != nil {
		return nil, 0, err
	}
	return at, b, nil
}

// argsVerb is a verb with no flags of its own that takes exactly n positional arguments, named what in usage
// errors (move, keydown, keyup, hold, wait).
func argsVerb(n int, what string, action func(pos []string) (*agentv1.ActRequest, error)) actVerb {
	return func(*flag.FlagSet) func(*runner, []string) (*agentv1.ActRequest, error) {
		return func(_ *runner, pos []string) (*agentv1.ActRequest, error) {
			if err := wantArgs(actCmd, pos, n, what); err != nil {
				return nil, err
			}
			return action(pos)
		}
	}
}

// actCommon are the flags every act verb takes.
type actCommon struct {
	session                    string
	window, display, requestID string
	confirm, observe           bool
	shot                       screenshotFlags
}

// register adds the flags to fs with their current values as defaults, so registering them on a second flag
// set keeps what the first one parsed.
func (c *actCommon) register(fs *flag.FlagSet) {
	fs.StringVar(&c.session, "s", c.session, "session id")
	fs.StringVar(&c.window, "window", c.window, "target window id")
	fs.StringVar(&c.display, "display", c.display, "target display id")
	fs.StringVar(&c.requestID, "request-id", c.requestID, "idempotency key")
	fs.BoolVar(&c.confirm, "confirm", c.confirm, "confirm a gated action")
	fs.BoolVar(&c.observe, "observe", c.observe, "observe after the action settles")
	c.shot.register(fs, false)
}

func (r *runner) act(args []string) error {
	// The verb is the first positional argument; flags before it are the common ones.
	common := actCommon{session: r.env.Getenv("GLOVEBOX_SESSION")}
	lead := r.flagSet(actCmd)
	common.register(lead)
	if err := lead.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(r.env.Stdout, usageAct)
			return errHelpShown
		}
		return usagef(actCmd, "%v", err)
	}
	args = lead.Args()
	if len(args) == 0 {
		return usagef(actCmd, "which action?")
	}
	verb, ok := actVerbs[args[0]]
	if !ok {
		names := make([]string, 0, len(actVerbs))
		for n := range actVerbs {
			names = append(names, n)
		}
		sort.Strings(names)
		return usagef(actCmd, "unknown action %q (one of %s)", args[0], strings.Join(names, ", "))
	}
	fs := r.flagSet(actCmd)
	common.register(fs)
	build := verb(fs)
	pos, err := r.parse(fs, actCmd, args[1:])
	if err != nil {
		return err
	}
	req, err := build(r, pos)
	if err != nil {
		return err
	}
	if err := needSession(actCmd, common.session); err != nil {
		return err
	}
	if err := common.apply(req); err != nil {
		return err
	}
	resp, err := callComputer(r, brokerv1.ComputerServiceClient.Act, &brokerv1.ActRequest{SessionId: common.session, Request: req})
	if err != nil {
		return err
	}
	obs := resp.GetResponse().GetObservation().GetScreenshot()
	saved := obs != nil && common.shot.output != "" && common.shot.output != "-"
	if obs != nil && common.shot.output != "" {
		if err := r.saveImage(common.shot.output, obs); err != nil {
			return err
		}
		if common.shot.output == "-" {
			return nil
		}
	}
	out := resp
	if saved {
		out = withoutImageData(resp, func(m *brokerv1.ActResponse) *agentv1.Image { return m.GetResponse().GetObservation().GetScreenshot() })
	}
	return r.emit(out, func(w io.Writer) { printAct(w, resp, common.shot.output, saved) })
}

// apply sets the target, confirmation, idempotency key and observation on the request.
func (c *actCommon) apply(req *agentv1.ActRequest) error {
	target, err := parseTarget(actCmd, c.window, c.display)
	if err != nil {
		return err
	}
	req.Target = target
	req.Confirm = c.confirm
	req.RequestId = c.requestID
	if !c.observe {
		if c.shot.output != "" {
			return usagef(actCmd, "-o needs -observe")
		}
		return nil
	}
	opts, err := c.shot.options(actCmd)
	if err != nil {
		return err
	}
	req.Observe = &agentv1.ObserveAfter{Screenshot: opts}
	return nil
}

// printAct says what the action did. It never prints the text that was typed.
func printAct(w io.Writer, resp *brokerv1.ActResponse, output string, saved bool) {
	a := resp.GetResponse()
	fmt.Fprintf(w, "%s: %s (audit seq %d)\n", shortEnum(a.GetEffect().String(), "EFFECT_"), describeFrozen(a.GetTarget()), resp.GetAuditSeq())
	if p := a.GetPointer(); p != nil {
		fmt.Fprintf(w, "pointer: %d,%d\n", p.GetX(), p.GetY())
	}
	if d := a.GetDamage(); d != nil {
		fmt.Fprintf(w, "changed: %dx%d+%d+%d\n", d.GetWidth(), d.GetHeight(), d.GetX(), d.GetY())
	}
	if t := a.GetTiming(); t != nil {
		fmt.Fprintf(w, "time: %.1f ms (queue %.1f, resolve %.1f, dispatch %.1f, settle %.1f)\n", ms(t.GetTotalUs()), ms(t.GetQueueUs()),
			ms(t.GetResolveUs()), ms(t.GetDispatchUs()), ms(t.GetSettleUs()))
	}
	if t := resp.GetTiming(); t != nil {
		fmt.Fprintf(w, "broker: %.1f ms (intent audit %.1f, queue %.1f, guest %.1f, outcome audit %.1f)\n", ms(t.GetTotalUs()),
			ms(t.GetIntentAuditUs()), ms(t.GetQueueUs()), ms(t.GetGuestUs()), ms(t.GetOutcomeAuditUs()))
	}
	if a.GetCharactersTyped() > 0 {
		fmt.Fprintf(w, "typed: %d characters (%d through a remapped keycode)\n", a.GetCharactersTyped(), a.GetCharactersRemapped())
	}
	if len(a.GetHeld()) > 0 {
		fmt.Fprintf(w, "held: %s\n", describeHeld(a.GetHeld()))
	}
	if len(a.GetReleased()) > 0 {
		fmt.Fprintf(w, "released: %s\n", describeHeld(a.GetReleased()))
	}
	if o := a.GetObservation(); o != nil {
		settled := "settled"
		if !o.GetSettled() {
			settled = "not settled (timeout)"
		}
		img := o.GetScreenshot()
		switch {
		case saved:
			fmt.Fprintf(w, "observation: saved to %s: %s, %s\n", output, describeImage(img), settled)
		case img != nil:
			fmt.Fprintf(w, "observation: %s, %s (not saved: add -o FILE)\n", describeImage(img), settled)
		default:
			fmt.Fprintf(w, "observation: no screenshot, %s\n", settled)
		}
	}
}

func ms(us int64) float64 { return float64(us) / 1000 }

func describeHeld(h []*agentv1.HeldInput) string {
	parts := make([]string, 0, len(h))
	for _, x := range h {
		if x.GetKey() != "" {
			parts = append(parts, clean(x.GetKey()))
		} else {
			parts = append(parts, "button "+shortEnum(x.GetButton().String(), "MOUSE_BUTTON_"))
		}
	}
	return strings.Join(parts, ", ")
}
