package a11y

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv"
)

// factory is gtk3-widget-factory on the agent, with its full first-page tree read once.
type factory struct {
	a11y agentv1.AccessibilityServiceClient
	conn *grpc.ClientConn
	id   string
	pid  int32
}

// startFactory starts gtk3-widget-factory and waits until its first page is in the tree.
func startFactory(t *testing.T) *factory {
	t.Helper()
	testenv.NeedCommands(t, "gtk3-widget-factory")
	s, agent := startAgent(t)
	app := start(t, s, "gtk3-widget-factory")
	conn := agent.DialUnix(t)
	f := &factory{a11y: agentv1.NewAccessibilityServiceClient(conn), conn: conn, id: appID(app.pid), pid: app.pid}
	waitOnBus(t, f.id, func(ctx context.Context) ([]*agentv1.App, error) {
		r, err := f.a11y.ListApps(ctx, &agentv1.ListAppsRequest{})
		return r.GetApps(), err
	})
	deadline := time.Now().Add(20 * time.Second)
	for len(f.full(t).GetElements()) <= 200 {
		if time.Now().After(deadline) {
			t.Fatal("gtk3-widget-factory never showed its first page")
		}
		time.Sleep(200 * time.Millisecond)
	}
	return f
}

// full is a whole snapshot of the app, no budget and no cut (it becomes the newest).
func (f *factory) full(t *testing.T) *agentv1.Snapshot {
	t.Helper()
	return f.snap(t, &agentv1.SnapshotOptions{MaxFieldBytes: 65536})
}

func (f *factory) snap(t *testing.T, o *agentv1.SnapshotOptions) *agentv1.Snapshot {
	t.Helper()
	r, err := f.a11y.SnapshotApp(ctxT(t, 30*time.Second), &agentv1.SnapshotAppRequest{AppId: f.id, Options: o})
	if err != nil {
		t.Fatalf("SnapshotApp %v: %v", o, err)
	}
	return r.GetSnapshot()
}

// line is what a test compares of an element across snapshots.
func line(el *agentv1.Element) string {
	return fmt.Sprintf("%s %s %q depth %d parent %s", el.GetRef(), el.GetRole(), el.GetName(), el.GetDepth(), el.GetParentRef())
}

// pages reads every page of a snapshot with options o, checking each against the budget by its encoded size.
func (f *factory) pages(t *testing.T, o *agentv1.SnapshotOptions, budget int) []*agentv1.Snapshot {
	t.Helper()
	first := f.snap(t, o)
	out := []*agentv1.Snapshot{first}
	for s := first; s.GetNextCursor() != ""; {
		next := &agentv1.SnapshotOptions{Cursor: s.GetNextCursor(), MaxBytes: o.GetMaxBytes(), MaxTokens: o.GetMaxTokens(), TextOnly: o.GetTextOnly()}
		s = f.snap(t, next)
		if s.GetSnapshotId() != first.GetSnapshotId() {
			t.Fatalf("page %d has snapshot id %s, want the first page's %s", len(out), s.GetSnapshotId(), first.GetSnapshotId())
		}
		out = append(out, s)
		if len(out) > 1000 {
			t.Fatal("more than 1000 pages")
		}
	}
	for i, s := range out {
		if n := proto.Size(s); n > budget {
			t.Errorf("page %d is %d bytes encoded, over the budget of %d", i, n, budget)
		}
	}
	return out
}

