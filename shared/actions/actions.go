// Package actions classifies the action of an agentv1.ActRequest: which backend serves it (the desktop's
// input, accessibility, the browser) and which element or tab it names. It is the one place the agent, the
// broker and validation ask, so they cannot disagree about an action. The rule follows the contract: an
// element action's message has an `element` field (ElementRef), a page action's a `tab` field (TabRef), and
// new_tab names only its browser.
package actions

import (
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Kind says which backend serves an action.
type Kind int

const (
	// None: the request has no action.
	None Kind = iota
	// Desktop actions go to X input (pointer, keyboard, wait, release_all).
	Desktop
	// Element actions (element_*) go to the accessibility backend.
	Element
	// Page actions (navigate, page_click, fill, ...) go to the browser backend.
	Page
)

const (
	elementRefName = "glovebox.agent.v1.ElementRef"
	tabRefName     = "glovebox.agent.v1.TabRef"
)

// action returns the set member of r's action oneof and its message, or nil.
func action(r *agentv1.ActRequest) (protoreflect.FieldDescriptor, protoreflect.Message) {
	m := r.ProtoReflect()
	fd := m.WhichOneof(m.Descriptor().Oneofs().ByName("action"))
	if fd == nil || fd.Message() == nil {
		return nil, nil
	}
	return fd, m.Get(fd).Message()
}

// field returns the action message's field name if it is a message of type want.
func field(msg protoreflect.Message, name protoreflect.Name, want protoreflect.FullName) protoreflect.FieldDescriptor {
	f := msg.Descriptor().Fields().ByName(name)
	if f == nil || f.Message() == nil || f.Message().FullName() != want {
		return nil
	}
	return f
}

// Of returns the kind of r's action.
func Of(r *agentv1.ActRequest) Kind {
	fd, msg := action(r)
	switch {
	case fd == nil:
		return None
	case field(msg, "element", elementRefName) != nil:
		return Element
	case field(msg, "tab", tabRefName) != nil, fd.Message().FullName() == "glovebox.agent.v1.NewTab":
		return Page
	}
	return Desktop
}

// Observes reports whether r's action is an observation although it travels as an Act: wait and wait_for change
// nothing, so they never hold a mutation queue and are allowed where mutations are not (while a human holds
// control, in observe-only sessions).
func Observes(r *agentv1.ActRequest) bool {
	switch r.GetAction().(type) {
	case *agentv1.ActRequest_Wait, *agentv1.ActRequest_WaitFor:
		return true
	}
	return false
}

// ElementOf returns the element an element action names (nil when unset or not an element action) and the
// action's field path ("action.element_click").
func ElementOf(r *agentv1.ActRequest) (*agentv1.ElementRef, string) {
	fd, msg := action(r)
	if fd == nil {
		return nil, ""
	}
	f := field(msg, "element", elementRefName)
	if f == nil {
		return nil, ""
	}
	path := "action." + string(fd.Name())
	if !msg.Has(f) {
		return nil, path
	}
	ref, _ := msg.Get(f).Message().Interface().(*agentv1.ElementRef)
	return ref, path
}

// TabOf returns the tab a page action names (nil when unset, for new_tab, or not a page action) and the
// action's field path ("action.navigate").
func TabOf(r *agentv1.ActRequest) (*agentv1.TabRef, string) {
	fd, msg := action(r)
	if fd == nil {
		return nil, ""
	}
	f := field(msg, "tab", tabRefName)
	if f == nil {
		return nil, ""
	}
	path := "action." + string(fd.Name())
	if !msg.Has(f) {
		return nil, path
	}
	ref, _ := msg.Get(f).Message().Interface().(*agentv1.TabRef)
	return ref, path
}

// SetTab sets the tab a page action names and reports whether r's action is one that names a tab (new_tab
// and non-page actions are left alone).
func SetTab(r *agentv1.ActRequest, tab *agentv1.TabRef) bool {
	fd, msg := action(r)
	if fd == nil {
		return false
	}
	f := field(msg, "tab", tabRefName)
	if f == nil {
		return false
	}
	r.ProtoReflect().Mutable(fd).Message().Set(f, protoreflect.ValueOfMessage(tab.ProtoReflect()))
	return true
}

// SnapshotRef is a snapshot id a request names, with the field that names it.
type SnapshotRef struct {
	// Field is the path of the ElementRef (or of target.snapshot_id) in the request.
	Field string
	ID    string
}

// SnapshotsOf returns every snapshot id r names: the element of an element action, the ref locators of a
// page action (page_drag has two), and target.snapshot_id; empty ids are left out. The broker binds each one
// to the generation it was handed out in.
func SnapshotsOf(r *agentv1.ActRequest) []SnapshotRef {
	var out []SnapshotRef
	if id := r.GetTarget().GetSnapshotId(); id != "" {
		out = append(out, SnapshotRef{Field: "target.snapshot_id", ID: id})
	}
	fd, msg := action(r)
	if fd == nil {
		return out
	}
	return appendRefs(out, "action."+string(fd.Name()), msg)
}

// appendRefs appends the snapshot ids of every ElementRef set in msg (a message of the action, walked down).
func appendRefs(out []SnapshotRef, path string, msg protoreflect.Message) []SnapshotRef {
	if msg.Descriptor().FullName() == elementRefName {
		if ref, _ := msg.Interface().(*agentv1.ElementRef); ref.GetSnapshotId() != "" {
			out = append(out, SnapshotRef{Field: path + ".snapshot_id", ID: ref.GetSnapshotId()})
		}
		return out
	}
	// In field order, so the first bad field named is the first in the message.
	fields := msg.Descriptor().Fields()
	for i := range fields.Len() {
		f := fields.Get(i)
		if f.Message() != nil && !f.IsList() && !f.IsMap() && msg.Has(f) {
			out = appendRefs(out, path+"."+string(f.Name()), msg.Get(f).Message())
		}
	}
	return out
}
