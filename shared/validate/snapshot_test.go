package validate

import (
	"strings"
	"testing"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// TestSnapshotOptionsBudget checks the budget, cursor, subtree, find and text-only bounds: every bad field is
// named, good ones pass.
func TestSnapshotOptionsBudget(t *testing.T) {
	cursor := Cursor("as-1a2b-3", 27)
	cases := []struct {
		name string
		o    *agentv1.SnapshotOptions
		want []string // fields named, in order; nil: valid
	}{
		{"budgets", &agentv1.SnapshotOptions{MaxBytes: 4096, MaxTokens: 1024, MaxFieldBytes: 16, TextOnly: true}, nil},
		{"cursor", &agentv1.SnapshotOptions{Cursor: cursor, MaxBytes: 2048}, nil},
		{"find", &agentv1.SnapshotOptions{Find: &agentv1.ElementFind{Role: "push button", NameRegex: `^Page \d$`, States: []string{"checked"}, Limit: 1000}}, nil},
		{"subtree", &agentv1.SnapshotOptions{Subtree: &agentv1.ElementRef{SnapshotId: "as-1a2b-3", Ref: "e12"}}, nil},
		{"small budgets", &agentv1.SnapshotOptions{MaxBytes: 2047, MaxTokens: 511, MaxFieldBytes: 15},
			[]string{"options.max_bytes", "options.max_tokens", "options.max_field_bytes"}},
		{"large budgets", &agentv1.SnapshotOptions{MaxBytes: MaxSnapshotBytes + 1, MaxTokens: MaxSnapshotTokens + 1, MaxFieldBytes: MaxFieldBytes + 1},
			[]string{"options.max_bytes", "options.max_tokens", "options.max_field_bytes"}},
		{"text both ways", &agentv1.SnapshotOptions{TextOnly: true, OmitText: true}, []string{"options.text_only"}},
		{"bad cursor", &agentv1.SnapshotOptions{Cursor: "as-1:x"}, []string{"options.cursor"}},
		{"long cursor", &agentv1.SnapshotOptions{Cursor: strings.Repeat("a", 300) + ":1"}, []string{"options.cursor"}},
		{"cursor with scope", &agentv1.SnapshotOptions{Cursor: cursor, MaxNodes: 5, InteractiveOnly: true, Find: &agentv1.ElementFind{Role: "x"}},
			[]string{"options.max_nodes", "options.interactive_only", "options.find"}},
		{"empty find", &agentv1.SnapshotOptions{Find: &agentv1.ElementFind{Limit: 3}}, []string{"options.find"}},
		{"bad find", &agentv1.SnapshotOptions{Find: &agentv1.ElementFind{Name: "a", NameRegex: "((", Limit: 1001,
			States: []string{"", strings.Repeat("s", 33)}}},
			[]string{"options.find.name_regex", "options.find.name_regex", "options.find.states[0]", "options.find.states[1]", "options.find.limit"}},
		{"long find", &agentv1.SnapshotOptions{Find: &agentv1.ElementFind{Role: strings.Repeat("r", 65), Name: strings.Repeat("n", 257)}},
			[]string{"options.find.role", "options.find.name"}},
		{"detached", &agentv1.SnapshotOptions{Detached: true, TextOnly: true, MaxBytes: 4096}, nil},
		{"detached page", &agentv1.SnapshotOptions{Detached: true, Cursor: cursor}, []string{"options.detached"}},
		{"detached subtree", &agentv1.SnapshotOptions{Detached: true, Subtree: &agentv1.ElementRef{SnapshotId: "as-1a2b-3", Ref: "e12"}}, []string{"options.detached"}},
		{"bad subtree", &agentv1.SnapshotOptions{Subtree: &agentv1.ElementRef{SnapshotId: "as 1"}}, []string{"options.subtree.snapshot_id", "options.subtree.ref"}},
	}
	for _, c := range cases {
		r := &agentv1.SnapshotAppRequest{AppId: "app:1", Options: c.o}
		var got []string
		for _, v := range violations(t, SnapshotApp(r)) {
			got = append(got, v.Field)
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s: fields %v, want %v", c.name, got, c.want)
		}
	}
}

// TestObserveRequest checks Observe's own rules and that its options are checked under their fields.
func TestObserveRequest(t *testing.T) {
	cases := []struct {
		r    *agentv1.ObserveRequest
		want string
	}{
		{&agentv1.ObserveRequest{}, ""},
		{&agentv1.ObserveRequest{Target: &agentv1.Target{Kind: &agentv1.Target_Tab{Tab: &agentv1.TabTarget{BrowserId: "chrome-9222", TabId: "ABC"}}},
			Snapshot: &agentv1.SnapshotOptions{MaxTokens: 1024}, Screenshot: &agentv1.ScreenshotOptions{MaxEdge: 640}}, ""},
		{&agentv1.ObserveRequest{Target: &agentv1.Target{Kind: &agentv1.Target_Display{Display: &agentv1.DisplayTarget{}}}}, "target.display"},
		{&agentv1.ObserveRequest{Target: &agentv1.Target{Kind: &agentv1.Target_Window{Window: &agentv1.WindowTarget{}}}}, "target.window.window_id"},
		{&agentv1.ObserveRequest{Snapshot: &agentv1.SnapshotOptions{MaxBytes: 1}, Screenshot: &agentv1.ScreenshotOptions{MaxEdge: 1}},
			"snapshot.max_bytes screenshot.max_edge"},
		{&agentv1.ObserveRequest{OmitSnapshot: true, Snapshot: &agentv1.SnapshotOptions{}, OmitScreenshot: true, Screenshot: &agentv1.ScreenshotOptions{}},
			"snapshot screenshot"},
	}
	for _, c := range cases {
		var got []string
		for _, v := range violations(t, Observe(c.r)) {
			got = append(got, v.Field)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%v: fields %v, want %q", c.r, got, c.want)
		}
	}
}
