package recording

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"path/filepath"
	"testing"
	"time"

	"glovebox.dev/shared/testenv"
)

// BenchmarkExport200 exports a 200-step recording with a 640x400 JPEG after each step, a click marker on
// every step, and the video rendered by ffmpeg: the figure is ms per export.
func BenchmarkExport200(b *testing.B) {
	testenv.NeedCommands(b, "ffmpeg")
	st, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	rec, err := st.Start(Meta{Kind: KindSession, Guest: "g1", Principal: "p"}, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	for i := range 200 {
		name := fmt.Sprintf("seq-%012d.jpg", i+1)
		data := frame(i)
		rec.WriteImageAsync(name, func() ([]byte, Image) { return data, Image{Width: 640, Height: 400, Scale: 0.5} })
		if err := rec.Add(&Step{Time: time.Now(), Source: "AGENT", RPC: "/glovebox.broker.v1.ComputerService/Act", Action: "click",
			Request: []byte(`{"click":{"at":{"x":100,"y":100}}}`), Code: "OK", Pointer: &Point{X: int32(2 * i), Y: 300}, AuditSeq: uint64(i + 1), After: name}); err != nil {
			b.Fatal(err)
		}
	}
	if _, _, err := rec.Seal(time.Now()); err != nil {
		b.Fatal(err)
	}
	var last ExportReport
	for i := 0; b.Loop(); i++ {
		out := filepath.Join(b.TempDir(), fmt.Sprint("out", i))
		rep, err := st.Export(context.Background(), rec.ID(), out, ExportOptions{})
		if err != nil {
			b.Fatal(err)
		}
		last = rep
	}
	if last.Frames != 200 {
		b.Fatalf("video of %d frames, want 200", last.Frames)
	}
}

// frame is a 640x400 JPEG that differs per step (a moving block on a gradient), like a screen between steps.
func frame(i int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 640, 400))
	for y := range 400 {
		for x := range 640 {
			c := color.RGBA{uint8(x / 3), uint8(y / 2), uint8(i), 255}
			if x/40 == i%16 && y/40 == (i/16)%10 {
				c = color.RGBA{0, 0, 0, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	_ = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 70})
	return buf.Bytes()
}
