package validate

import (
	"regexp"
	"strconv"
	"strings"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// Snapshot bounds; snapshot.proto states the same numbers.
const (
	// MaxSnapshotNodes bounds SnapshotOptions.max_nodes (0 means DefaultSnapshotNodes).
	MaxSnapshotNodes = 20000
	// DefaultSnapshotNodes is the element limit of a snapshot with max_nodes 0.
	DefaultSnapshotNodes = 5000
	// MaxSnapshotDepth bounds SnapshotOptions.max_depth (0: no limit).
	MaxSnapshotDepth = 256
	// MaxRefBytes bounds ElementRef.ref; refs are short ("e12").
	MaxRefBytes = 32
	// MaxMatchBytes bounds each part of a TextMatch.
	MaxMatchBytes = 65536

	// MinSnapshotBytes and MaxSnapshotBytes bound SnapshotOptions.max_bytes: below 2 KiB a page cannot hold its
	// own ids and one element; above 32 MiB it would not fit a message.
	MinSnapshotBytes = 2048
	MaxSnapshotBytes = 32 << 20
	// DefaultSnapshotBytes is the budget of max_bytes 0: under the 32 MiB message limit with room for the
	// response around it, so a huge tree is paged instead of failing.
	DefaultSnapshotBytes = 30 << 20
	// BytesPerToken is how SnapshotOptions.max_tokens turns into bytes.
	BytesPerToken = 4
	// MinSnapshotTokens and MaxSnapshotTokens bound SnapshotOptions.max_tokens (MinSnapshotBytes and
	// MaxSnapshotBytes in tokens).
	MinSnapshotTokens = MinSnapshotBytes / BytesPerToken
	MaxSnapshotTokens = MaxSnapshotBytes / BytesPerToken
	// MaxCursorBytes bounds SnapshotOptions.cursor.
	MaxCursorBytes = 256
	// MinFieldBytes, MaxFieldBytes and DefaultFieldBytes bound SnapshotOptions.max_field_bytes.
	MinFieldBytes     = 16
	MaxFieldBytes     = 65536
	DefaultFieldBytes = 4096
	// MaxFindRoleBytes, MaxFindNameBytes, MaxFindStates and MaxFindStateBytes bound an ElementFind.
	MaxFindRoleBytes  = 64
	MaxFindNameBytes  = 256
	MaxFindStates     = 16
	MaxFindStateBytes = 32
	// MaxFindLimit and DefaultFindLimit bound ElementFind.limit.
	MaxFindLimit     = 1000
	DefaultFindLimit = 50
)

// SnapshotBudget is the byte budget of o: the smaller of max_bytes and max_tokens in bytes, DefaultSnapshotBytes
// (or def when non-zero) when neither is set.
func SnapshotBudget(o *agentv1.SnapshotOptions, def int) int {
	n := int(o.GetMaxBytes())
	if t := int(o.GetMaxTokens()) * BytesPerToken; t > 0 && (n == 0 || t < n) {
		n = t
	}
	if n == 0 {
		n = def
	}
	if n == 0 {
		n = DefaultSnapshotBytes
	}
	return n
}

// SnapshotOptions checks o (nil is valid: all defaults) under field ("options").
func SnapshotOptions(v *errdefs.Violations, field string, o *agentv1.SnapshotOptions) {
	if o == nil {
		return
	}
	f := func(name string) string { return field + "." + name }
	between(v, f("max_nodes"), o.GetMaxNodes(), 0, MaxSnapshotNodes)
	between(v, f("max_depth"), o.GetMaxDepth(), 0, MaxSnapshotDepth)
	if n := o.GetMaxBytes(); n != 0 {
		between(v, f("max_bytes"), n, MinSnapshotBytes, MaxSnapshotBytes)
	}
	if n := o.GetMaxTokens(); n != 0 {
		between(v, f("max_tokens"), n, MinSnapshotTokens, MaxSnapshotTokens)
	}
	if n := o.GetMaxFieldBytes(); n != 0 {
		between(v, f("max_field_bytes"), n, MinFieldBytes, MaxFieldBytes)
	}
	if o.GetTextOnly() && o.GetOmitText() {
		v.Addf(f("text_only"), "cannot be combined with omit_text")
	}
	if c := o.GetCursor(); c != "" {
		if len(c) > MaxCursorBytes {
			v.Addf(f("cursor"), "must be at most %d bytes, got %d", MaxCursorBytes, len(c))
		} else if _, _, ok := ParseCursor(c); !ok {
			v.Addf(f("cursor"), "must be a next_cursor this agent gave out, got %s", quoted(c))
		}
		// The scope of a continued snapshot is the first call's.
		scope := []struct {
			name string
			set  bool
		}{{"max_nodes", o.GetMaxNodes() != 0}, {"max_depth", o.GetMaxDepth() != 0},
			{"interactive_only", o.GetInteractiveOnly()}, {"visible_only", o.GetVisibleOnly()},
			{"subtree", o.GetSubtree() != nil}, {"find", o.GetFind() != nil}}
		for _, s := range scope {
			if s.set {
				v.Addf(f(s.name), "must be unset with a cursor (the first page's scope applies)")
			}
		}
	}
	if o.GetSubtree() != nil {
		ElementRef(v, f("subtree"), o.GetSubtree())
	}
	if o.GetDetached() && (o.GetCursor() != "" || o.GetSubtree() != nil) {
		v.Addf(f("detached"), "cannot be combined with cursor or subtree (a detached snapshot is kept nowhere)")
	}
	if fd := o.GetFind(); fd != nil {
		find(v, f("find"), fd)
	}
}

// find checks an ElementFind: at least one criterion, bounded strings, a regex that compiles.
func find(v *errdefs.Violations, field string, fd *agentv1.ElementFind) {
	f := func(name string) string { return field + "." + name }
	if fd.GetRole() == "" && fd.GetName() == "" && fd.GetNameRegex() == "" && len(fd.GetStates()) == 0 {
		v.Addf(field, "must name at least one of role, name, name_regex, states")
	}
	utf8Bounded(v, f("role"), fd.GetRole(), MaxFindRoleBytes)
	utf8Bounded(v, f("name"), fd.GetName(), MaxFindNameBytes)
	utf8Bounded(v, f("name_regex"), fd.GetNameRegex(), MaxFindNameBytes)
	if fd.GetName() != "" && fd.GetNameRegex() != "" {
		v.Addf(f("name_regex"), "cannot be combined with name")
	}
	if re := fd.GetNameRegex(); re != "" && len(re) <= MaxFindNameBytes {
		if _, err := regexp.Compile(re); err != nil {
			v.Addf(f("name_regex"), "not an RE2 expression: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
	}
	if len(fd.GetStates()) > MaxFindStates {
		v.Addf(f("states"), "must have at most %d states, got %d", MaxFindStates, len(fd.GetStates()))
	} else {
		for i, s := range fd.GetStates() {
			if s == "" {
				v.Addf(f("states")+"["+strconv.Itoa(i)+"]", "must not be empty")
			}
			utf8Bounded(v, f("states")+"["+strconv.Itoa(i)+"]", s, MaxFindStateBytes)
		}
	}
	between(v, f("limit"), fd.GetLimit(), 0, MaxFindLimit)
}

// Cursor names the page after offset of snapshot id: "<snapshot_id>:<offset>".
func Cursor(id string, offset int) string { return id + ":" + strconv.Itoa(offset) }

// ParseCursor splits a cursor made by Cursor.
func ParseCursor(c string) (id string, offset int, ok bool) {
	i := strings.LastIndexByte(c, ':')
	if i <= 0 || i == len(c)-1 || len(c)-i > 9 {
		return "", 0, false
	}
	for _, ch := range c[i+1:] {
		if ch < '0' || ch > '9' {
			return "", 0, false
		}
		offset = offset*10 + int(ch-'0')
	}
	if !ValidID(c[:i]) {
		return "", 0, false
	}
	return c[:i], offset, true
}

// ElementRef checks a ref (required) under field: snapshot_id an id, ref 1..MaxRefBytes of id bytes.
func ElementRef(v *errdefs.Violations, field string, r *agentv1.ElementRef) {
	if r == nil {
		v.Addf(field, "required")
		return
	}
	id(v, field+".snapshot_id", r.GetSnapshotId(), true)
	switch ref := r.GetRef(); {
	case ref == "":
		v.Addf(field+".ref", "required")
	case len(ref) > MaxRefBytes:
		v.Addf(field+".ref", "must be at most %d bytes, got %d", MaxRefBytes, len(ref))
	default:
		id(v, field+".ref", ref, true)
	}
}

// TextMatch checks a prefix + text + suffix match under field: text required, each part valid UTF-8 and at most
// MaxMatchBytes.
func TextMatch(v *errdefs.Violations, field string, m *agentv1.TextMatch) {
	if m == nil {
		v.Addf(field, "required")
		return
	}
	if m.GetText() == "" {
		v.Addf(field+".text", "required")
	}
	for _, p := range []struct{ name, s string }{{"prefix", m.GetPrefix()}, {"text", m.GetText()}, {"suffix", m.GetSuffix()}} {
		utf8Bounded(v, field+"."+p.name, p.s, MaxMatchBytes)
	}
}

// utf8Bounded checks that s is valid UTF-8 and at most max bytes.
func utf8Bounded(v *errdefs.Violations, field, s string, max int) {
	if len(s) > max {
		v.Addf(field, "must be at most %d bytes, got %d", max, len(s))
		return
	}
	if i := invalidAt(s); i < len(s) {
		v.Addf(field, "invalid UTF-8 at byte %d", i)
	}
}
