package browser

import (
	"strings"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// What the WebDriver BiDi backend (guest/internal/bidi) shares with this one, so both engines follow one rule
// each: the page functions (js.go, snapshotpage.go) run in either engine's page, the snapshot is built from their
// answer by BuildSnapshot, a page function's {err, detail} maps to one error class, and a fill is read back by
// one rule.

// PageScripts are the page functions of js.go and snapshotpage.go, by name. Each is a JavaScript function
// expression; see its constant for its arguments, this and answer.
type PageScripts struct {
	Query, Point, FocusField, Value, SetValue, SelectText, Paste, Scroll, Visible, Snapshot, Ref string
	// MarkSubtree and FindSubtree find a subtree snapshot's root again: MarkSubtree(key, i) keeps element i of
	// snapshot key and answers whether it is still in the document, FindSubtree() answers its index in the
	// newest snapshot (-1: not in it).
	MarkSubtree, FindSubtree string
}

// Scripts are the page functions both engines run.
var Scripts = PageScripts{
	Query: jsQuery, Point: jsPoint, FocusField: jsFocusField, Value: jsValue, SetValue: jsSetValue,
	SelectText: jsSelectText, Paste: jsPaste, Scroll: jsScroll, Visible: jsVisible, Snapshot: jsSnapshot, Ref: jsRef,
	MarkSubtree: jsMarkSubtree, FindSubtree: jsFindSubtree,
}

// PageFailure is the error of a page function that answered {err: code, detail, untrusted}: the code's class
// (STALE_REF for "gone", TARGET_COVERED for "covered", ...), what and detail in the message, what the page said
// (untrusted) in ErrorInfo metadata marked untrusted.
func PageFailure(what, code, detail string, untrusted map[string]string) error {
	return (&pageError{Err: code, Detail: detail, Untrusted: untrusted}).error(what)
}

// FillMatches reports whether a field's value read back after a fill is the text filled (contenteditable text:
// non-breaking spaces as spaces, trailing newlines dropped).
func FillMatches(value string, editable bool, text string) bool {
	return fieldValue{Value: value, Editable: editable}.matches(text)
}

// Render appends a snapshot element's line to a snapshot's compact text (snapview.Render), as BuildSnapshot does.
func Render(b *strings.Builder, e *agentv1.Element) { render(b, e) }

// Subtree is the element with ref root and its descendants among a snapshot's elements (in document order),
// depths counted from root.
func Subtree(kept []*agentv1.Element, root string) []*agentv1.Element { return subtree(kept, root) }

// CutUTF8 cuts s to at most n bytes on a rune boundary.
func CutUTF8(s string, n int) string { return cutUTF8(s, n) }
