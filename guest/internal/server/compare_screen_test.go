package server

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv"
)

// benchScreenEnv is a 1280x800 desktop showing real content: two overlapping xterms full of text in two
// colour schemes, plus a small square the benchmark moves to damage the screen between captures.
func benchScreenEnv(b *testing.B) (*screenEnv, func()) {
	b.Helper()
	e := startScreenEnv(b)
	testenv.NeedCommands(b, "xterm")
	e.d.StartProgram(b, e.d.Command("xterm", "-geometry", "160x50+0+0", "-T", "bench-xterm", "-e",
		"sh", "-c", "ls -l /usr/bin | head -300; cat /work/shared/DESIGN.md 2>/dev/null; sleep 600"))
	e.d.WaitWindow(b, "^bench-xterm$", 10*time.Second)
	e.d.StartProgram(b, e.d.Command("xterm", "-geometry", "100x30+560+330", "-T", "bench-xterm-2", "-bg", "#ffffdd",
		"-fg", "#202060", "-e", "sh", "-c", "ls -lR /usr/share/doc | head -200; sleep 600"))
	e.d.WaitWindow(b, "^bench-xterm-2$", 10*time.Second)
	time.Sleep(500 * time.Millisecond) // let the programs finish drawing
	sq := e.paint.square(b, 1200, 700, 8, 8, 0xff00ff)
	x := 0
	damage := func() {
		x ^= 1
		e.paint.move(b, sq, 1200+x*16, 700)
	}
	return e, damage
}

// p50 reports the median of the per-iteration durations in milliseconds.
func p50(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
}

func benchCapture(b *testing.B, e *screenEnv, damage func(), opts *agentv1.ScreenshotOptions) {
	ctx := context.Background()
	var ds []time.Duration
	size := 0
	for b.Loop() {
		if damage != nil {
			b.StopTimer()
			damage()
			b.StartTimer()
		}
		start := time.Now()
		r, err := e.observe.CaptureScreenshot(ctx, &agentv1.CaptureScreenshotRequest{Options: opts})
		if err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
		if damage != nil && r.Unchanged {
			b.Fatal("capture after damage answered from the cache")
		}
		if damage == nil && !r.Unchanged && len(ds) > 1 {
			b.Fatal("unchanged screen captured again")
		}
		b.SetBytes(int64(len(r.Image.Data)))
		size = len(r.Image.Data)
	}
	p50(b, ds)
	b.ReportMetric(float64(size), "B/frame")
}

// benchScrot runs scrot with args, the last of which is the file it writes.
func benchScrot(b *testing.B, e *screenEnv, args ...string) {
	testenv.NeedCommands(b, "scrot")
	var ds []time.Duration
	for b.Loop() {
		start := time.Now()
		if out, err := e.d.Command("scrot", args...).CombinedOutput(); err != nil {
			b.Fatalf("scrot: %v: %s", err, out)
		}
		ds = append(ds, time.Since(start))
	}
	p50(b, ds)
	if st, err := os.Stat(args[len(args)-1]); err == nil {
		b.ReportMetric(float64(st.Size()), "B/frame")
	}
}

func BenchmarkScreenshotPNG(b *testing.B) {
	e, damage := benchScreenEnv(b)
	b.Run("glovebox-png", func(b *testing.B) { benchCapture(b, e, damage, &agentv1.ScreenshotOptions{}) })
	b.Run("scrot-png", func(b *testing.B) { benchScrot(b, e, "-o", filepath.Join(b.TempDir(), "out.png")) })
}

func BenchmarkScreenshotJPEG(b *testing.B) {
	e, damage := benchScreenEnv(b)
	jpeg80 := &agentv1.ScreenshotOptions{Format: agentv1.ImageFormat_IMAGE_FORMAT_JPEG, Quality: 80}
	b.Run("glovebox-jpeg", func(b *testing.B) { benchCapture(b, e, damage, jpeg80) })
	b.Run("scrot-jpeg", func(b *testing.B) { benchScrot(b, e, "-q", "80", "-o", filepath.Join(b.TempDir(), "out.jpg")) })
}

func BenchmarkScreenshotUnchanged(b *testing.B) {
	e, _ := benchScreenEnv(b)
	b.Run("glovebox-unchanged", func(b *testing.B) { benchCapture(b, e, nil, &agentv1.ScreenshotOptions{}) })
}
