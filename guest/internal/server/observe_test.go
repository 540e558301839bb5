package server

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"

	"glovebox.dev/guest/internal/encode"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

const (
	rootRGB   = 0x204080
	squareRGB = 0xff0000
)

func rgbOf(v uint32) color.RGBA { return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255} }

func decode(t *testing.T, img *agentv1.Image) image.Image {
	t.Helper()
	var m image.Image
	var err error
	if img.GetFormat() == agentv1.ImageFormat_IMAGE_FORMAT_JPEG {
		m, err = jpeg.Decode(bytes.NewReader(img.GetData()))
	} else {
		m, err = png.Decode(bytes.NewReader(img.GetData()))
	}
	if err != nil {
		t.Fatalf("decode %v: %v", img.GetFormat(), err)
	}
	if diff := cmp.Diff(image.Rect(0, 0, int(img.GetWidth()), int(img.GetHeight())), m.Bounds()); diff != "" {
		t.Fatalf("decoded bounds (-want +got):\n%s", diff)
	}
	return m
}

func at(m image.Image, x, y int) color.RGBA { return color.RGBAModel.Convert(m.At(x, y)).(color.RGBA) }

func near(a, b color.RGBA, tol int) bool {
	d := func(x, y uint8) int {
		if x > y {
			return int(x - y)
		}
		return int(y - x)
	}
	return d(a.R, b.R) <= tol && d(a.G, b.G) <= tol && d(a.B, b.B) <= tol
}

func (e *screenEnv) capture(t *testing.T, opts *agentv1.ScreenshotOptions) *agentv1.CaptureScreenshotResponse {
	t.Helper()
	r, err := e.observe.CaptureScreenshot(context.Background(), &agentv1.CaptureScreenshotRequest{Options: opts})
	if err != nil {
		t.Fatalf("CaptureScreenshot(%v): %v", opts, err)
	}
	return r
}

