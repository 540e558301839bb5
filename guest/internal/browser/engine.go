package browser

import agentv1 "glovebox.dev/proto/glovebox/agent/v1"

// What the WebDriver BiDi backend (guest/internal/bidi) shares with this one, so both engines follow one rule
// each: the page functions (js.go, snapshotpage.go) run in either engine's page, the snapshot is walked through
// the frames and built from their answers by Walk and Assemble (framewalk.go, snapbuild.go) and its refs kept in
// Refs (refs.go), a page function's {err, detail} maps to one error class, a fill is read back by one rule,
// and Extract's console answer is cut by one rule (ConsoleTail).

// PageScripts are the page functions of js.go and snapshotpage.go, by name. Each is a JavaScript function
// expression; see its constant for its arguments, this and answer.
type PageScripts struct {
	Query, Point, FocusField, Value, SetValue, SelectText, Paste, Scroll, Visible, Snapshot, Ref string
	// FramePoint maps a point of a frame's viewport to its iframe element's document (jsFramePoint); Rendered
	// (an expression) waits for the page to render twice (jsFrames); MarkSubtree and FindSubtree find a subtree
	// snapshot's root again (jsMarkSubtree, jsFindSubtree).
	FramePoint, Rendered, MarkSubtree, FindSubtree string
}

// Scripts are the page functions both engines run.
var Scripts = PageScripts{
	Query: jsQuery, Point: jsPoint, FocusField: jsFocusField, Value: jsValue, SetValue: jsSetValue,
	SelectText: jsSelectText, Paste: jsPaste, Scroll: jsScroll, Visible: jsVisible, Snapshot: jsSnapshot, Ref: jsRef,
	FramePoint: jsFramePoint, Rendered: jsFrames, MarkSubtree: jsMarkSubtree, FindSubtree: jsFindSubtree,
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

// CutUTF8 cuts s to at most n bytes on a rune boundary.
func CutUTF8(s string, n int) string { return cutUTF8(s, n) }

// ConsoleTail is the newest of a tab's console messages (oldest first) whose text and level fit in limit bytes,
// and whether older ones were left out: what Extract of the console answers on both engines.
func ConsoleTail(msgs []*agentv1.ConsoleMessage, limit int) ([]*agentv1.ConsoleMessage, bool) {
	total := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		total += len(msgs[i].GetText()) + len(msgs[i].GetLevel())
		if total > limit {
			return msgs[i+1:], true
		}
	}
	return msgs, false
}
