package errgrpc

import (
	"strings"
	"unicode/utf8"
)

// ErrorInfo.metadata keys and values every Glovebox server uses. Callers branch on them like on the reason.
const (
	// MetaCause says which of a reason's causes happened (for STALE_REF, SNAPSHOT_SUPERSEDED,
	// GENERATION_CHANGED and NOT_FOUND of a ref); one of the Cause values.
	MetaCause = "cause"
	// MetaField is the request field the error is about ("request.action.element_click.element.snapshot_id").
	MetaField = "field"
	// UntrustedPrefix starts every metadata key whose value is text from the guest (an element's name, an
	// action name an application offers, a page's element id or class, a value read back from a page). Such
	// text is data, never instructions, and never appears in an error message.
	UntrustedPrefix = "untrusted_"
)

// Causes (MetaCause values).
const (
	// CauseGenerationChanged: the snapshot or target is from an older broker generation (control changed
	// hands or the agent restarted).
	CauseGenerationChanged = "generation_changed"
	// CauseSnapshotUnknown: the broker never handed the snapshot out in this generation (taken before a broker
	// restart, or forgotten among too many).
	CauseSnapshotUnknown = "snapshot_unknown"
	// CauseNavigated: the tab navigated, reloaded or went through history since the snapshot.
	CauseNavigated = "navigated"
	// CauseSuperseded: a newer snapshot of the same target exists.
	CauseSuperseded = "superseded"
	// CauseGone: the element the ref named no longer exists.
	CauseGone = "gone"
	// CauseRoleChanged and CauseNameChanged: an element is at the ref's place, with another role or name.
	CauseRoleChanged = "role_changed"
	CauseNameChanged = "name_changed"
	// CauseNoSuchRef: the snapshot exists but never had this ref (NOT_FOUND, not STALE_REF).
	CauseNoSuchRef = "no_such_ref"
	// CauseNoSuchSnapshot: no snapshot with this id was ever taken by this agent (NOT_FOUND).
	CauseNoSuchSnapshot = "no_such_snapshot"
	// CauseAgentRestarted: the snapshot was taken by an earlier agent process (GENERATION_CHANGED).
	CauseAgentRestarted = "agent_restarted"
	// CauseOtherTarget: the ref's snapshot is of another app, window or tab than the request's target.
	CauseOtherTarget = "other_target"
	// CauseNotShowing: the element is no longer showing.
	CauseNotShowing = "not_showing"
	// CauseActionsChanged: the element no longer offers the action the snapshot listed.
	CauseActionsChanged = "actions_changed"
	// CauseClosed: the tab closed (TARGET_GONE).
	CauseClosed = "closed"
	// CauseCrashed: the tab's page crashed, its renderer or content process gone (TARGET_GONE); navigate or
	// reload brings the tab back.
	CauseCrashed = "crashed"
)

// MaxUntrustedBytes bounds one untrusted metadata value; a longer one is cut at a rune boundary and ends
// with "…".
const MaxUntrustedBytes = 4096

// WithCause returns err carrying MetaCause cause and the key / value pairs kv in its ErrorInfo.metadata.
func WithCause(err error, cause string, kv ...string) error {
	md := map[string]string{MetaCause: cause}
	for i := 0; i+1 < len(kv); i += 2 {
		md[kv[i]] = kv[i+1]
	}
	return WithMetadata(err, md)
}

// UntrustedValue is guest text s as an untrusted metadata value: valid UTF-8, at most MaxUntrustedBytes.
func UntrustedValue(s string) string {
	s = validUTF8(s)
	if len(s) <= MaxUntrustedBytes {
		return s
	}
	cut := MaxUntrustedBytes - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Untrusted is the metadata key for guest text named name ("untrusted_element_name").
func Untrusted(name string) string { return UntrustedPrefix + name }

// IsUntrusted reports whether a metadata key holds guest text.
func IsUntrusted(key string) bool { return strings.HasPrefix(key, UntrustedPrefix) }
