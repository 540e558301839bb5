package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

const usageScreenshot = `  screenshot -s SESSION -o FILE [-jpeg [-quality N]] [-region x,y,w,h] [-max-edge N] [-cursor] [-display ID]
                                             save a screenshot (PNG by default; -o - writes to stdout)
`

const usageWindows = `  windows -s SESSION [-all]                  top-level windows, bottom first (-all: unmapped too)
`

const usageCursor = `  cursor -s SESSION                          pointer position and the window under it
`

const usageClipboard = `  clipboard read -s SESSION [-primary]       print the clipboard text (untrusted guest content)
  clipboard write -s SESSION [-primary] [-confirm] (TEXT | -stdin)
                                             set the clipboard (-confirm: text that looks like a secret)
` + usageClipboardData

// screenshotFlags are the capture options shared by screenshot and act -observe.
type screenshotFlags struct {
	jpeg, cursor            bool
	quality, maxEdge        int32
	region, display, output string
}

// register adds the flags to fs; act has its own -display (the target), so it leaves out -region and -display.
func (f *screenshotFlags) register(fs *flag.FlagSet, withArea bool) {
	fs.BoolVar(&f.jpeg, "jpeg", f.jpeg, "JPEG instead of PNG")
	fs.Var(int32Value{&f.quality}, "quality", "JPEG quality 1..100")
	fs.Var(int32Value{&f.maxEdge}, "max-edge", "scale down to this longer edge")
	fs.BoolVar(&f.cursor, "cursor", f.cursor, "draw the cursor")
	fs.StringVar(&f.output, "o", f.output, "output file")
	if withArea {
		fs.StringVar(&f.region, "region", f.region, "x,y,w,h")
		fs.StringVar(&f.display, "display", f.display, "display id")
	}
}

func (f *screenshotFlags) options(cmd string) (*agentv1.ScreenshotOptions, error) {
	region, err := parseRegion(cmd, f.region)
	if err != nil {
		return nil, err
	}
	o := &agentv1.ScreenshotOptions{DisplayId: f.display, Region: region, Quality: f.quality, MaxEdge: f.maxEdge, IncludeCursor: f.cursor}
	if f.jpeg {
		o.Format = agentv1.ImageFormat_IMAGE_FORMAT_JPEG
	}
	return o, nil
}

// saveImage writes img's bytes to path ("-" is stdout).
func (r *runner) saveImage(path string, img *agentv1.Image) error {
	if path == "-" {
		_, err := r.env.Stdout.Write(img.GetData())
		return err
	}
	if err := os.WriteFile(path, img.GetData(), 0o644); err != nil {
		return fmt.Errorf("save image: %w", err)
	}
	return nil
}

// describeImage says what an image is, without its bytes.
func describeImage(img *agentv1.Image) string {
	return fmt.Sprintf("%dx%d %s, %d bytes, scale %s, region %s", img.GetWidth(), img.GetHeight(),
		shortEnum(img.GetFormat().String(), "IMAGE_FORMAT_"), len(img.GetData()),
		strconv.FormatFloat(img.GetScale(), 'g', 4, 64), describeRect(img.GetRegion()))
}

// withoutImageData returns a copy of m with every image's bytes dropped, for -json output of a saved image.
func withoutImageData[M proto.Message](m M, img func(M) *agentv1.Image) M {
	c := proto.Clone(m).(M)
	if i := img(c); i != nil {
		i.Data = nil
	}
	return c
}

func (r *runner) screenshot(args []string) error {
	const cmd = "screenshot"
	fs := r.flagSet(cmd)
	session := r.sessionFlag(fs)
	var sf screenshotFlags
	sf.register(fs, true)
	if err := r.parseOnSession(fs, cmd, args, session); err != nil {
		return err
	}
	if sf.output == "" {
		return usagef(cmd, "-o FILE is required (- for stdout)")
	}
	opts, err := sf.options(cmd)
	if err != nil {
		return err
	}
	resp, err := callComputer(r, brokerv1.ComputerServiceClient.CaptureScreenshot,
		&brokerv1.CaptureScreenshotRequest{SessionId: *session, Request: &agentv1.CaptureScreenshotRequest{Options: opts}})
	if err != nil {
		return err
	}
	img := resp.GetResponse().GetImage()
	if err := r.saveImage(sf.output, img); err != nil {
		return err
	}
	if sf.output == "-" {
		return nil
	}
	out := withoutImageData(resp, func(m *brokerv1.CaptureScreenshotResponse) *agentv1.Image { return m.GetResponse().GetImage() })
	return r.emit(out, func(w io.Writer) {
		fmt.Fprintf(w, "wrote %s: %s (audit seq %d)\n", sf.output, describeImage(img), resp.GetAuditSeq())
	})
}

