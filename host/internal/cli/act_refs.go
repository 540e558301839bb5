package cli

import (
	"flag"
	"strconv"
	"strings"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

const usageActRefs = `    element actions (accessibility, by a ref of a snapshot: glovebox snapshot app):
    el-click SNAPSHOT REF           el-focus SNAPSHOT REF           el-scroll SNAPSHOT REF
    el-set SNAPSHOT REF (-text T | -number N)
    el-select SNAPSHOT REF (-match TEXT [-prefix P] [-suffix S] | -range START,END) [-caret select|before|after]
    el-do SNAPSHOT REF ACTION       (an action the snapshot listed)
    page actions (browser; -browser ID -tab ID, default the session's tab; a locator is -ref SNAPSHOT:REF,
    -selector CSS or -at X,Y):
    page-click LOCATOR [-button B] [-count N]   fill LOCATOR (TEXT | -stdin)   page-type (TEXT | -stdin)
    press KEY [-repeat N]           (DOM key names: Enter, Control+a)
    navigate URL [-timeout MS]      reload [-hard]     back     forward     new-tab [URL]     close-tab
    wait-for SELECTOR [-hidden] [-timeout MS]
`

// elementVerb is an element action on SNAPSHOT REF (and more positional arguments when extra > 0).
func elementVerb(extra int, what string, flags func(fs *flag.FlagSet) func(el *agentv1.ElementRef, rest []string) (*agentv1.ActRequest, error)) actVerb {
	return func(fs *flag.FlagSet) func(*runner, []string) (*agentv1.ActRequest, error) {
		build := flags(fs)
		return func(_ *runner, pos []string) (*agentv1.ActRequest, error) {
			if err := wantArgs(actCmd, pos, 2+extra, what); err != nil {
				return nil, err
			}
			return build(&agentv1.ElementRef{SnapshotId: pos[0], Ref: pos[1]}, pos[2:])
		}
	}
}

// noFlags is an element verb with no flags of its own.
func noFlags(action func(el *agentv1.ElementRef, rest []string) *agentv1.ActRequest) func(*flag.FlagSet) func(*agentv1.ElementRef, []string) (*agentv1.ActRequest, error) {
	return func(*flag.FlagSet) func(*agentv1.ElementRef, []string) (*agentv1.ActRequest, error) {
		return func(el *agentv1.ElementRef, rest []string) (*agentv1.ActRequest, error) { return action(el, rest), nil }
	}
}

// tabFlags are -browser and -tab: the tab a page action names (none: the session's default tab).
type tabFlags struct{ browser, tab string }

func (t *tabFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&t.browser, "browser", "", "browser id (chrome-PORT)")
	fs.StringVar(&t.tab, "tab", "", "tab id")
}

func (t *tabFlags) ref() *agentv1.TabRef {
	if t.browser == "" && t.tab == "" {
		return nil
	}
	return &agentv1.TabRef{BrowserId: t.browser, TabId: t.tab}
}

// locatorFlags are -ref SNAPSHOT:REF, -selector CSS and -at X,Y (exactly one).
type locatorFlags struct{ ref, selector, at string }

func (l *locatorFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.ref, "ref", "", "SNAPSHOT:REF of a page snapshot")
	fs.StringVar(&l.selector, "selector", "", "CSS selector matching one element")
	fs.StringVar(&l.at, "at", "", "X,Y in page pixels")
}

func (l *locatorFlags) locator() (*agentv1.Locator, error) {
	n := 0
	for _, s := range []string{l.ref, l.selector, l.at} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return nil, usagef(actCmd, "give one of -ref SNAPSHOT:REF, -selector CSS, -at X,Y")
	}
	switch {
	case l.ref != "":
		snap, ref, ok := strings.Cut(l.ref, ":")
		if !ok || snap == "" || ref == "" {
			return nil, usagef(actCmd, "-ref %q: want SNAPSHOT:REF", l.ref)
		}
		return &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: &agentv1.ElementRef{SnapshotId: snap, Ref: ref}}}, nil
	case l.selector != "":
		return &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: l.selector}}, nil
	}
	p, err := parsePointFlag(actCmd, "-at", l.at)
	if err != nil {
		return nil, err
	}
	return &agentv1.Locator{Kind: &agentv1.Locator_Point{Point: p}}, nil
}

