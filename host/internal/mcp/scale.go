package mcp

import (
	"fmt"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// Size is a width and height in pixels.
type Size struct {
	Width, Height int
}

// String is "WxH".
func (s Size) String() string { return fmt.Sprintf("%dx%d", s.Width, s.Height) }

// DefaultModelSize is the display size models are told about when none is configured: Anthropic's recommended
// computer-use resolution (WXGA), small enough that screenshots stay cheap in tokens.
var DefaultModelSize = Size{Width: 1280, Height: 800}

// Scaling maps between the guest's screen and the display the model sees. The model's image is the screen
// shrunk (never enlarged) to fit the configured model size with its aspect ratio kept, exactly as the agent's
// max_edge scaling sizes it, so the image the model gets is the model display, pixel for pixel.
type Scaling struct {
	// Screen is the guest's X screen.
	Screen Size
	// Model is the display the model sees (at most the configured size).
	Model Size
	// MaxEdge is the screenshot max_edge that produces Model (0: no scaling).
	MaxEdge int32
}

// NewScaling fits screen into limit.
func NewScaling(screen, limit Size) (Scaling, error) {
	if screen.Width <= 0 || screen.Height <= 0 {
		return Scaling{}, fmt.Errorf("screen size %v: %w", screen, errdefs.ErrUnavailable)
	}
	if screen.Width <= limit.Width && screen.Height <= limit.Height {
		return Scaling{Screen: screen, Model: screen}, nil
	}
	long := max(screen.Width, screen.Height)
	edge := long * limit.Width / screen.Width
	if e := long * limit.Height / screen.Height; e < edge {
		edge = e
	}
	for ; edge >= 16; edge-- {
		w, h := scaledSize(screen.Width, screen.Height, edge)
		if w <= limit.Width && h <= limit.Height {
			return Scaling{Screen: screen, Model: Size{w, h}, MaxEdge: int32(edge)}, nil
		}
	}
	return Scaling{}, fmt.Errorf("model size %v: too small for the screen %v: %w", limit, screen, errdefs.ErrInvalidArgument)
}

// scaledSize is the agent's screenshot scaling (guest/internal/x11/screen.scaledSize): the longer edge
// becomes maxEdge, the other is rounded to nearest.
func scaledSize(w, h, maxEdge int) (int, int) {
	long := max(w, h)
	if maxEdge <= 0 || long <= maxEdge {
		return w, h
	}
	scale := float64(maxEdge) / float64(long)
	return max(1, int(float64(w)*scale+0.5)), max(1, int(float64(h)*scale+0.5))
}

// ToScreen maps a model pixel to the screen pixel under its center: x' = floor((x + 1/2) * W / w). With no
// scaling it is the identity. The point must already be checked against Model.
func (s Scaling) ToScreen(x, y int) *agentv1.Point {
	return &agentv1.Point{
		X: int32((2*x + 1) * s.Screen.Width / (2 * s.Model.Width)),
		Y: int32((2*y + 1) * s.Screen.Height / (2 * s.Model.Height)),
	}
}

// ToModel maps a screen pixel to the model pixel that contains its center.
func (s Scaling) ToModel(p *agentv1.Point) [2]int {
	x, y := int(p.GetX()), int(p.GetY())
	return [2]int{
		min(s.Model.Width-1, max(0, (2*x+1)*s.Model.Width/(2*s.Screen.Width))),
		min(s.Model.Height-1, max(0, (2*y+1)*s.Model.Height/(2*s.Screen.Height))),
	}
}

// point checks that xy (a model coordinate named field) is a pair inside the model display and maps it to the
// screen; a bad one is recorded in v.
func (s Scaling) point(v *errdefs.Violations, field string, xy []int) *agentv1.Point {
	if len(xy) != 2 {
		v.Addf(field, "must be [x, y], got %d numbers", len(xy))
		return nil
	}
	ok := true
	if xy[0] < 0 || xy[0] >= s.Model.Width {
		v.Addf(field+"[0]", "must be 0..%d (the display is %v), got %d", s.Model.Width-1, s.Model, xy[0])
		ok = false
	}
	if xy[1] < 0 || xy[1] >= s.Model.Height {
		v.Addf(field+"[1]", "must be 0..%d (the display is %v), got %d", s.Model.Height-1, s.Model, xy[1])
		ok = false
	}
	if !ok {
		return nil
	}
	return s.ToScreen(xy[0], xy[1])
}

// rect maps a model region [x0, y0, x1, y1] (x1, y1 exclusive) to a screen rectangle.
func (s Scaling) rect(v *errdefs.Violations, field string, r []int) *agentv1.Rect {
	if len(r) != 4 {
		v.Addf(field, "must be [x0, y0, x1, y1], got %d numbers", len(r))
		return nil
	}
	n := v.Len()
	for i, max := range []int{s.Model.Width, s.Model.Height, s.Model.Width, s.Model.Height} {
		if r[i] < 0 || r[i] > max {
			v.Addf(fmt.Sprintf("%s[%d]", field, i), "must be 0..%d (the display is %v), got %d", max, s.Model, r[i])
		}
	}
	if v.Len() == n && (r[2] <= r[0] || r[3] <= r[1]) {
		v.Addf(field, "must have x1 > x0 and y1 > y0, got [%d, %d, %d, %d]", r[0], r[1], r[2], r[3])
	}
	if v.Len() != n {
		return nil
	}
	x0 := r[0] * s.Screen.Width / s.Model.Width
	y0 := r[1] * s.Screen.Height / s.Model.Height
	x1 := (r[2]*s.Screen.Width + s.Model.Width - 1) / s.Model.Width
	y1 := (r[3]*s.Screen.Height + s.Model.Height - 1) / s.Model.Height
	return &agentv1.Rect{X: int32(x0), Y: int32(y0), Width: int32(x1 - x0), Height: int32(y1 - y0)}
}
