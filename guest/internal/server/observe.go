package server

import (
	"context"
	"fmt"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// observeService serves ObserveService over the Screen and Windows backends.
type observeService struct {
	agentv1.UnimplementedObserveServiceServer
	s *Services
}

func newObserveService(s *Services) *observeService { return &observeService{s: s} }

// CaptureScreenshot validates the options (statically, then against the displays) and captures one frame.
func (o *observeService) CaptureScreenshot(ctx context.Context, r *agentv1.CaptureScreenshotRequest) (*agentv1.CaptureScreenshotResponse, error) {
	if err := validate.CaptureScreenshot(r); err != nil {
		return nil, err
	}
	scr, err := o.screen()
	if err != nil {
		return nil, err
	}
	if err := checkAgainstDisplays(scr.Displays(), r.GetOptions()); err != nil {
		return nil, err
	}
	img, unchanged, seq, err := scr.Capture(ctx, r.GetOptions())
	if err != nil {
		return nil, err
	}
	return &agentv1.CaptureScreenshotResponse{Image: img, Unchanged: unchanged, FrameSeq: seq}, nil
}

// GetCursorPosition returns the pointer position and the window under it.
func (o *observeService) GetCursorPosition(ctx context.Context, _ *agentv1.GetCursorPositionRequest) (*agentv1.GetCursorPositionResponse, error) {
	scr, err := o.screen()
	if err != nil {
		return nil, err
	}
	return scr.Cursor(ctx)
}

// ListWindows lists the client windows, bottom of the stack first.
func (o *observeService) ListWindows(ctx context.Context, r *agentv1.ListWindowsRequest) (*agentv1.ListWindowsResponse, error) {
	if err := validate.ListWindows(r); err != nil {
		return nil, err
	}
	if o.s.b().Windows == nil {
		return nil, fmt.Errorf("windows: no X display connection: %w", errdefs.ErrCapabilityUnavailable)
	}
	ws, err := o.s.b().Windows.List(ctx, r.GetIncludeUnmapped())
	if err != nil {
		return nil, err
	}
	return &agentv1.ListWindowsResponse{Windows: ws}, nil
}

// WatchScreen sends the first frame at once, then a frame each time the screen changed, at most max_fps per
// second, until the client cancels.
func (o *observeService) WatchScreen(r *agentv1.WatchScreenRequest, stream agentv1.ObserveService_WatchScreenServer) error {
	if err := validate.WatchScreen(r); err != nil {
		return err
	}
	scr, err := o.screen()
	if err != nil {
		return err
	}
	if err := checkAgainstDisplays(scr.Displays(), r.GetOptions()); err != nil {
		return err
	}
	fps := r.GetMaxFps()
	if fps == 0 {
		fps = validate.DefaultWatchFPS
	}
	interval := time.Second / time.Duration(fps)
	if r.GetTiles() || r.GetCursor() {
		return o.watchTiles(r, scr, interval, stream)
	}
	ctx := stream.Context()
	var last uint64
	for first := true; ; first = false {
		if !first {
			seq, err := scr.WaitChange(ctx, last)
			if err != nil {
				return ctxErr(ctx, err)
			}
			last = seq
		}
		sent := time.Now()
		img, unchanged, seq, err := scr.Capture(ctx, r.GetOptions())
		if err != nil {
			return ctxErr(ctx, err)
		}
		last = seq
		// A change that only damaged and repaired the same pixels can leave the frame identical to the one
		// already sent; only the first frame is sent regardless.
		if first || !unchanged {
			if err := stream.Send(&agentv1.WatchScreenResponse{Image: img, FrameSeq: seq, CapturedAtUs: sent.UnixMicro()}); err != nil {
				return ctxErr(ctx, err)
			}
		}
		// Rate bound: no frame before the interval has passed, changes meanwhile are coalesced.
		if wait := time.Until(sent.Add(interval)); wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return nil
			}
		}
	}
}

// ctxErr ends a stream quietly when the client went away and reports other errors.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func (o *observeService) screen() (Screen, error) {
	if o.s.b().Screen == nil {
		return nil, fmt.Errorf("screen: no X display connection: %w", errdefs.ErrCapabilityUnavailable)
	}
	return o.s.b().Screen, nil
}

// checkAgainstDisplays checks the options' display and region against the live displays: an unknown display
// id or a region outside the display (or the whole screen) is a bad request naming the field.
func checkAgainstDisplays(displays []*agentv1.Display, opts *agentv1.ScreenshotOptions) error {
	var v errdefs.Violations
	var bounds *agentv1.Rect
	if id := opts.GetDisplayId(); id != "" {
		for _, d := range displays {
			if d.GetId() == id {
				bounds = d.GetBounds()
			}
		}
		if bounds == nil {
			v.Addf("options.display_id", "unknown display %q (see GetInfo)", id)
			return v.Err()
		}
	} else {
		bounds = screenBounds(displays)
	}
	if r := opts.GetRegion(); r != nil && bounds != nil {
		if r.X < bounds.X || r.Y < bounds.Y || int64(r.X)+int64(r.Width) > int64(bounds.X)+int64(bounds.Width) ||
			int64(r.Y)+int64(r.Height) > int64(bounds.Y)+int64(bounds.Height) {
			v.Addf("options.region", "%dx%d+%d+%d is outside the display %dx%d+%d+%d", r.Width, r.Height, r.X, r.Y,
				bounds.Width, bounds.Height, bounds.X, bounds.Y)
		}
	}
	return v.Err()
}

// screenBounds is the bounding box of every display: the X screen.
func screenBounds(displays []*agentv1.Display) *agentv1.Rect {
	if len(displays) == 0 {
		return nil
	}
	var x0, y0, x1, y1 int32
	for i, d := range displays {
		b := d.GetBounds()
		if i == 0 || b.X < x0 {
			x0 = b.X
		}
		if i == 0 || b.Y < y0 {
			y0 = b.Y
		}
		if i == 0 || b.X+b.Width > x1 {
			x1 = b.X + b.Width
		}
		if i == 0 || b.Y+b.Height > y1 {
			y1 = b.Y + b.Height
		}
	}
	return &agentv1.Rect{X: x0, Y: y0, Width: x1 - x0, Height: y1 - y0}
}