// pageVerb is a page action: -browser/-tab, optionally a locator, n positional arguments named what.
func pageVerb(n int, what string, withLocator bool, flags func(fs *flag.FlagSet) func(r *runner, tab *agentv1.TabRef, loc *agentv1.Locator, pos []string) (*agentv1.ActRequest, error)) actVerb {
	return func(fs *flag.FlagSet) func(*runner, []string) (*agentv1.ActRequest, error) {
		var tf tabFlags
		tf.register(fs)
		var lf locatorFlags
		if withLocator {
			lf.register(fs)
		}
		build := flags(fs)
		return func(r *runner, pos []string) (*agentv1.ActRequest, error) {
			if n >= 0 {
				if err := wantArgs(actCmd, pos, n, what); err != nil {
					return nil, err
				}
			}
			var loc *agentv1.Locator
			if withLocator {
				var err error
				if loc, err = lf.locator(); err != nil {
					return nil, err
				}
			}
			return build(r, tf.ref(), loc, pos)
		}
	}
}

type pageBuild = func(r *runner, tab *agentv1.TabRef, loc *agentv1.Locator, pos []string) (*agentv1.ActRequest, error)

func plain(build pageBuild) func(*flag.FlagSet) pageBuild {
	return func(*flag.FlagSet) pageBuild { return build }
}

