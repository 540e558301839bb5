package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/validate"
)

const usageClipboardData = `  clipboard read -s SESSION -type MIME [-o OUT]
                                             read the clipboard as image/png, image/jpeg, text/uri-list or
                                             x-special/gnome-copied-files (OUT "-" or none: stdout)
  clipboard write -s SESSION -type MIME FILE  put a PNG, JPEG or file list on the clipboard
  clipboard targets -s SESSION [-primary]    the targets the clipboard's owner offers (untrusted names)
  clipboard paste -s SESSION [-window ID] [-wait MS] [-confirm] (TEXT | -stdin)
                                             paste text into a window through the clipboard and ctrl+v; the
                                             earlier clipboard is restored unless it changed meanwhile
`

// clipboardDataOptions are the flags of the MIME, targets and paste subcommands.
type clipboardDataOptions struct {
	mime, out string
	window    *uint32Flag
	wait      *uint32Flag
}

// uint32Flag is a flag.Value for a window id or a duration in ms (decimal or 0x hex).
type uint32Flag struct{ v uint32 }

func (f *uint32Flag) String() string { return fmt.Sprint(f.v) }
func (f *uint32Flag) Set(s string) error {
	var n uint64
	if _, err := fmt.Sscan(s, &n); err != nil || n > 1<<32-1 {
		return fmt.Errorf("want a number 0..4294967295")
	}
	f.v = uint32(n)
	return nil
}

// clipboardDataFlags registers the flags sub takes beyond the text subcommands'.
func (r *runner) clipboardDataFlags(fs *flag.FlagSet, sub string) *clipboardDataOptions {
	o := &clipboardDataOptions{window: &uint32Flag{}, wait: &uint32Flag{}}
	switch sub {
	case "read", "write":
		fs.StringVar(&o.mime, "type", "", "a MIME target instead of text: "+strings.Join(validate.ClipboardMIMETypes, ", "))
		if sub == "read" {
			fs.StringVar(&o.out, "o", "-", "with -type: where to write the bytes (- for stdout)")
		}
	case "paste":
		fs.Var(o.window, "window", "window id to paste into (default: the session's default window, else the focused one)")
		fs.Var(o.wait, "wait", "ms to wait for the application to ask for the text (0: 2000)")
	}
	return o
}

// clipboardData runs the subcommands that are not text reads and writes; done is false for those.
func (r *runner) clipboardData(session string, sel agentv1.Selection, sub string, pos []string, o *clipboardDataOptions, fromStdin, confirm bool) (done bool, err error) {
	const cmd = "clipboard"
	switch {
	case sub == "targets":
		if err := wantArgs(cmd, pos, 0, "no positional arguments"); err != nil {
			return true, err
		}
		resp, err := callComputer(r, brokerv1.ComputerServiceClient.ListClipboardTargets,
			&brokerv1.ListClipboardTargetsRequest{SessionId: session, Request: &agentv1.ListClipboardTargetsRequest{Selection: sel}})
		if err != nil {
			return true, err
		}
		return true, r.emit(resp, func(w io.Writer) {
			if !resp.GetResponse().GetOwned() {
				fmt.Fprintln(w, "(no owner)")
			}
			for _, t := range resp.GetResponse().GetTargets() {
				fmt.Fprintln(w, clean(t))
			}
		})
	case sub == "paste":
		text, err := r.readText(cmd, pos, fromStdin)
		if err != nil {
			return true, err
		}
		resp, err := callComputer(r, brokerv1.ComputerServiceClient.PasteText, &brokerv1.PasteTextRequest{SessionId: session, Confirm: confirm,
			Request: &agentv1.PasteTextRequest{Text: text, WindowId: o.window.v, WaitMs: o.wait.v}})
		if err != nil {
			return true, err
		}
		return true, r.emit(resp, func(w io.Writer) {
			p := resp.GetResponse()
			fmt.Fprintf(w, "pasted %d bytes into window 0x%x (requested: %v); clipboard %s (audit seq %d)\n", p.GetLength(),
				p.GetWindowId(), p.GetRequested(), shortEnum(p.GetRestore().String(), "CLIPBOARD_RESTORE_"), resp.GetAuditSeq())
		})
	case sub == "read" && o.mime != "":
		if err := wantArgs(cmd, pos, 0, "no positional arguments"); err != nil {
			return true, err
		}
		resp, err := callComputer(r, brokerv1.ComputerServiceClient.ReadClipboardData,
			&brokerv1.ReadClipboardDataRequest{SessionId: session, Request: &agentv1.ReadClipboardDataRequest{Selection: sel, MimeType: o.mime}})
		if err != nil {
			return true, err
		}
		d := resp.GetResponse()
		if !d.GetOffered() {
			return true, fmt.Errorf("the clipboard holds no %s (owned: %v)", o.mime, d.GetOwned())
		}
		if err := r.writeOut(o.out, d.GetData()); err != nil || o.out == "-" {
			return true, err
		}
		fmt.Fprintf(r.env.Stdout, "wrote %s: %d bytes of %s (audit seq %d)\n", o.out, len(d.GetData()), o.mime, resp.GetAuditSeq())
		return true, nil
	case sub == "write" && o.mime != "":
		if err := wantArgs(cmd, pos, 1, "FILE"); err != nil {
			return true, err
		}
		data, err := os.ReadFile(pos[0])
		if err != nil {
			return true, err
		}
		if len(data) == 0 {
			return true, fmt.Errorf("%s is empty", pos[0])
		}
		resp, err := callComputer(r, brokerv1.ComputerServiceClient.WriteClipboardData,
			&brokerv1.WriteClipboardDataRequest{SessionId: session, Request: &agentv1.WriteClipboardDataRequest{Selection: sel, MimeType: o.mime, Data: data}})
		if err != nil {
			return true, err
		}
		return true, r.emit(resp, func(w io.Writer) {
			fmt.Fprintf(w, "wrote %d bytes of %s to %s (audit seq %d)\n", resp.GetResponse().GetLength(), o.mime,
				shortEnum(sel.String(), "SELECTION_"), resp.GetAuditSeq())
		})
	}
	return false, nil
}
