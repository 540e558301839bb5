package validate

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

func fields(err error) []string {
	var br *errdefs.BadRequest
	if !errors.As(err, &br) {
		return nil
	}
	var out []string
	for _, v := range br.Violations {
		out = append(out, v.Field+": "+v.Description)
	}
	return out
}

func TestScreenshotRequests(t *testing.T) {
	jpeg, png := agentv1.ImageFormat_IMAGE_FORMAT_JPEG, agentv1.ImageFormat_IMAGE_FORMAT_PNG
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"nil options", CaptureScreenshot(&agentv1.CaptureScreenshotRequest{}), nil},
		{"all valid", CaptureScreenshot(&agentv1.CaptureScreenshotRequest{Options: &agentv1.ScreenshotOptions{
			DisplayId: "display-0", Region: &agentv1.Rect{X: 0, Y: 0, Width: 10, Height: 10}, Format: jpeg, Quality: 100, MaxEdge: 16}}), nil},
		{"png quality", CaptureScreenshot(&agentv1.CaptureScreenshotRequest{Options: &agentv1.ScreenshotOptions{Format: png, Quality: 80}}),
			[]string{"options.quality: must be 0 for PNG, got 80"}},
		{"jpeg quality", CaptureScreenshot(&agentv1.CaptureScreenshotRequest{Options: &agentv1.ScreenshotOptions{Format: jpeg, Quality: 101}}),
			[]string{"options.quality: must be 0..100, got 101"}},
		{"unknown format", CaptureScreenshot(&agentv1.CaptureScreenshotRequest{Options: &agentv1.ScreenshotOptions{Format: 9}}),
			[]string{"options.format: unknown image format 9"}},
		{"max edge", CaptureScreenshot(&agentv1.CaptureScreenshotRequest{Options: &agentv1.ScreenshotOptions{MaxEdge: 5}}),
			[]string{"options.max_edge: must be 0 or 16..16384, got 5"}},
		{"max edge high", CaptureScreenshot(&agentv1.CaptureScreenshotRequest{Options: &agentv1.ScreenshotOptions{MaxEdge: 16385}}),
			[]string{"options.max_edge: must be 0 or 16..16384, got 16385"}},
		{"region", CaptureScreenshot(&agentv1.CaptureScreenshotRequest{Options: &agentv1.ScreenshotOptions{
			Region: &agentv1.Rect{X: -1, Y: -2, Width: 0, Height: -5}}}),
			[]string{"options.region.x: must be 0..32767, got -1", "options.region.y: must be 0..32767, got -2",
				"options.region.width: must be 1..32767, got 0", "options.region.height: must be 1..32767, got -5"}},
		{"display id", CaptureScreenshot(&agentv1.CaptureScreenshotRequest{Options: &agentv1.ScreenshotOptions{DisplayId: strings.Repeat("d", 65)}}),
			[]string{"options.display_id: must be at most 64 bytes, got 65"}},
		{"watch fps", WatchScreen(&agentv1.WatchScreenRequest{MaxFps: 61}), []string{"max_fps: must be 0..60, got 61"}},
		{"watch fps negative and options", WatchScreen(&agentv1.WatchScreenRequest{MaxFps: -1, Options: &agentv1.ScreenshotOptions{MaxEdge: 1}}),
			[]string{"options.max_edge: must be 0 or 16..16384, got 1", "max_fps: must be 0..60, got -1"}},
		{"watch ok", WatchScreen(&agentv1.WatchScreenRequest{MaxFps: 30}), nil},
		{"list windows", ListWindows(&agentv1.ListWindowsRequest{IncludeUnmapped: true}), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, fields(tt.err)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
			if (tt.err == nil) != (tt.want == nil) || (tt.err != nil && !errors.Is(tt.err, errdefs.ErrInvalidArgument)) {
				t.Errorf("err = %v", tt.err)
			}
		})
	}
}

func FuzzScreenshotOptions(f *testing.F) {
	f.Add("display-0", int32(0), int32(0), int32(10), int32(10), int32(1), int32(0), int32(0), int32(5))
	f.Fuzz(func(t *testing.T, id string, x, y, w, h, format, quality, maxEdge, fps int32) {
		r := &agentv1.WatchScreenRequest{MaxFps: fps, Options: &agentv1.ScreenshotOptions{DisplayId: id,
			Region: &agentv1.Rect{X: x, Y: y, Width: w, Height: h}, Format: agentv1.ImageFormat(format), Quality: quality, MaxEdge: maxEdge}}
		err := WatchScreen(r)
		if err != nil && !errors.Is(err, errdefs.ErrInvalidArgument) {
			t.Fatalf("error of the wrong class: %v", err)
		}
	})
}
