package mcp

import (
	"context"
	"encoding/json"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// protoList renders messages as JSON values (protojson, proto field names) for untrusted blocks.
func protoList[M proto.Message](ms []M) []any {
	out := make([]any, 0, len(ms))
	for _, m := range ms {
		b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(m)
		if err != nil {
			continue
		}
		var v any
		if json.Unmarshal(b, &v) == nil {
			out = append(out, v)
		}
	}
	return out
}

type tabArgs struct {
	BrowserID    string  `json:"browser_id"`
	TabID        string  `json:"tab_id"`
	Ref          string  `json:"ref"`
	SnapshotID   string  `json:"snapshot_id"`
	Selector     string  `json:"selector"`
	Text         *string `json:"text"`
	Key          string  `json:"key"`
	URL          string  `json:"url"`
	State        string  `json:"state"`
	TimeoutMS    int32   `json:"timeout_ms"`
	Kind         string  `json:"kind"`
	MaxBytes     *int    `json:"max_bytes"`
	MaxTokens    *int    `json:"max_tokens"`
	Continuation string  `json:"continuation"`
	Confirm      bool    `json:"confirm"`
}

var (
	browserIDS = map[string]any{"type": "string", "description": "browser id (\"chrome-9222\") from browser_tabs (default: the session's tab)"}
	tabIDS     = map[string]any{"type": "string", "description": "tab id from browser_tabs (default: the session's tab)"}
	selectorS  = map[string]any{"type": "string", "description": "CSS selector matching exactly one element, instead of ref"}
)

// tab is the tab a call names (empty: the session's default tab, which the broker fills in).
func (a tabArgs) tab() *agentv1.TabRef {
	if a.BrowserID == "" && a.TabID == "" {
		return nil
	}
	return &agentv1.TabRef{BrowserId: a.BrowserID, TabId: a.TabID}
}

// locator is the element a page action names: a ref of a page snapshot (and that snapshot's tab) or a selector.
func (s *Session) locator(a tabArgs) (*agentv1.TabRef, *agentv1.Locator, error) {
	switch {
	case a.Ref != "" && a.Selector != "":
		return nil, nil, invalid("selector", "give ref or selector, not both")
	case a.Ref != "":
		snap, err := s.snaps.find("ref", a.SnapshotID)
		if err != nil {
			return nil, nil, err
		}
		if snap.tab == nil {
			return nil, nil, invalid("ref", "is from an application snapshot; use click / set_value")
		}
		return snap.tab, &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: &agentv1.ElementRef{SnapshotId: snap.id, Ref: a.Ref}}}, nil
	case a.Selector != "":
		return a.tab(), &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: a.Selector}}, nil
	}
	return nil, nil, invalid("ref", "required (or selector)")
}