// TestWidgetFactoryBudget pages gtk3-widget-factory's tree at 4 KiB: every page is within the budget (its
// encoded size, measured here), the pages together hold every element of a full snapshot exactly once and in
// order, the refs of a later page act (the app's check box toggles), and a token budget is a byte budget of
// four bytes a token.
func TestWidgetFactoryBudget(t *testing.T) {
	f := startFactory(t)
	full := f.full(t)
	var want []string
	for _, el := range full.GetElements() {
		want = append(want, line(el))
	}
	pages := f.pages(t, &agentv1.SnapshotOptions{MaxBytes: 4096, MaxFieldBytes: 65536}, 4096)
	var got []string
	var check *agentv1.Element
	for i, p := range pages {
		// total is 0 while later pages are still to be read, and exact once known (on the last page at least).
		last := i == len(pages)-1
		if int(p.GetOffset()) != len(got) || int(p.GetTotal()) != len(want) && (last || p.GetTotal() != 0) {
			t.Errorf("page %d: offset %d total %d, want %d and %d (or 0 before the last page)", i, p.GetOffset(), p.GetTotal(), len(got), len(want))
		}
		for _, el := range p.GetElements() {
			got = append(got, line(el))
			if el.GetRole() == "check box" && el.GetName() == "checkbutton" && slices.Contains(el.GetStates(), "sensitive") &&
				!slices.Contains(el.GetStates(), "indeterminate") && check == nil {
				check = el
			}
		}
	}
	if len(pages) < 5 {
		t.Errorf("%d pages for %d elements at 4 KiB", len(pages), len(want))
	}
	// Exactly once each, and every parent before its children; the order of subtrees may differ (a lazily read
	// page keeps Collection's document order, a whole snapshot's walk may move a popover under its parent).
	slices.Sort(want)
	seen := map[string]bool{"": true}
	for _, p := range pages {
		for _, el := range p.GetElements() {
			if !seen[el.GetParentRef()] {
				t.Errorf("%s comes before its parent %s", el.GetRef(), el.GetParentRef())
			}
			seen[el.GetRef()] = true
		}
	}
	slices.Sort(got)
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("the pages' elements differ from a full snapshot's (-full +pages):\n%s", d)
	}
	if check == nil {
		t.Fatal("no check box checkbutton on any page")
	}
	t.Logf("%d elements in %d pages of at most 4096 bytes; full snapshot %d bytes", len(want), len(pages), proto.Size(full))

	// The ref of a later page acts: the check box toggles, as a new snapshot of the app shows.
	sid := pages[0].GetSnapshotId()
	wasChecked := slices.Contains(check.GetStates(), "checked")
	actc := agentv1.NewActServiceClient(f.conn)
	if _, err := actc.Act(ctxT(t, 10*time.Second), &agentv1.ActRequest{Owner: "budget", Action: &agentv1.ActRequest_ElementClick{
		ElementClick: &agentv1.ElementClick{Element: &agentv1.ElementRef{SnapshotId: sid, Ref: check.GetRef()}}}}); err != nil {
		t.Fatalf("element_click with ref %s of a later page: %v", check.GetRef(), err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		s := f.snap(t, &agentv1.SnapshotOptions{Find: &agentv1.ElementFind{Role: "check box", Name: "checkbutton"}})
		i := slices.IndexFunc(s.GetElements(), func(el *agentv1.Element) bool { return proto.Equal(el.GetBounds(), check.GetBounds()) })
		if i >= 0 && slices.Contains(s.GetElements()[i].GetStates(), "checked") != wasChecked {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the check box did not toggle: %v", s.GetElements())
		}
		time.Sleep(50 * time.Millisecond)
	}

	// A token budget: 1024 tokens are 4096 bytes.
	tok := f.pages(t, &agentv1.SnapshotOptions{MaxTokens: 1024}, 4096)
	if len(tok) < 5 {
		t.Errorf("%d pages at 1024 tokens", len(tok))
	}
}

