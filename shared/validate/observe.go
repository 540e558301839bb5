package validate

import (
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// Screenshot bounds.
const (
	// MinMaxEdge and MaxMaxEdge bound ScreenshotOptions.max_edge (0 means no scaling): below 16 pixels an image
	// shows nothing, above 16384 it would be a scale-up of any real screen.
	MinMaxEdge = 16
	MaxMaxEdge = 16384
	// MaxDisplayIDBytes bounds ScreenshotOptions.display_id; real ids are "display-N".
	MaxDisplayIDBytes = 64
	// MaxWatchFPS bounds WatchScreenRequest.max_fps (0 means DefaultWatchFPS).
	MaxWatchFPS = 60
	// DefaultWatchFPS is the frame rate of a WatchScreen request with max_fps 0.
	DefaultWatchFPS = 5
	// MaxRegionEdge bounds each side of a region: the X protocol's 16-bit coordinates.
	MaxRegionEdge = 32767
)

// ScreenshotOptions checks o (nil is valid: all defaults) and records every bad field under field
// ("options"). Bounds that depend on the live desktop (a known display, a region inside it) are the agent's.
func ScreenshotOptions(v *errdefs.Violations, field string, o *agentv1.ScreenshotOptions) {
	if o == nil {
		return
	}
	f := func(name string) string { return field + "." + name }
	if len(o.GetDisplayId()) > MaxDisplayIDBytes {
		v.Addf(f("display_id"), "must be at most %d bytes, got %d", MaxDisplayIDBytes, len(o.GetDisplayId()))
	}
	if r := o.GetRegion(); r != nil {
		if r.GetX() < 0 || r.GetX() > MaxRegionEdge {
			v.Addf(f("region.x"), "must be 0..%d, got %d", MaxRegionEdge, r.GetX())
		}
		if r.GetY() < 0 || r.GetY() > MaxRegionEdge {
			v.Addf(f("region.y"), "must be 0..%d, got %d", MaxRegionEdge, r.GetY())
		}
		if r.GetWidth() <= 0 || r.GetWidth() > MaxRegionEdge {
			v.Addf(f("region.width"), "must be 1..%d, got %d", MaxRegionEdge, r.GetWidth())
		}
		if r.GetHeight() <= 0 || r.GetHeight() > MaxRegionEdge {
			v.Addf(f("region.height"), "must be 1..%d, got %d", MaxRegionEdge, r.GetHeight())
		}
	}
	format := o.GetFormat()
	switch format {
	case agentv1.ImageFormat_IMAGE_FORMAT_UNSPECIFIED, agentv1.ImageFormat_IMAGE_FORMAT_PNG:
		if o.GetQuality() != 0 {
			v.Addf(f("quality"), "must be 0 for PNG, got %d", o.GetQuality())
		}
	case agentv1.ImageFormat_IMAGE_FORMAT_JPEG:
		if q := o.GetQuality(); q < 0 || q > 100 {
			v.Addf(f("quality"), "must be 0..100, got %d", q)
		}
	default:
		v.Addf(f("format"), "unknown image format %d", int32(format))
	}
	if m := o.GetMaxEdge(); m != 0 && (m < MinMaxEdge || m > MaxMaxEdge) {
		v.Addf(f("max_edge"), "must be 0 or %d..%d, got %d", MinMaxEdge, MaxMaxEdge, m)
	}
}

// CaptureScreenshot checks r and returns a *errdefs.BadRequest naming each bad field, or nil.
func CaptureScreenshot(r *agentv1.CaptureScreenshotRequest) error {
	var v errdefs.Violations
	ScreenshotOptions(&v, "options", r.GetOptions())
	return v.Err()
}

// WatchScreen checks r and returns a *errdefs.BadRequest naming each bad field, or nil.
func WatchScreen(r *agentv1.WatchScreenRequest) error {
	var v errdefs.Violations
	ScreenshotOptions(&v, "options", r.GetOptions())
	if f := r.GetMaxFps(); f < 0 || f > MaxWatchFPS {
		v.Addf("max_fps", "must be 0..%d, got %d", MaxWatchFPS, f)
	}
	if o := r.GetOptions(); r.GetTiles() && (o.GetRegion() != nil || o.GetDisplayId() != "" || o.GetMaxEdge() != 0 || o.GetIncludeCursor()) {
		v.Addf("tiles", "tiles are of the whole screen at scale 1: options must name no region, display_id, max_edge or include_cursor")
	}
	return v.Err()
}

// ListWindows checks r; every ListWindowsRequest is valid.
func ListWindows(r *agentv1.ListWindowsRequest) error {
	var v errdefs.Violations
	return v.Err()
}

// DefaultObserveSnapshotBytes is the snapshot budget of an Observe with neither max_bytes nor max_tokens: a
// page a model reads in one step.
const DefaultObserveSnapshotBytes = 16384

// Observe checks r: a target that is not a display, the snapshot and screenshot options (under "snapshot" and
// "screenshot"), and no options for a part that is left out.
func Observe(r *agentv1.ObserveRequest) error {
	var v errdefs.Violations
	if _, ok := r.GetTarget().GetKind().(*agentv1.Target_Display); ok {
		v.Addf("target.display", "cannot be observed: name a window, an app or a tab, or none for the active window")
	} else {
		target(&v, "target", r.GetTarget())
	}
	SnapshotOptions(&v, "snapshot", r.GetSnapshot())
	ScreenshotOptions(&v, "screenshot", r.GetScreenshot())
	if r.GetOmitSnapshot() && r.GetSnapshot() != nil {
		v.Addf("snapshot", "must be unset with omit_snapshot")
	}
	if r.GetOmitScreenshot() && r.GetScreenshot() != nil {
		v.Addf("screenshot", "must be unset with omit_screenshot")
	}
	return v.Err()
}