func (s *Session) browserTools() []tool {
	page := func(extra map[string]any) map[string]any {
		p := map[string]any{"browser_id": browserIDS, "tab_id": tabIDS}
		for k, v := range extra {
			p[k] = v
		}
		return p
	}
	pageAct := func(arg string, build func(a tabArgs) (*agentv1.ActRequest, error)) func(ctx context.Context, a tabArgs) (*result, error) {
		return func(ctx context.Context, a tabArgs) (*result, error) {
			req, err := build(a)
			if err != nil {
				return nil, err
			}
			req.Confirm = a.Confirm
			return s.run(ctx, []step{{arg: arg, req: req}}, false)
		}
	}
	return []tool{
		typed("browser_tabs", "List the browsers (Chromium over DevTools) and their tabs.", true, obj(nil, nil),
			func(ctx context.Context, _ struct{}) (*result, error) {
				bs, err := s.computer.ListBrowsers(ctx, &brokerv1.ListBrowsersRequest{SessionId: s.id, Request: &agentv1.ListBrowsersRequest{}})
				if err != nil {
					return nil, err
				}
				var tabs []*agentv1.Tab
				for _, b := range bs.GetResponse().GetBrowsers() {
					ts, err := s.computer.ListTabs(ctx, &brokerv1.ListTabsRequest{SessionId: s.id, Request: &agentv1.ListTabsRequest{BrowserId: b.GetBrowserId()}})
					if err != nil {
						return nil, err
					}
					tabs = append(tabs, ts.GetResponse().GetTabs()...)
				}
				r := newResult().set("browsers", protoList(bs.GetResponse().GetBrowsers())).set("audit_seq", bs.GetAuditSeq())
				return r.guest("tabs", protoList(tabs)), nil
			}),
		typed("browser_snapshot", "A tab's page as accessibility text with refs (bounded by a text budget, with a continuation "+
			"for the rest). Use the refs with browser_click, browser_fill, browser_press.", true,
			obj(nil, page(map[string]any{"max_bytes": budgetS, "max_tokens": tokensS, "continuation": contS})),
			func(ctx context.Context, a tabArgs) (*result, error) {
				limit, err := budget(a.MaxBytes, a.MaxTokens)
				if err != nil {
					return nil, err
				}
				r := newResult()
				if a.Continuation != "" {
					id, off, err := parseContinuation(a.Continuation)
					if err != nil {
						return nil, err
					}
					snap, err := s.snaps.find("continuation", id)
					if err != nil {
						return nil, err
					}
					return r, pageOf(r, snap, off, limit)
				}
				resp, err := s.computer.SnapshotTab(ctx, &brokerv1.SnapshotTabRequest{SessionId: s.id, Request: &agentv1.SnapshotTabRequest{Tab: a.tab()}})
				if err != nil {
					return nil, err
				}
				snap := resp.GetResponse().GetSnapshot()
				t := snap.GetTarget().GetTab()
				memo := &snapshotMemo{id: snap.GetSnapshotId(), tab: &agentv1.TabRef{BrowserId: t.GetBrowserId(), TabId: t.GetTabId()}, text: snap.GetText()}
				s.snaps.add(memo)
				r.set("browser_id", t.GetBrowserId()).set("tab_id", t.GetTabId()).set("elements", len(snap.GetElements())).
					set("complete", snap.GetComplete()).set("audit_seq", resp.GetAuditSeq())
				return r, pageOf(r, memo, 0, limit)
			}),
		typed("browser_click", "Click a page element by ref or CSS selector (scrolled into view; refused when covered).", false,
			obj(nil, page(map[string]any{"ref": refS, "snapshot_id": snapIDS, "selector": selectorS, "confirm": confirmS})),
			pageAct("ref", func(a tabArgs) (*agentv1.ActRequest, error) {
				tab, loc, err := s.locator(a)
				return &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: tab, Locator: loc}}}, err
			})),
		typed("browser_fill", "Replace a page field's text by ref or CSS selector; the value is read back.", false,
			obj([]string{"text"}, page(map[string]any{"ref": refS, "snapshot_id": snapIDS, "selector": selectorS, "text": strS, "confirm": confirmS})),
			pageAct("text", func(a tabArgs) (*agentv1.ActRequest, error) {
				if a.Text == nil {
					return nil, invalid("text", "required")
				}
				tab, loc, err := s.locator(a)
				return &agentv1.ActRequest{Action: &agentv1.ActRequest_Fill{Fill: &agentv1.Fill{Tab: tab, Locator: loc, Text: *a.Text}}}, err
			})),
		typed("browser_press", "Press a key in a tab (DOM key names with modifiers: \"Enter\", \"Control+a\"); with ref or "+
			"selector the element is clicked first.", false,
			obj([]string{"key"}, page(map[string]any{"key": strS, "ref": refS, "snapshot_id": snapIDS, "selector": selectorS})),
			func(ctx context.Context, a tabArgs) (*result, error) {
				if a.Key == "" {
					return nil, invalid("key", "required")
				}
				tab := a.tab()
				var steps []step
				if a.Ref != "" || a.Selector != "" {
					t, loc, err := s.locator(a)
					if err != nil {
						return nil, err
					}
					tab = t
					steps = append(steps, step{arg: "ref", req: &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: tab, Locator: loc}}}})
				}
				steps = append(steps, step{arg: "key", req: &agentv1.ActRequest{Action: &agentv1.ActRequest_Press{Press: &agentv1.Press{Tab: tab, Key: a.Key}}}})
				return s.run(ctx, steps, false)
			}),
		typed("browser_navigate", "Load a URL (http, https, about) in a tab.", false,
			obj([]string{"url"}, page(map[string]any{"url": strS, "timeout_ms": map[string]any{"type": "integer", "minimum": 0, "maximum": 60000}, "confirm": confirmS})),
			pageAct("url", func(a tabArgs) (*agentv1.ActRequest, error) {
				return &agentv1.ActRequest{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: a.tab(), Url: a.URL, TimeoutMs: a.TimeoutMS}}}, nil
			})),
		typed("browser_wait_for", "Wait until a CSS selector is visible (or hidden) in a tab; TIMEOUT when it does not happen.", false,
			obj([]string{"selector"}, page(map[string]any{"selector": strS, "state": map[string]any{"type": "string", "enum": []string{"visible", "hidden"}},
				"timeout_ms": map[string]any{"type": "integer", "minimum": 100, "maximum": 30000}})),
			pageAct("selector", func(a tabArgs) (*agentv1.ActRequest, error) {
				state := map[string]agentv1.WaitState{"": agentv1.WaitState_WAIT_STATE_VISIBLE, "visible": agentv1.WaitState_WAIT_STATE_VISIBLE,
					"hidden": agentv1.WaitState_WAIT_STATE_HIDDEN}
				st, ok := state[a.State]
				if !ok {
					return nil, invalid("state", "must be visible or hidden, got %q", truncate(a.State, 16))
				}
				return &agentv1.ActRequest{Action: &agentv1.ActRequest_WaitFor{WaitFor: &agentv1.WaitFor{Tab: a.tab(), Selector: a.Selector, State: st, TimeoutMs: a.TimeoutMS}}}, nil
			})),
		typed("browser_extract", "A tab's content as text: kind a11y (default), dom or console; bounded by max_bytes.", true,
			obj(nil, page(map[string]any{"kind": map[string]any{"type": "string", "enum": []string{"a11y", "dom", "console"}}, "max_bytes": budgetS})),
			func(ctx context.Context, a tabArgs) (*result, error) {
				kinds := map[string]agentv1.ExtractKind{"": agentv1.ExtractKind_EXTRACT_KIND_A11Y, "a11y": agentv1.ExtractKind_EXTRACT_KIND_A11Y,
					"dom": agentv1.ExtractKind_EXTRACT_KIND_DOM, "console": agentv1.ExtractKind_EXTRACT_KIND_CONSOLE}
				k, ok := kinds[a.Kind]
				if !ok {
					return nil, invalid("kind", "must be a11y, dom or console, got %q", truncate(a.Kind, 16))
				}
				limit, err := budget(a.MaxBytes, nil)
				if err != nil {
					return nil, err
				}
				resp, err := s.computer.Extract(ctx, &brokerv1.ExtractRequest{SessionId: s.id, Request: &agentv1.ExtractRequest{Tab: a.tab(), Kind: k, MaxBytes: int32(limit)}})
				if err != nil {
					return nil, err
				}
				r := newResult().set("truncated", resp.GetResponse().GetTruncated()).set("audit_seq", resp.GetAuditSeq())
				r.untrustedText = resp.GetResponse().GetContent()
				if c := resp.GetResponse().GetConsole(); len(c) > 0 {
					r.guest("console", protoList(c))
				}
				return r, nil
			}),
	}
}

