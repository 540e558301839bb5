package recording

import (
	"testing"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// TestResolve: an element is found by role, name and path, never by its old ref: the same place is done, a
// moved one (another path) is resolved differently, a renamed one is not found even when its old ref still
// exists.
func TestResolve(t *testing.T) {
	saved := &Element{Role: "push button", Name: "Save", Ref: "e4",
		Path: []PathStep{{Role: "frame", Name: "Editor"}, {Role: "tool bar"}}}
	tree := func(toolbarRole, name string) []*agentv1.Element {
		return []*agentv1.Element{
			{Ref: "e1", Role: "frame", Name: "Editor"},
			{Ref: "e2", Role: toolbarRole, ParentRef: "e1"},
			{Ref: "e3", Role: "push button", Name: "Open", ParentRef: "e2"},
			{Ref: "e9", Role: "push button", Name: name, ParentRef: "e2"},
			{Ref: "e4", Role: "push button", Name: "Quit", ParentRef: "e1"},
		}
	}
	for _, c := range []struct {
		name            string
		elems           []*agentv1.Element
		wantRef, status string
	}{
		{"same place, new ref", tree("tool bar", "Save"), "e9", StatusDone},
		{"moved into a panel", tree("panel", "Save"), "e9", StatusResolvedDifferently},
		{"renamed", tree("tool bar", "Save as"), "", StatusNotFound},
	} {
		ref, status := Resolve(saved, c.elems)
		if ref != c.wantRef || status != c.status {
			t.Errorf("%s: %q %s, want %q %s", c.name, ref, status, c.wantRef, c.status)
		}
	}
}

// TestRequestRefusesHashedText: a step whose text is only length + HMAC is not replayed with a made-up text.
func TestRequestRefusesHashedText(t *testing.T) {
	st := Step{Index: 3, Action: "type", Request: []byte(`{"owner":"s-1","type":{"text":{"length":5,"hmac_sha256":"ab"}}}`)}
	if _, err := Request(st); err == nil {
		t.Fatal("a hashed text was replayed")
	}
	st.RequestText = []byte(`{"owner":"s-1","target":{"window":{"windowId":7}},"type":{"text":"hello"}}`)
	r, err := Request(st)
	if err != nil || r.GetType().GetText() != "hello" || r.GetOwner() != "" || r.GetTarget() != nil {
		t.Fatalf("request %v, %v; want the kept text without owner and target", r, err)
	}
}
