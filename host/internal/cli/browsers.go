package cli

import (
	"fmt"
	"io"
	"strconv"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

const usageBrowsers = `  browsers -s SESSION [-start]               Chromium browsers over DevTools (-start: the default workspace browser)
`

const usageTabs = `  tabs -s SESSION [-browser ID]              a browser's tabs: id, url, title (guest content); default: every browser
`

const usageExtract = `  extract -s SESSION [-browser ID -tab ID] [-dom | -console] [-max-bytes N]
                                             a tab's text: accessibility text (default), DOM text or console messages
`

func (r *runner) browsers(args []string) error {
	const cmd = "browsers"
	fs := r.flagSet(cmd)
	session := r.sessionFlag(fs)
	start := fs.Bool("start", false, "start the default workspace browser when none runs")
	if err := r.parseOnSession(fs, cmd, args, session); err != nil {
		return err
	}
	resp, err := callComputer(r, brokerv1.ComputerServiceClient.ListBrowsers, &brokerv1.ListBrowsersRequest{SessionId: *session,
		Request: &agentv1.ListBrowsersRequest{StartDefault: *start}})
	if err != nil {
		return err
	}
	return r.emit(resp, func(w io.Writer) {
		rows := [][]string{}
		for _, b := range resp.GetResponse().GetBrowsers() {
			def := "-"
			if b.GetDefaultWorkspace() {
				def = "default"
			}
			rows = append(rows, []string{b.GetBrowserId(), strconv.Itoa(int(b.GetPort())), strconv.Itoa(int(b.GetTabCount())), def, orDash(b.GetVersion())})
		}
		table(w, "BROWSER\tPORT\tTABS\tWORKSPACE\tVERSION", rows)
	})
}

func (r *runner) tabs(args []string) error {
	const cmd = "tabs"
	fs := r.flagSet(cmd)
	session := r.sessionFlag(fs)
	browser := fs.String("browser", "", "browser id (chrome-PORT)")
	if err := r.parseOnSession(fs, cmd, args, session); err != nil {
		return err
	}
	ids := []string{*browser}
	if *browser == "" {
		bs, err := callComputer(r, brokerv1.ComputerServiceClient.ListBrowsers, &brokerv1.ListBrowsersRequest{SessionId: *session, Request: &agentv1.ListBrowsersRequest{}})
		if err != nil {
			return err
		}
		ids = ids[:0]
		for _, b := range bs.GetResponse().GetBrowsers() {
			ids = append(ids, b.GetBrowserId())
		}
	}
	all := &brokerv1.ListTabsResponse{Response: &agentv1.ListTabsResponse{}}
	for _, id := range ids {
		resp, err := callComputer(r, brokerv1.ComputerServiceClient.ListTabs, &brokerv1.ListTabsRequest{SessionId: *session, Request: &agentv1.ListTabsRequest{BrowserId: id}})
		if err != nil {
			return err
		}
		all.Response.Tabs = append(all.Response.Tabs, resp.GetResponse().GetTabs()...)
		all.AuditSeq = resp.GetAuditSeq()
	}
	return r.emit(all, func(w io.Writer) {
		rows := [][]string{}
		for _, t := range all.GetResponse().GetTabs() {
			active := "-"
			if t.GetActive() {
				active = "active"
			}
			rows = append(rows, []string{t.GetBrowserId(), t.GetTabId(), active, orDash(t.GetUrl()), orDash(t.GetTitle())})
		}
		table(w, "BROWSER\tTAB\tSTATE\tURL\tTITLE", rows)
	})
}

func (r *runner) extract(args []string) error {
	const cmd = "extract"
	fs := r.flagSet(cmd)
	session := r.sessionFlag(fs)
	var tf tabFlags
	tf.register(fs)
	dom := fs.Bool("dom", false, "DOM text")
	console := fs.Bool("console", false, "console messages")
	maxBytes := int32Flag(fs, "max-bytes", 0, "bound of the text")
	if err := r.parseOnSession(fs, cmd, args, session); err != nil {
		return err
	}
	kind := agentv1.ExtractKind_EXTRACT_KIND_A11Y
	switch {
	case *dom && *console:
		return usagef(cmd, "give -dom or -console, not both")
	case *dom:
		kind = agentv1.ExtractKind_EXTRACT_KIND_DOM
	case *console:
		kind = agentv1.ExtractKind_EXTRACT_KIND_CONSOLE
	}
	resp, err := callComputer(r, brokerv1.ComputerServiceClient.Extract, &brokerv1.ExtractRequest{SessionId: *session,
		Request: &agentv1.ExtractRequest{Tab: tf.ref(), Kind: kind, MaxBytes: *maxBytes}})
	if err != nil {
		return err
	}
	return r.emit(resp, func(w io.Writer) {
		e := resp.GetResponse()
		for _, m := range e.GetConsole() {
			fmt.Fprintf(w, "%s %s\n", m.GetLevel(), m.GetText())
		}
		if e.GetContent() != "" {
			fmt.Fprintln(w, e.GetContent())
		}
		if e.GetTruncated() {
			fmt.Fprintln(w, "(truncated: raise -max-bytes)")
		}
	})
}