func (r *runner) windows(args []string) error {
	const cmd = "windows"
	fs := r.flagSet(cmd)
	session := r.sessionFlag(fs)
	all := fs.Bool("all", false, "include unmapped windows")
	if err := r.parseOnSession(fs, cmd, args, session); err != nil {
		return err
	}
	resp, err := callComputer(r, brokerv1.ComputerServiceClient.ListWindows,
		&brokerv1.ListWindowsRequest{SessionId: *session, Request: &agentv1.ListWindowsRequest{IncludeUnmapped: *all}})
	if err != nil {
		return err
	}
	return r.emit(resp, func(w io.Writer) {
		rows := make([][]string, 0, len(resp.GetResponse().GetWindows()))
		for _, win := range resp.GetResponse().GetWindows() {
			var state []string
			if win.GetFocused() {
				state = append(state, "focused")
			}
			if !win.GetMapped() {
				state = append(state, "unmapped")
			}
			flags := strings.Join(state, ",")
			rows = append(rows, []string{fmt.Sprintf("0x%x", win.GetId()), strconv.Itoa(int(win.GetPid())), describeRect(win.GetGeometry()),
				orDash(win.GetClassName()), orDash(flags), orDash(win.GetTitle())})
		}
		table(w, "ID\tPID\tGEOMETRY\tCLASS\tSTATE\tTITLE", rows)
	})
}

func (r *runner) cursor(args []string) error {
	const cmd = "cursor"
	fs := r.flagSet(cmd)
	session := r.sessionFlag(fs)
	if err := r.parseOnSession(fs, cmd, args, session); err != nil {
		return err
	}
	resp, err := callComputer(r, brokerv1.ComputerServiceClient.GetCursorPosition,
		&brokerv1.GetCursorPositionRequest{SessionId: *session, Request: &agentv1.GetCursorPositionRequest{}})
	if err != nil {
		return err
	}
	return r.emit(resp, func(w io.Writer) {
		c := resp.GetResponse()
		fmt.Fprintf(w, "%d,%d window 0x%x display %s\n", c.GetPosition().GetX(), c.GetPosition().GetY(), c.GetWindowId(), orDash(c.GetDisplayId()))
	})
}

func (r *runner) clipboard(args []string) error {
	const cmd = "clipboard"
	sub, args, err := r.subcommand(cmd, "", args)
	if err != nil {
		return err
	}
	fs := r.flagSet(cmd)
	session := r.sessionFlag(fs)
	primary := fs.Bool("primary", false, "the PRIMARY selection instead of CLIPBOARD")
	var fromStdin, confirm bool
	if sub == "write" || sub == "paste" {
		fs.BoolVar(&fromStdin, "stdin", false, "read the text from standard input")
		fs.BoolVar(&confirm, "confirm", false, "confirm text the policy holds back as secret-looking")
	}
	data := r.clipboardDataFlags(fs, sub)
	pos, err := r.parse(fs, cmd, args)
	if err != nil {
		return err
	}
	if err := needSession(cmd, *session); err != nil {
		return err
	}
	sel := agentv1.Selection_SELECTION_CLIPBOARD
	if *primary {
		sel = agentv1.Selection_SELECTION_PRIMARY
	}
	if done, err := r.clipboardData(*session, sel, sub, pos, data, fromStdin, confirm); done {
		return err
	}
	switch sub {
	case "read":
		if err := wantArgs(cmd, pos, 0, "no positional arguments"); err != nil {
			return err
		}
		resp, err := callComputer(r, brokerv1.ComputerServiceClient.ReadClipboard,
			&brokerv1.ReadClipboardRequest{SessionId: *session, Request: &agentv1.ReadClipboardRequest{Selection: sel}})
		if err != nil {
			return err
		}
		// The user asked to read it: the text goes to stdout as is, so it can be piped.
		return r.emit(resp, func(w io.Writer) { io.WriteString(w, resp.GetResponse().GetText()) })
	case "write":
		text, err := r.readText(cmd, pos, fromStdin)
		if err != nil {
			return err
		}
		resp, err := callComputer(r, brokerv1.ComputerServiceClient.WriteClipboard,
			&brokerv1.WriteClipboardRequest{SessionId: *session, Confirm: confirm, Request: &agentv1.WriteClipboardRequest{Selection: sel, Text: text}})
		if err != nil {
			return err
		}
		return r.emit(resp, func(w io.Writer) {
			fmt.Fprintf(w, "wrote %d bytes to %s (audit seq %d)\n", resp.GetResponse().GetLength(), shortEnum(sel.String(), "SELECTION_"), resp.GetAuditSeq())
		})
	default:
		return usagef(cmd, "unknown clipboard command %q", sub)
	}
}
