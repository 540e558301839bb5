package recording

import (
	"context"

	"google.golang.org/protobuf/reflect/protoreflect"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/actions"
)

// TabDesc is the tab a page step acted on, as the recording session last listed it: its ids (the recording
// guest's, for reference only) and its URL and title (untrusted guest text), by which a replay finds the tab
// on the guest replayed on.
type TabDesc struct {
	BrowserID string `json:"browser_id"`
	TabID     string `json:"tab_id"`
	URL       string `json:"url,omitempty"`
	Title     string `json:"title,omitempty"`
}

const elementRefName = "glovebox.agent.v1.ElementRef"

// FirstRef is the first ElementRef r's action sets (an element action's element, a page action's ref
// locator; page_drag's from before its to), nil when none.
func FirstRef(r *agentv1.ActRequest) *agentv1.ElementRef {
	m := r.ProtoReflect()
	f := m.WhichOneof(m.Descriptor().Oneofs().ByName("action"))
	if f == nil || f.Message() == nil {
		return nil
	}
	found := firstRef(m.Get(f).Message())
	if found == nil {
		return nil
	}
	ref, _ := found.Interface().(*agentv1.ElementRef)
	return ref
}

// firstRef walks msg in field order to its first set ElementRef.
func firstRef(msg protoreflect.Message) protoreflect.Message {
	if msg.Descriptor().FullName() == elementRefName {
		return msg
	}
	fields := msg.Descriptor().Fields()
	for i := range fields.Len() {
		f := fields.Get(i)
		if f.Message() != nil && !f.IsList() && !f.IsMap() && msg.Has(f) {
			if found := firstRef(msg.Get(f).Message()); found != nil {
				return found
			}
		}
	}
	return nil
}

// setFirstRef points r's first ElementRef (FirstRef) at ref, reporting whether there was one.
func setFirstRef(r *agentv1.ActRequest, ref *agentv1.ElementRef) bool {
	old := FirstRef(r)
	if old == nil {
		return false
	}
	old.SnapshotId, old.Ref = ref.GetSnapshotId(), ref.GetRef()
	return true
}

// PageActor is what a replay of page steps needs besides an Actor: the guest's tabs and their snapshots.
type PageActor interface {
	// Tabs lists the page tabs of every browser of the guest.
	Tabs(ctx context.Context) ([]*agentv1.Tab, error)
	// SnapshotTab snapshots a tab.
	SnapshotTab(ctx context.Context, tab *agentv1.TabRef) (*agentv1.Snapshot, error)
}

// tabMap maps the recording guest's tabs to the replay guest's, as a replay meets them.
type tabMap map[string]*agentv1.TabRef

// replayPage points a page step's request at the replay guest's tab, and its ref (if any) at the element
// found there by its description, like an element step. The recorded tab is the one already mapped, else the
// replay guest's tab with the recorded URL, else its only tab; an element resolves as Resolve says. It
// answers the step's status and detail; ok false: the step is not sent.
func replayPage(ctx context.Context, st Step, req *agentv1.ActRequest, a Actor, tabs tabMap) (status, detail string, ok bool) {
	pa, isPage := a.(PageActor)
	if !isPage {
		return StatusFailed, "this replay cannot list tabs", false
	}
	recorded, _ := actions.TabOf(req)
	if nt := req.GetNewTab(); nt != nil {
		// new_tab names only its browser: the recording guest's, else the one browser the replay guest's tabs
		// are of.
		all, err := pa.Tabs(ctx)
		if err != nil {
			return StatusFailed, err.Error(), false
		}
		browsers := map[string]bool{}
		for _, t := range all {
			browsers[t.GetBrowserId()] = true
		}
		if !browsers[nt.GetBrowserId()] && len(browsers) == 1 {
			for id := range browsers {
				nt.BrowserId = id
			}
		}
		return StatusDone, "", true
	}
	if recorded == nil {
		return StatusFailed, "the page step names no tab", false
	}
	key := recorded.GetBrowserId() + "/" + recorded.GetTabId()
	tab := tabs[key]
	if tab == nil {
		all, err := pa.Tabs(ctx)
		if err != nil {
			return StatusFailed, err.Error(), false
		}
		url := ""
		if st.Tab != nil {
			url = st.Tab.URL
		}
		for _, t := range all {
			if url != "" && t.GetUrl() == url {
				tab = &agentv1.TabRef{BrowserId: t.GetBrowserId(), TabId: t.GetTabId()}
				break
			}
		}
		if tab == nil && len(all) == 1 {
			tab = &agentv1.TabRef{BrowserId: all[0].GetBrowserId(), TabId: all[0].GetTabId()}
		}
		if tab == nil {
			return StatusNotFound, "no tab with the recorded URL, and not exactly one tab", false
		}
		tabs[key] = tab
	}
	actions.SetTab(req, tab)
	if FirstRef(req) == nil {
		return StatusDone, "", true
	}
	d := st.Element
	if d == nil {
		return StatusFailed, "the recording has no description of the page element (its snapshot was not read through the broker)", false
	}
	snap, err := pa.SnapshotTab(ctx, tab)
	if err != nil {
		return StatusFailed, err.Error(), false
	}
	ref, status := Resolve(d, snap.GetElements())
	if status == StatusNotFound {
		return status, "no element with the recorded role and name in the tab", false
	}
	setFirstRef(req, &agentv1.ElementRef{SnapshotId: snap.GetSnapshotId(), Ref: ref})
	return status, "", true
}

// isPageStep reports whether r is a page action (actions.Page).
func isPageStep(r *agentv1.ActRequest) bool { return actions.Of(r) == actions.Page }