func (s *Session) clipboardTools() []tool {
	sel := map[string]any{"type": "string", "enum": []string{"clipboard", "primary"}}
	selection := func(name string) (agentv1.Selection, error) {
		switch name {
		case "", "clipboard":
			return agentv1.Selection_SELECTION_CLIPBOARD, nil
		case "primary":
			return agentv1.Selection_SELECTION_PRIMARY, nil
		}
		return 0, invalid("selection", "must be clipboard or primary, got %q", truncate(name, 16))
	}
	type clipArgs struct {
		Selection string  `json:"selection"`
		Text      *string `json:"text"`
		Confirm   bool    `json:"confirm"`
	}
	return []tool{
		typed("clipboard_read", "Read the desktop clipboard (or the primary selection) as text.", true, obj(nil, map[string]any{"selection": sel}),
			func(ctx context.Context, a clipArgs) (*result, error) {
				sl, err := selection(a.Selection)
				if err != nil {
					return nil, err
				}
				resp, err := s.computer.ReadClipboard(ctx, &brokerv1.ReadClipboardRequest{SessionId: s.id, Request: &agentv1.ReadClipboardRequest{Selection: sl}})
				if err != nil {
					return nil, err
				}
				r := newResult().set("owned", resp.GetResponse().GetOwned()).set("bytes", len(resp.GetResponse().GetText())).set("audit_seq", resp.GetAuditSeq())
				r.untrustedText = resp.GetResponse().GetText()
				return r, nil
			}),
		typed("clipboard_write", "Put text on the desktop clipboard (or the primary selection).", false,
			obj([]string{"text"}, map[string]any{"selection": sel, "text": strS, "confirm": confirmS}),
			func(ctx context.Context, a clipArgs) (*result, error) {
				sl, err := selection(a.Selection)
				if err != nil {
					return nil, err
				}
				if a.Text == nil {
					return nil, invalid("text", "required")
				}
				resp, err := s.computer.WriteClipboard(ctx, &brokerv1.WriteClipboardRequest{SessionId: s.id, Confirm: a.Confirm,
					Request: &agentv1.WriteClipboardRequest{Selection: sl, Text: *a.Text}})
				if err != nil {
					return nil, err
				}
				return newResult().set("effect", "DONE").set("audit_seq", resp.GetAuditSeq()), nil
			}),
	}
}

// tools are every tool of a session, in the order -list prints them.
func (s *Session) tools() []tool {
	ts := []tool{s.computerTool(), s.openaiTool()}
	ts = append(ts, s.appTools()...)
	ts = append(ts, s.browserTools()...)
	ts = append(ts, s.clipboardTools()...)
	return append(ts, s.helpTools()...)
}

// ToolList is every tool the session offers with its schema, as a model sees it (glovebox mcp -list).
func (s *Session) ToolList() []map[string]any {
	var out []map[string]any
	for _, t := range s.tools() {
		out = append(out, map[string]any{"name": t.tool.Name, "description": t.tool.Description, "inputSchema": t.tool.InputSchema})
	}
	return out
}
