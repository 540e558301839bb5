package screen

import (
	"context"
	"image"
	"sync"
	"testing"
	"time"

	"github.com/jezek/xgb/xproto"

	"glovebox.dev/guest/internal/x11/xconn"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv/desktop"
)

func startScreen(t testing.TB) (*Screen, func()) {
	t.Helper()
	d := desktop.Start(t, desktop.Options{NoWindowManager: true})
	s, err := New(d.Display, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c, err := xconn.Open(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	xconn.DiscardEvents(c)
	root := xproto.Setup(c).DefaultScreen(c).Root
	px := uint32(0)
	damage := func() {
		px ^= 0xffffff
		xproto.ChangeWindowAttributes(c, root, xproto.CwBackPixel, []uint32{px})
		xproto.ClearArea(c, false, root, 0, 0, 4, 4)
		xproto.GetInputFocus(c).Reply()
	}
	return s, damage
}

func TestSharedMemoryAttached(t *testing.T) {
	s, _ := startScreen(t)
	if r := s.Degraded(); r != "" {
		t.Errorf("capture degraded on a local Xvfb: %s", r)
	}
	if w, h := s.Size(); w != 1280 || h != 800 {
		t.Errorf("size %dx%d, want 1280x800", w, h)
	}
}

func TestGetImageFallbackMatchesSharedMemory(t *testing.T) {
	s, damage := startScreen(t)
	damage()
	r := image.Rect(0, 0, 64, 32)
	a, b := image.NewRGBA(image.Rect(0, 0, 64, 32)), image.NewRGBA(image.Rect(0, 0, 64, 32))
	if err := s.grab.grab(r, a); err != nil {
		t.Fatal(err)
	}
	plain := &grabber{conn: s.conn, root: s.root}
	if err := plain.grab(r, b); err != nil {
		t.Fatal(err)
	}
	if string(a.Pix) != string(b.Pix) {
		t.Error("GetImage and shared memory captures differ")
	}
}

func BenchmarkGrab(b *testing.B) {
	s, damage := startScreen(b)
	damage()
	dst := image.NewRGBA(image.Rect(0, 0, 1280, 800))
	for b.Loop() {
		if err := s.grab.grab(dst.Rect, dst); err != nil {
			b.Fatal(err)
		}
	}
}

func benchCapture(b *testing.B, opts *agentv1.ScreenshotOptions) {
	s, damage := startScreen(b)
	for b.Loop() {
		b.StopTimer()
		damage()
		b.StartTimer()
		if _, unchanged, _, err := s.Capture(context.Background(), opts); err != nil || unchanged {
			b.Fatal(err, unchanged)
		}
	}
}

func BenchmarkCapturePNG(b *testing.B) { benchCapture(b, &agentv1.ScreenshotOptions{}) }

func BenchmarkCaptureJPEG(b *testing.B) {
	benchCapture(b, &agentv1.ScreenshotOptions{Format: agentv1.ImageFormat_IMAGE_FORMAT_JPEG, Quality: 80})
}

func BenchmarkSync(b *testing.B) {
	s, _ := startScreen(b)
	for b.Loop() {
		if _, err := s.Seq(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// TestConcurrentSync runs many syncs at once (as concurrent Capture and WaitQuiet calls do): each must come
// back promptly. Markers are numbered in one order and may be sent in another; when the loop took the last
// marker seen as the newest, a sync whose marker had already come back waited for it again and failed
// after syncTimeout.
func TestConcurrentSync(t *testing.T) {
	s, _ := startScreen(t)
	for range 50 {
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				start := time.Now()
				if _, err := s.Seq(ctx); err != nil {
					t.Errorf("Seq after %v: %v", time.Since(start), err)
				}
			}()
		}
		wg.Wait()
		if t.Failed() {
			return
		}
	}
}
