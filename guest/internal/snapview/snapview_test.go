package snapview

import (
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

func TestCut(t *testing.T) {
	cases := []struct {
		s    string
		max  int
		want string
	}{
		{"short", 16, "short"},
		{"abcdefghij", 4, "abcd…[+6 bytes]"},
		{"héllo", 2, "h…[+5 bytes]"}, // never inside é
		{"日本語", 4, "日…[+6 bytes]"},
	}
	for _, c := range cases {
		if got := Cut(c.s, c.max); got != c.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", c.s, c.max, got, c.want)
		}
	}
	if got := CutRunes("日本語です", 2); got != "日本…[+9 bytes]" {
		t.Errorf("CutRunes = %q", got)
	}
}

func render(b *strings.Builder, el *agentv1.Element) {
	b.WriteString("[" + el.Ref + "] " + el.Role + " " + strconv.Quote(el.Name) + "\n")
}

// TestPageBudget fills pages within a budget, checked by the encoded size; the first element of a page goes in
// even when it is huge, cut until it fits; next_cursor is set while elements are left.
func TestPageBudget(t *testing.T) {
	for _, v := range []View{{Budget: 2048, FieldBytes: 4096}, {Budget: 2048, FieldBytes: 4096, TextOnly: true}, {Budget: 5000, FieldBytes: 64, OmitText: true}} {
		var els []*agentv1.Element
		els = append(els, &agentv1.Element{Ref: "e1", Role: "text", Name: strings.Repeat("x", 100000), Text: strings.Repeat("y", 100000)})
		for i := 2; i < 200; i++ {
			els = append(els, &agentv1.Element{Ref: "e" + strconv.Itoa(i), Role: "push button", Name: "Button " + strconv.Itoa(i),
				States: []string{"focusable", "showing"}, Bounds: &agentv1.Rect{X: 1, Y: 2, Width: 3, Height: 4}})
		}
		seen := 0
		for offset, pages := 0, 0; offset < len(els); pages++ {
			out := &agentv1.Snapshot{SnapshotId: "as-x-1", Target: &agentv1.Target{SnapshotId: "as-x-1"}, Generation: 1 << 60}
			p := NewPage(out, v, render)
			next := offset
			for next < len(els) && p.Add(els[next]) {
				next++
			}
			p.Finish(offset, next, len(els), next < len(els), []string{strings.Repeat("r", 2000)})
			out.TookUs = 1 << 62
			if n := proto.Size(out); n > v.Budget {
				t.Fatalf("%+v page %d: %d bytes, over %d", v, pages, n, v.Budget)
			}
			if next == offset {
				t.Fatalf("%+v page %d holds nothing", v, pages)
			}
			if (out.NextCursor != "") != (next < len(els)) {
				t.Errorf("%+v page %d: cursor %q with %d left", v, pages, out.NextCursor, len(els)-next)
			}
			seen += next - offset
			offset = next
		}
		if seen != len(els) {
			t.Errorf("%+v: %d elements over the pages, want %d", v, seen, len(els))
		}
	}
}