func TestObserveDesktop(t *testing.T) {
	e := startScreenEnv(t)
	e.paint.rootColor(t, rootRGB)
	sq := e.paint.square(t, 100, 150, 200, 100, squareRGB)
	png80 := &agentv1.ScreenshotOptions{}

	t.Run("png pixels match import", func(t *testing.T) {
		r := e.capture(t, png80)
		m := decode(t, r.Image)
		ref := e.importRoot(t)
		for _, p := range []image.Point{{150, 200}, {100, 150}, {299, 249}, {300, 250}, {99, 149}, {5, 5}, {1279, 799}, {640, 400}} {
			if got, want := at(m, p.X, p.Y), at(ref, p.X, p.Y); got != want {
				t.Errorf("pixel %v: got %v, import says %v", p, got, want)
			}
		}
		if got := at(m, 150, 200); got != rgbOf(squareRGB) {
			t.Errorf("square pixel = %v, want %v", got, rgbOf(squareRGB))
		}
		if diff := cmp.Diff(&agentv1.Image{Format: agentv1.ImageFormat_IMAGE_FORMAT_PNG, Width: 1280, Height: 800, Scale: 1,
			Region: &agentv1.Rect{Width: 1280, Height: 800}}, r.Image, protocmp.Transform(), protocmp.IgnoreFields(&agentv1.Image{}, "data")); diff != "" {
			t.Errorf("image (-want +got):\n%s", diff)
		}
	})

	t.Run("jpeg pixels", func(t *testing.T) {
		r := e.capture(t, &agentv1.ScreenshotOptions{Format: agentv1.ImageFormat_IMAGE_FORMAT_JPEG, Quality: 80})
		m := decode(t, r.Image)
		for _, c := range []struct {
			p    image.Point
			want uint32
		}{{image.Pt(200, 200), squareRGB}, {image.Pt(50, 50), rootRGB}, {image.Pt(1000, 700), rootRGB}} {
			if got := at(m, c.p.X, c.p.Y); !near(got, rgbOf(c.want), 12) {
				t.Errorf("pixel %v = %v, want about %v", c.p, got, rgbOf(c.want))
			}
		}
	})

	t.Run("region", func(t *testing.T) {
		r := e.capture(t, &agentv1.ScreenshotOptions{Region: &agentv1.Rect{X: 90, Y: 140, Width: 220, Height: 120}})
		m := decode(t, r.Image)
		if diff := cmp.Diff(&agentv1.Rect{X: 90, Y: 140, Width: 220, Height: 120}, r.Image.Region, protocmp.Transform()); diff != "" {
			t.Errorf("region (-want +got):\n%s", diff)
		}
		for _, c := range []struct {
			x, y int
			want uint32
		}{{0, 0, rootRGB}, {9, 9, rootRGB}, {10, 10, squareRGB}, {209, 109, squareRGB}, {210, 110, rootRGB}, {219, 119, rootRGB}} {
			if got := at(m, c.x, c.y); got != rgbOf(c.want) {
				t.Errorf("region pixel %d,%d = %v, want %v", c.x, c.y, got, rgbOf(c.want))
			}
		}
	})

	t.Run("scaling", func(t *testing.T) {
		r := e.capture(t, &agentv1.ScreenshotOptions{MaxEdge: 640})
		m := decode(t, r.Image)
		if r.Image.Width != 640 || r.Image.Height != 400 || r.Image.Scale != 0.5 {
			t.Fatalf("scaled image %dx%d scale %v, want 640x400 scale 0.5", r.Image.Width, r.Image.Height, r.Image.Scale)
		}
		// Screen point (200, 200) maps to image (100, 100).
		if got := at(m, int(200*r.Image.Scale), int(200*r.Image.Scale)); got != rgbOf(squareRGB) {
			t.Errorf("scaled square pixel = %v", got)
		}
		r = e.capture(t, &agentv1.ScreenshotOptions{MaxEdge: 5000})
		if r.Image.Width != 1280 || r.Image.Scale != 1 {
			t.Errorf("max_edge above the size scaled the image: %dx%d scale %v", r.Image.Width, r.Image.Height, r.Image.Scale)
		}
	})

	t.Run("display", func(t *testing.T) {
		ds := e.scr.Displays()
		if len(ds) == 0 || ds[0].Id != "display-0" {
			t.Fatalf("displays = %v", ds)
		}
		r := e.capture(t, &agentv1.ScreenshotOptions{DisplayId: "display-0"})
		if diff := cmp.Diff(ds[0].Bounds, r.Image.Region, protocmp.Transform()); diff != "" {
			t.Errorf("display region (-want +got):\n%s", diff)
		}
	})

	t.Run("cursor overlay", func(t *testing.T) {
		e.xdotool(t, "mousemove", "700", "500")
		plain := decode(t, e.capture(t, &agentv1.ScreenshotOptions{}).Image)
		with := decode(t, e.capture(t, &agentv1.ScreenshotOptions{IncludeCursor: true}).Image)
		near, far := 0, 0
		b := plain.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				if at(plain, x, y) != at(with, x, y) {
					if x >= 700-40 && x < 700+40 && y >= 500-40 && y < 500+40 {
						near++
					} else {
						far++
					}
				}
			}
		}
		if near == 0 || far != 0 {
			t.Errorf("cursor changed %d pixels near the pointer and %d elsewhere; want some and none", near, far)
		}
		// Moving the pointer damages nothing, but the frame with the cursor must follow it.
		e.xdotool(t, "mousemove", "720", "520")
		if r := e.capture(t, &agentv1.ScreenshotOptions{IncludeCursor: true}); r.Unchanged {
			t.Error("frame with cursor reported unchanged after the pointer moved")
		}
	})

	t.Run("unchanged then changed", func(t *testing.T) {
		opts := &agentv1.ScreenshotOptions{Region: &agentv1.Rect{X: 100, Y: 150, Width: 50, Height: 50}}
		first := e.capture(t, opts)
		second := e.capture(t, opts)
		if !second.Unchanged || second.FrameSeq != first.FrameSeq || !bytes.Equal(first.Image.Data, second.Image.Data) {
			t.Errorf("second capture: unchanged=%v seq %d->%d", second.Unchanged, first.FrameSeq, second.FrameSeq)
		}
		e.paint.recolor(t, sq, 0x00ff00)
		third := e.capture(t, opts)
		if third.Unchanged || third.FrameSeq <= second.FrameSeq {
			t.Errorf("capture after a change: unchanged=%v seq %d->%d", third.Unchanged, second.FrameSeq, third.FrameSeq)
		}
		if got := at(decode(t, third.Image), 10, 10); got != rgbOf(0x00ff00) {
			t.Errorf("pixel after recolor = %v, want green", got)
		}
		e.paint.recolor(t, sq, squareRGB)
	})

	// Captures after the first with the same options go through the band cache, which re-encodes only the
	// bands damaged since: after each change, the whole image must still match what import reads.
	t.Run("successive changes match import", func(t *testing.T) {
		small := e.paint.square(t, 400, 500, 8, 8, 0xff00ff)
		region := &agentv1.ScreenshotOptions{Region: &agentv1.Rect{X: 380, Y: 470, Width: 300, Height: 90}}
		steps := []struct {
			name   string
			change func()
		}{
			{"first", func() {}},
			{"moved inside a band", func() { e.paint.move(t, small, 420, 500) }},
			{"moved across bands", func() { e.paint.move(t, small, 430, 509) }},
			{"big square recoloured", func() { e.paint.recolor(t, sq, 0x2040c0) }},
			{"two changes far apart", func() { e.paint.move(t, small, 1200, 790); e.paint.recolor(t, sq, squareRGB) }},
			{"back into the region", func() { e.paint.move(t, small, 600, 550) }},
		}
		for _, st := range steps {
			st.change()
			ref := e.importRoot(t)
			for _, opts := range []*agentv1.ScreenshotOptions{png80, region} {
				m := decode(t, e.capture(t, opts).Image)
				rg := opts.GetRegion()
				b := m.Bounds()
				bad := 0
				for y := 0; y < b.Dy(); y++ {
					for x := 0; x < b.Dx(); x++ {
						if at(m, x, y) != at(ref, x+int(rg.GetX()), y+int(rg.GetY())) {
							bad++
						}
					}
				}
				if bad > 0 {
					t.Errorf("%s, region %v: %d pixels differ from import", st.name, rg, bad)
				}
			}
			// JPEG bands fetched and re-encoded only where damaged: byte for byte a fresh encode of what
			// import reads (the encoder gives the same bytes for the same pixels in either layout).
			for _, rg := range []*agentv1.Rect{nil, region.GetRegion()} {
				opts := &agentv1.ScreenshotOptions{Format: agentv1.ImageFormat_IMAGE_FORMAT_JPEG, Quality: 80, Region: rg}
				got := e.capture(t, opts).Image.GetData()
				r := ref.Bounds()
				if rg != nil {
					r = image.Rect(int(rg.GetX()), int(rg.GetY()), int(rg.GetX()+rg.GetWidth()), int(rg.GetY()+rg.GetHeight()))
				}
				want, err := encode.JPEG(encode.FromRGBA(rgbaOf(ref, r)), 80)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s, region %v: JPEG differs from a fresh encode of import's pixels", st.name, rg)
				}
			}
		}
	})

	t.Run("watch", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		stream, err := e.observe.WatchScreen(ctx, &agentv1.WatchScreenRequest{MaxFps: 30,
			Options: &agentv1.ScreenshotOptions{Region: &agentv1.Rect{X: 100, Y: 150, Width: 64, Height: 64}}})
		if err != nil {
			t.Fatal(err)
		}
		frames := make(chan *agentv1.WatchScreenResponse, 16)
		go func() {
			defer close(frames)
			for {
				f, err := stream.Recv()
				if err != nil {
					return
				}
				frames <- f
			}
		}()
		recv := func(within time.Duration) *agentv1.WatchScreenResponse {
			select {
			case f := <-frames:
				return f
			case <-time.After(within):
				return nil
			}
		}
		first := recv(2 * time.Second)
		if first == nil {
			t.Fatal("no first frame")
		}
		if f := recv(400 * time.Millisecond); f != nil {
			t.Fatalf("frame %d sent while the screen was idle", f.FrameSeq)
		}
		e.paint.recolor(t, sq, 0x0000ff)
		f := recv(2 * time.Second)
		if f == nil {
			t.Fatal("no frame after a change")
		}
		if f.FrameSeq <= first.FrameSeq {
			t.Errorf("frame seq %d after %d", f.FrameSeq, first.FrameSeq)
		}
		if got := at(decode(t, f.Image), 5, 5); got != rgbOf(0x0000ff) {
			t.Errorf("watched pixel = %v, want blue", got)
		}
		e.paint.recolor(t, sq, squareRGB)
	})

	t.Run("windows and cursor", func(t *testing.T) {
		id := e.colorWindow(t, "glovebox-green", "#00c000", 400, 300, 240, 160)
		resp, err := e.observe.ListWindows(context.Background(), &agentv1.ListWindowsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var got *agentv1.Window
		for _, w := range resp.Windows {
			if w.Id == id {
				got = w
			}
		}
		if got == nil {
			t.Fatalf("window %d (found by xdotool) not listed: %v", id, resp.Windows)
		}
		sid := strconv.FormatUint(uint64(id), 10)
		pid, _ := strconv.Atoi(e.xdotool(t, "getwindowpid", sid))
		vals := e.xwininfo(t, sid)
		active, _ := strconv.ParseUint(e.xdotool(t, "getactivewindow"), 10, 32)
		want := &agentv1.Window{Id: id, Title: "glovebox-green", ClassName: "GloveboxColor", InstanceName: "glovebox-color",
			Pid: int32(pid), Geometry: &agentv1.Rect{X: vals["Absolute upper-left X"], Y: vals["Absolute upper-left Y"], Width: vals["Width"], Height: vals["Height"]},
			Focused: uint32(active) == id, Mapped: true}
		if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
			t.Errorf("window (-xdotool/xwininfo +ListWindows):\n%s", diff)
		}
		if !want.Focused {
			t.Errorf("new window %d not active (xdotool says %d)", id, active)
		}
		// The window's own pixels are where ListWindows says.
		m := decode(t, e.capture(t, &agentv1.ScreenshotOptions{}).Image)
		cx, cy := int(got.Geometry.X+got.Geometry.Width/2), int(got.Geometry.Y+got.Geometry.Height/2)
		if c := at(m, cx, cy); c != (color.RGBA{0, 0xc0, 0, 255}) {
			t.Errorf("window centre %d,%d = %v, want #00c000", cx, cy, c)
		}

		e.xdotool(t, "mousemove", strconv.Itoa(cx), strconv.Itoa(cy))
		pos, err := e.observe.GetCursorPosition(context.Background(), &agentv1.GetCursorPositionRequest{})
		if err != nil {
			t.Fatal(err)
		}
		loc := e.xdotool(t, "getmouselocation", "--shell")
		wantPos := &agentv1.GetCursorPositionResponse{Position: &agentv1.Point{X: int32(cx), Y: int32(cy)}, WindowId: id, DisplayId: "display-0"}
		if !strings.Contains(loc, "X="+strconv.Itoa(cx)+"\n") {
			t.Fatalf("xdotool getmouselocation: %s", loc)
		}
		if diff := cmp.Diff(wantPos, pos, protocmp.Transform()); diff != "" {
			t.Errorf("cursor (-want +got):\n%s", diff)
		}
		// Over the title bar (above the client area) the window is still the one under the pointer.
		e.xdotool(t, "mousemove", strconv.Itoa(cx), strconv.Itoa(int(got.Geometry.Y)-5))
		if pos, err = e.observe.GetCursorPosition(context.Background(), &agentv1.GetCursorPositionRequest{}); err != nil || pos.WindowId != id {
			t.Errorf("over the title bar: window %d, err %v; want %d", pos.GetWindowId(), err, id)
		}
		e.xdotool(t, "mousemove", "5", "790")
		if pos, err = e.observe.GetCursorPosition(context.Background(), &agentv1.GetCursorPositionRequest{}); err != nil || pos.WindowId != 0 {
			t.Errorf("over the root: window %d, err %v; want 0", pos.GetWindowId(), err)
		}
	})

	t.Run("bad options", func(t *testing.T) {
		tests := []struct {
			opts  *agentv1.ScreenshotOptions
			field string
		}{
			{&agentv1.ScreenshotOptions{MaxEdge: 5}, "options.max_edge"},
			{&agentv1.ScreenshotOptions{Quality: 50}, "options.quality"},
			{&agentv1.ScreenshotOptions{Format: agentv1.ImageFormat_IMAGE_FORMAT_JPEG, Quality: 101}, "options.quality"},
			{&agentv1.ScreenshotOptions{Format: 42}, "options.format"},
			{&agentv1.ScreenshotOptions{DisplayId: "display-9"}, "options.display_id"},
			{&agentv1.ScreenshotOptions{DisplayId: strings.Repeat("x", 100)}, "options.display_id"},
			{&agentv1.ScreenshotOptions{Region: &agentv1.Rect{X: 1200, Y: 0, Width: 100, Height: 10}}, "options.region"},
			{&agentv1.ScreenshotOptions{Region: &agentv1.Rect{X: 0, Y: 0, Width: 0, Height: 10}}, "options.region.width"},
		}
		for _, tt := range tests {
			_, err := e.observe.CaptureScreenshot(context.Background(), &agentv1.CaptureScreenshotRequest{Options: tt.opts})
			if diff := cmp.Diff([]string{tt.field}, violatedFields(t, err)); diff != "" {
				t.Errorf("%v: fields (-want +got):\n%s", tt.opts, diff)
			}
		}
		stream, err := e.observe.WatchScreen(context.Background(), &agentv1.WatchScreenRequest{MaxFps: 99})
		if err == nil {
			_, err = stream.Recv()
		}
		if diff := cmp.Diff([]string{"max_fps"}, violatedFields(t, err)); diff != "" {
			t.Errorf("watch max_fps: fields (-want +got):\n%s", diff)
		}
	})
}

func TestObserveWithoutBackends(t *testing.T) {
	conn := dialServices(t, New(Options{}, Backends{}))
	c := agentv1.NewObserveServiceClient(conn)
	_, err1 := c.CaptureScreenshot(context.Background(), &agentv1.CaptureScreenshotRequest{})
	_, err2 := c.GetCursorPosition(context.Background(), &agentv1.GetCursorPositionRequest{})
	_, err3 := c.ListWindows(context.Background(), &agentv1.ListWindowsRequest{})
	for i, err := range []error{err1, err2, err3} {
		if st, _ := status.FromError(err); st.Code() != codes.FailedPrecondition {
			t.Errorf("call %d: code %v, want FailedPrecondition", i, st.Code())
		}
		if !errors.Is(errgrpc.FromError(err), errdefs.ErrCapabilityUnavailable) {
			t.Errorf("call %d: %v, want CAPABILITY_UNAVAILABLE", i, err)
		}
	}
}

// rgbaOf copies rectangle r of m into a new RGBA image with origin 0, 0.
func rgbaOf(m image.Image, r image.Rectangle) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(out, out.Bounds(), m, r.Min, draw.Src)
	return out
}
