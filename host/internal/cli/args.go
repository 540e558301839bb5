package cli

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// listFlag is a repeatable string flag; each value may also hold several comma-separated items.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// labelFlag is a repeatable k=v flag.
type labelFlag map[string]string

func (l labelFlag) String() string { return "" }

func (l labelFlag) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("label %q: want key=value", v)
	}
	l[k] = val
	return nil
}

// int32Value is an integer flag for an int32 request field: a value that does not fit is a usage error naming
// the flag, never wrapped around into another value the broker would accept.
type int32Value struct{ p *int32 }

func (v int32Value) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatInt(int64(*v.p), 10)
}

func (v int32Value) Set(s string) error {
	n, err := strconv.ParseInt(s, 0, 32)
	if err != nil {
		return fmt.Errorf("want an integer in %d..%d", math.MinInt32, math.MaxInt32)
	}
	*v.p = int32(n)
	return nil
}

// int32Flag defines an int32 flag on fs.
func int32Flag(fs *flag.FlagSet, name string, value int32, usage string) *int32 {
	p := new(int32)
	*p = value
	fs.Var(int32Value{p}, name, usage)
	return p
}

// parseInt32 parses a decimal int32 positional argument named name.
func parseInt32(cmd, name, s string) (int32, error) {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, usagef(cmd, "%s: %q is not an integer", name, s)
	}
	return int32(n), nil
}

// parseInts parses comma-separated int32s, exactly want of them ("x,y" or "x,y,w,h").
func parseInts(cmd, name, s string, want int) ([]int32, error) {
	parts := strings.Split(s, ",")
	if len(parts) != want {
		return nil, usagef(cmd, "%s: %q: want %d comma-separated integers", name, s, want)
	}
	out := make([]int32, want)
	for i, p := range parts {
		n, err := parseInt32(cmd, name, strings.TrimSpace(p))
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// parsePointFlag parses "X,Y"; empty is unset.
func parsePointFlag(cmd, name, s string) (*agentv1.Point, error) {
	if s == "" {
		return nil, nil
	}
	v, err := parseInts(cmd, name, s, 2)
	if err != nil {
		return nil, err
	}
	return &agentv1.Point{X: v[0], Y: v[1]}, nil
}

// parseRegion parses "x,y,w,h"; empty is unset.
func parseRegion(cmd, s string) (*agentv1.Rect, error) {
	if s == "" {
		return nil, nil
	}
	v, err := parseInts(cmd, "-region", s, 4)
	if err != nil {
		return nil, err
	}
	return &agentv1.Rect{X: v[0], Y: v[1], Width: v[2], Height: v[3]}, nil
}

// parsePoints parses positional "X Y [X Y ...]" pairs.
func parsePoints(cmd string, args []string) ([]*agentv1.Point, error) {
	if len(args)%2 != 0 {
		return nil, usagef(cmd, "coordinates come in X Y pairs, got %d numbers", len(args))
	}
	pts := make([]*agentv1.Point, 0, len(args)/2)
	for i := 0; i < len(args); i += 2 {
		x, err := parseInt32(cmd, "X", args[i])
		if err != nil {
			return nil, err
		}
		y, err := parseInt32(cmd, "Y", args[i+1])
		if err != nil {
			return nil, err
		}
		pts = append(pts, &agentv1.Point{X: x, Y: y})
	}
	return pts, nil
}

// parseOptionalPoint parses zero or one positional X Y pair.
func parseOptionalPoint(cmd string, args []string) (*agentv1.Point, error) {
	if len(args) != 0 && len(args) != 2 {
		return nil, usagef(cmd, "want X Y or nothing (the current pointer position), got %d arguments", len(args))
	}
	pts, err := parsePoints(cmd, args)
	if err != nil || len(pts) == 0 {
		return nil, err
	}
	return pts[0], nil
}

// parseMillis parses a Go duration ("500ms", "2s") into milliseconds, clamped to int32 so the server's bound
// check reports the value rather than an overflow.
func parseMillis(cmd, name, s string) (int32, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, usagef(cmd, "%s: %q is not a duration (like 500ms or 2s)", name, s)
	}
	return int32(min(max(d.Milliseconds(), math.MinInt32), math.MaxInt32)), nil
}

// parseSeconds converts a duration flag into whole seconds for the session timeouts.
func parseSeconds(cmd, name string, d time.Duration) (int32, error) {
	if d%time.Second != 0 {
		return 0, usagef(cmd, "%s: %v is not a whole number of seconds", name, d)
	}
	return int32(min(max(d/time.Second, math.MinInt32), math.MaxInt32)), nil
}

// buttons maps -button names to the API enum.
var buttons = map[string]agentv1.MouseButton{
	"left":    agentv1.MouseButton_MOUSE_BUTTON_LEFT,
	"middle":  agentv1.MouseButton_MOUSE_BUTTON_MIDDLE,
	"right":   agentv1.MouseButton_MOUSE_BUTTON_RIGHT,
	"back":    agentv1.MouseButton_MOUSE_BUTTON_BACK,
	"forward": agentv1.MouseButton_MOUSE_BUTTON_FORWARD,
}

func parseButton(cmd, s string) (agentv1.MouseButton, error) {
	if s == "" {
		return agentv1.MouseButton_MOUSE_BUTTON_UNSPECIFIED, nil
	}
	b, ok := buttons[strings.ToLower(s)]
	if !ok {
		return 0, usagef(cmd, "-button %q: want left, middle, right, back or forward", s)
	}
	return b, nil
}

// parseWindowID parses an X window id in decimal or 0x hex (as xdotool and xwininfo print them).
func parseWindowID(cmd, s string) (uint32, error) {
	n, err := strconv.ParseUint(s, 0, 32)
	if err != nil {
		return 0, usagef(cmd, "-window %q: want an X window id (decimal or 0x hex)", s)
	}
	return uint32(n), nil
}

// parseTarget turns -window or -display into a target; neither gives nil (no target of its own).
func parseTarget(cmd, window, display string) (*agentv1.Target, error) {
	switch {
	case window != "" && display != "":
		return nil, usagef(cmd, "give -window or -display, not both")
	case window != "":
		id, err := parseWindowID(cmd, window)
		if err != nil {
			return nil, err
		}
		return &agentv1.Target{Kind: &agentv1.Target_Window{Window: &agentv1.WindowTarget{WindowId: id}}}, nil
	case display != "":
		return &agentv1.Target{Kind: &agentv1.Target_Display{Display: &agentv1.DisplayTarget{DisplayId: display}}}, nil
	}
	return nil, nil
}
