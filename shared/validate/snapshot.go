package validate

import (
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
)

// SnapshotOptions checks o (nil is valid: all defaults) under field ("options").
func SnapshotOptions(v *errdefs.Violations, field string, o *agentv1.SnapshotOptions) {
	if o == nil {
		return
	}
	between(v, field+".max_nodes", o.GetMaxNodes(), 0, MaxSnapshotNodes)
	between(v, field+".max_depth", o.GetMaxDepth(), 0, MaxSnapshotDepth)
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