// TestWidgetFactoryFindSubtreeText checks find, subtree, text-only and the cut marker against a full snapshot of
// gtk3-widget-factory and the widgets it is known to show.
func TestWidgetFactoryFindSubtreeText(t *testing.T) {
	f := startFactory(t)
	full := f.full(t)
	names := func(els []*agentv1.Element) []string {
		var out []string
		for _, el := range els {
			out = append(out, el.GetRole()+" "+el.GetName())
		}
		return out
	}
	filter := func(keep func(*agentv1.Element) bool) []string {
		var out []*agentv1.Element
		for _, el := range full.GetElements() {
			if keep(el) {
				out = append(out, el)
			}
		}
		return names(out)
	}

	t.Run("find", func(t *testing.T) {
		pageRe := regexp.MustCompile(`^Page \d$`)
		cases := []struct {
			name string
			find *agentv1.ElementFind
			want []string
			must []string // known widgets among them
		}{
			{"role", &agentv1.ElementFind{Role: "Check Box"}, filter(func(el *agentv1.Element) bool { return el.GetRole() == "check box" }),
				[]string{"check box Dark Theme", "check box checkbutton"}},
			{"name", &agentv1.ElementFind{Name: "DUCK"}, filter(func(el *agentv1.Element) bool { return strings.Contains(strings.ToLower(el.GetName()), "duck") }),
				[]string{"menu item Donald Duck"}},
			{"regex", &agentv1.ElementFind{NameRegex: `^Page \d$`, Role: "radio button"}, filter(func(el *agentv1.Element) bool {
				return el.GetRole() == "radio button" && pageRe.MatchString(el.GetName())
			}), []string{"radio button Page 1"}},
			{"states", &agentv1.ElementFind{States: []string{"checked"}, Role: "radio button"}, filter(func(el *agentv1.Element) bool {
				return el.GetRole() == "radio button" && slices.Contains(el.GetStates(), "checked")
			}), nil},
		}
		for _, c := range cases {
			s := f.snap(t, &agentv1.SnapshotOptions{Find: c.find, MaxFieldBytes: 65536})
			if d := cmp.Diff(c.want, names(s.GetElements())); d != "" || len(c.want) == 0 {
				t.Errorf("%s: find %v (-want +got):\n%s", c.name, c.find, d)
			}
			for _, m := range c.must {
				if !slices.Contains(names(s.GetElements()), m) {
					t.Errorf("%s: no %q among %v", c.name, m, names(s.GetElements()))
				}
			}
			for _, el := range s.GetElements() {
				if el.GetDepth() != 0 || el.GetParentRef() != "" {
					t.Errorf("%s: match %s has depth %d parent %q, want a flat list", c.name, el.GetRef(), el.GetDepth(), el.GetParentRef())
				}
			}
			if !s.GetComplete() {
				t.Errorf("%s: incomplete: %s", c.name, s.GetIncompleteReason())
			}
		}
		s := f.snap(t, &agentv1.SnapshotOptions{Find: &agentv1.ElementFind{Role: "check box", Limit: 2}})
		if len(s.GetElements()) != 2 || s.GetComplete() || !strings.Contains(s.GetIncompleteReason(), "find limit 2") {
			t.Errorf("find with limit 2: %d elements, complete %v (%s)", len(s.GetElements()), s.GetComplete(), s.GetIncompleteReason())
		}
	})

	t.Run("subtree", func(t *testing.T) {
		full := f.full(t)
		byRef := map[string]*agentv1.Element{}
		for _, el := range full.GetElements() {
			byRef[el.GetRef()] = el
		}
		var check *agentv1.Element
		for _, el := range full.GetElements() {
			if el.GetRole() == "check box" && el.GetName() == "checkbutton" {
				check = el
			}
		}
		if check == nil {
			t.Fatal("no check box checkbutton")
		}
		root := byRef[check.GetParentRef()] // the box of the check boxes
		var want []string
		in := map[string]bool{root.GetRef(): true}
		for _, el := range full.GetElements() {
			if el == root || in[el.GetParentRef()] {
				in[el.GetRef()] = true
				want = append(want, fmt.Sprintf("%s %q %d", el.GetRole(), el.GetName(), el.GetDepth()-root.GetDepth()))
			}
		}
		s := f.snap(t, &agentv1.SnapshotOptions{Subtree: &agentv1.ElementRef{SnapshotId: full.GetSnapshotId(), Ref: root.GetRef()}, MaxFieldBytes: 65536})
		var got []string
		for _, el := range s.GetElements() {
			got = append(got, fmt.Sprintf("%s %q %d", el.GetRole(), el.GetName(), el.GetDepth()))
		}
		if d := cmp.Diff(want, got); d != "" || len(want) < 3 {
			t.Errorf("subtree of %s %s (-full's descendants +subtree):\n%s", root.GetRef(), root.GetRole(), d)
		}
	})

	t.Run("text_only", func(t *testing.T) {
		full := f.full(t)
		pages := f.pages(t, &agentv1.SnapshotOptions{MaxBytes: 4096, TextOnly: true}, 4096)
		var text strings.Builder
		for _, p := range pages {
			if len(p.GetElements()) != 0 {
				t.Errorf("text_only page has %d elements", len(p.GetElements()))
			}
			text.WriteString(p.GetText())
		}
		for _, el := range full.GetElements() {
			if !strings.Contains(text.String(), "["+el.GetRef()+"] "+el.GetRole()) {
				t.Errorf("no line for %s %s in the text-only pages", el.GetRef(), el.GetRole())
			}
		}
		if n := strings.Count(text.String(), "\n"); n != len(full.GetElements()) {
			t.Errorf("text-only pages have %d lines, want %d", n, len(full.GetElements()))
		}
	})

	t.Run("cut", func(t *testing.T) {
		full := f.full(t)
		s := f.snap(t, &agentv1.SnapshotOptions{MaxFieldBytes: 16})
		if len(s.GetElements()) != len(full.GetElements()) {
			t.Fatalf("%d elements cut, %d full", len(s.GetElements()), len(full.GetElements()))
		}
		cut := 0
		for i, el := range s.GetElements() {
			name := full.GetElements()[i].GetName()
			want := name
			if len(name) > 16 {
				k := 16
				for !utf8.RuneStart(name[k]) {
					k--
				}
				want = fmt.Sprintf("%s…[+%d bytes]", name[:k], len(name)-k)
				cut++
			}
			if el.GetName() != want {
				t.Errorf("%s: name %q, want %q", el.GetRef(), el.GetName(), want)
			}
		}
		if cut == 0 {
			t.Error("no name longer than 16 bytes to cut")
		}
	})
}