var refVerbs = map[string]actVerb{
	"el-click": elementVerb(0, "SNAPSHOT REF", noFlags(func(el *agentv1.ElementRef, _ []string) *agentv1.ActRequest {
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_ElementClick{ElementClick: &agentv1.ElementClick{Element: el}}}
	})),
	"el-focus": elementVerb(0, "SNAPSHOT REF", noFlags(func(el *agentv1.ElementRef, _ []string) *agentv1.ActRequest {
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_ElementFocus{ElementFocus: &agentv1.ElementFocus{Element: el}}}
	})),
	"el-scroll": elementVerb(0, "SNAPSHOT REF", noFlags(func(el *agentv1.ElementRef, _ []string) *agentv1.ActRequest {
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_ElementScrollIntoView{ElementScrollIntoView: &agentv1.ElementScrollIntoView{Element: el}}}
	})),
	"el-do": elementVerb(1, "SNAPSHOT REF ACTION", noFlags(func(el *agentv1.ElementRef, rest []string) *agentv1.ActRequest {
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_ElementDoAction{ElementDoAction: &agentv1.ElementDoAction{Element: el, Action: rest[0]}}}
	})),
	"el-set": elementVerb(0, "SNAPSHOT REF", func(fs *flag.FlagSet) func(*agentv1.ElementRef, []string) (*agentv1.ActRequest, error) {
		text := fs.String("text", "", "text of an editable element")
		number := fs.String("number", "", "value of a slider or spin button")
		return func(el *agentv1.ElementRef, _ []string) (*agentv1.ActRequest, error) {
			set := &agentv1.ElementSetValue{Element: el}
			switch {
			case (*text == "") == (*number == ""):
				return nil, usagef(actCmd, "el-set needs -text or -number (one)")
			case *text != "":
				set.Value = &agentv1.ElementSetValue_Text{Text: *text}
			default:
				n, err := strconv.ParseFloat(*number, 64)
				if err != nil {
					return nil, usagef(actCmd, "-number %q: not a number", *number)
				}
				set.Value = &agentv1.ElementSetValue_Number{Number: n}
			}
			return &agentv1.ActRequest{Action: &agentv1.ActRequest_ElementSetValue{ElementSetValue: set}}, nil
		}
	}),
	"el-select": elementVerb(0, "SNAPSHOT REF", func(fs *flag.FlagSet) func(*agentv1.ElementRef, []string) (*agentv1.ActRequest, error) {
		match := fs.String("match", "", "the text to select (must occur once)")
		prefix := fs.String("prefix", "", "text just before -match")
		suffix := fs.String("suffix", "", "text just after -match")
		rng := fs.String("range", "", "START,END character offsets")
		caret := fs.String("caret", "", "select, before or after")
		return func(el *agentv1.ElementRef, _ []string) (*agentv1.ActRequest, error) {
			sel := &agentv1.ElementSelectText{Element: el}
			switch {
			case (*match == "") == (*rng == ""):
				return nil, usagef(actCmd, "el-select needs -match or -range (one)")
			case *match != "":
				sel.Range = &agentv1.ElementSelectText_Match{Match: &agentv1.TextMatch{Prefix: *prefix, Text: *match, Suffix: *suffix}}
			default:
				v, err := parseInts(actCmd, "-range", *rng, 2)
				if err != nil {
					return nil, err
				}
				sel.Range = &agentv1.ElementSelectText_Offsets{Offsets: &agentv1.TextRange{Start: v[0], End: v[1]}}
			}
			c, ok := map[string]agentv1.CaretPlacement{"": 0, "select": agentv1.CaretPlacement_CARET_PLACEMENT_SELECT,
				"before": agentv1.CaretPlacement_CARET_PLACEMENT_BEFORE, "after": agentv1.CaretPlacement_CARET_PLACEMENT_AFTER}[*caret]
			if !ok {
				return nil, usagef(actCmd, "-caret %q: want select, before or after", *caret)
			}
			sel.Caret = c
			return &agentv1.ActRequest{Action: &agentv1.ActRequest_ElementSelectText{ElementSelectText: sel}}, nil
		}
	}),

	"page-click": pageVerb(0, "no positional arguments (a locator flag)", true, func(fs *flag.FlagSet) pageBuild {
		button := fs.String("button", "", "mouse button")
		count := int32Flag(fs, "count", 0, "clicks 1..3")
		return func(_ *runner, tab *agentv1.TabRef, loc *agentv1.Locator, _ []string) (*agentv1.ActRequest, error) {
			b, err := parseButton(actCmd, *button)
			if err != nil {
				return nil, err
			}
			return &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: tab, Locator: loc, Button: b, Count: *count}}}, nil
		}
	}),
	"fill": pageVerb(-1, "", true, func(fs *flag.FlagSet) pageBuild {
		fromStdin := fs.Bool("stdin", false, "read the text from standard input")
		return func(r *runner, tab *agentv1.TabRef, loc *agentv1.Locator, pos []string) (*agentv1.ActRequest, error) {
			text, err := r.readText(actCmd, pos, *fromStdin)
			if err != nil {
				return nil, err
			}
			return &agentv1.ActRequest{Action: &agentv1.ActRequest_Fill{Fill: &agentv1.Fill{Tab: tab, Locator: loc, Text: text}}}, nil
		}
	}),
	"page-type": pageVerb(-1, "", false, func(fs *flag.FlagSet) pageBuild {
		fromStdin := fs.Bool("stdin", false, "read the text from standard input")
		return func(r *runner, tab *agentv1.TabRef, _ *agentv1.Locator, pos []string) (*agentv1.ActRequest, error) {
			text, err := r.readText(actCmd, pos, *fromStdin)
			if err != nil {
				return nil, err
			}
			return &agentv1.ActRequest{Action: &agentv1.ActRequest_PageType{PageType: &agentv1.PageType{Tab: tab, Text: text}}}, nil
		}
	}),
	"press": pageVerb(1, "KEY", false, func(fs *flag.FlagSet) pageBuild {
		repeat := int32Flag(fs, "repeat", 0, "times 1..100")
		return func(_ *runner, tab *agentv1.TabRef, _ *agentv1.Locator, pos []string) (*agentv1.ActRequest, error) {
			return &agentv1.ActRequest{Action: &agentv1.ActRequest_Press{Press: &agentv1.Press{Tab: tab, Key: pos[0], Repeat: *repeat}}}, nil
		}
	}),
	"navigate": pageVerb(1, "URL", false, func(fs *flag.FlagSet) pageBuild {
		timeout := int32Flag(fs, "timeout", 0, "load timeout, ms")
		return func(_ *runner, tab *agentv1.TabRef, _ *agentv1.Locator, pos []string) (*agentv1.ActRequest, error) {
			return &agentv1.ActRequest{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: tab, Url: pos[0], TimeoutMs: *timeout}}}, nil
		}
	}),
	"reload": pageVerb(0, "no arguments", false, func(fs *flag.FlagSet) pageBuild {
		hard := fs.Bool("hard", false, "bypass the cache")
		return func(_ *runner, tab *agentv1.TabRef, _ *agentv1.Locator, _ []string) (*agentv1.ActRequest, error) {
			return &agentv1.ActRequest{Action: &agentv1.ActRequest_Reload{Reload: &agentv1.Reload{Tab: tab, Hard: *hard}}}, nil
		}
	}),
	"back": pageVerb(0, "no arguments", false, plain(func(_ *runner, tab *agentv1.TabRef, _ *agentv1.Locator, _ []string) (*agentv1.ActRequest, error) {
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_History{History: &agentv1.History{Tab: tab, Direction: agentv1.HistoryDirection_HISTORY_DIRECTION_BACK}}}, nil
	})),
	"forward": pageVerb(0, "no arguments", false, plain(func(_ *runner, tab *agentv1.TabRef, _ *agentv1.Locator, _ []string) (*agentv1.ActRequest, error) {
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_History{History: &agentv1.History{Tab: tab, Direction: agentv1.HistoryDirection_HISTORY_DIRECTION_FORWARD}}}, nil
	})),
	"close-tab": pageVerb(0, "no arguments", false, plain(func(_ *runner, tab *agentv1.TabRef, _ *agentv1.Locator, _ []string) (*agentv1.ActRequest, error) {
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_CloseTab{CloseTab: &agentv1.CloseTab{Tab: tab}}}, nil
	})),
	"new-tab": func(fs *flag.FlagSet) func(*runner, []string) (*agentv1.ActRequest, error) {
		browser := fs.String("browser", "", "browser id (chrome-PORT)")
		return func(_ *runner, pos []string) (*agentv1.ActRequest, error) {
			if len(pos) > 1 {
				return nil, usagef(actCmd, "want [URL], got %d arguments", len(pos))
			}
			url := ""
			if len(pos) == 1 {
				url = pos[0]
			}
			return &agentv1.ActRequest{Action: &agentv1.ActRequest_NewTab{NewTab: &agentv1.NewTab{BrowserId: *browser, Url: url}}}, nil
		}
	},
	"wait-for": pageVerb(1, "SELECTOR", false, func(fs *flag.FlagSet) pageBuild {
		hidden := fs.Bool("hidden", false, "wait until hidden or absent")
		timeout := int32Flag(fs, "timeout", 0, "100..30000 ms")
		return func(_ *runner, tab *agentv1.TabRef, _ *agentv1.Locator, pos []string) (*agentv1.ActRequest, error) {
			st := agentv1.WaitState_WAIT_STATE_VISIBLE
			if *hidden {
				st = agentv1.WaitState_WAIT_STATE_HIDDEN
			}
			return &agentv1.ActRequest{Action: &agentv1.ActRequest_WaitFor{WaitFor: &agentv1.WaitFor{Tab: tab, Selector: pos[0], State: st, TimeoutMs: *timeout}}}, nil
		}
	}),
}

// init adds the element and page verbs to act's table (act.go holds the desktop verbs).
func init() {
	for name, v := range refVerbs {
		actVerbs[name] = v
	}
}
