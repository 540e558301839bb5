package errgrpc

import "strings"

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
)

// Untrusted is the metadata key for guest text named name ("untrusted_element_name").
func Untrusted(name string) string { return UntrustedPrefix + name }

// IsUntrusted reports whether a metadata key holds guest text.
func IsUntrusted(key string) bool { return strings.HasPrefix(key, UntrustedPrefix) }
