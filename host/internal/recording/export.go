package recording

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"glovebox.dev/shared/errdefs"
)

// Bundle file names written by Export.
const (
	ImagesDir = "images"
	A11yDir   = "a11y"
	VideoFile = "video.mp4"
)

// DefaultFPS is the video's frame rate when the export names none: one frame per step, two steps a second.
const DefaultFPS = 2

// ExportOptions say what Export writes.
type ExportOptions struct {
	// FPS is the video's fixed frame rate (1..60); 0: DefaultFPS.
	FPS int
	// NoVideo skips the video (a recording without screenshots has none anyway).
	NoVideo bool
	// FFmpeg is the ffmpeg program; empty: "ffmpeg" on PATH (Debian's).
	FFmpeg string
}

// ExportReport says what Export wrote.
type ExportReport struct {
	Steps  int
	Images int
	// Texts is the count of accessibility texts written under a11y/.
	Texts int
	// Frames is the video's frame count (0: no video).
	Frames int
	Video  string
}

// clickActions are the actions the video marks with a ring at the pointer.
var clickActions = map[string]bool{"click": true, "element_click": true, "page_click": true, "mouse_down": true}

// Export writes recording id's bundle into out (created): steps.jsonl and manifest.json as stored, the
// screenshots under images/ with images.jsonl, the accessibility texts under a11y/ with a11y.jsonl, and video.mp4 rendered by ffmpeg at a fixed frame rate, one
// frame per screenshot in step order, a red ring at the pointer on each click's frame.
func (s *Store) Export(ctx context.Context, id, out string, o ExportOptions) (ExportReport, error) {
	var rep ExportReport
	if o.FPS == 0 {
		o.FPS = DefaultFPS
	}
	if o.FPS < 1 || o.FPS > 60 {
		return rep, fmt.Errorf("fps must be 1..60, got %d: %w", o.FPS, errdefs.ErrInvalidArgument)
	}
	dir, err := s.Path(id)
	if err != nil {
		return rep, err
	}
	steps, err := s.ReadSteps(id)
	if err != nil {
		return rep, err
	}
	images, err := s.ReadImages(id)
	if err != nil {
		return rep, err
	}
	texts, err := s.ReadTexts(id)
	if err != nil {
		return rep, err
	}
	rep.Steps = len(steps)
	if err := os.MkdirAll(filepath.Join(out, ImagesDir), 0o755); err != nil {
		return rep, err
	}
	for _, name := range []string{StepsFile, ManifestFile, ImagesFile, A11yFile} {
		if err := copyFile(filepath.Join(dir, name), filepath.Join(out, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return rep, err
		}
	}
	for name := range images {
		if !plainName(name) {
			continue
		}
		if err := copyFile(filepath.Join(dir, name), filepath.Join(out, ImagesDir, name)); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			return rep, err
		}
		rep.Images++
	}
	if len(texts) > 0 {
		if err := os.MkdirAll(filepath.Join(out, A11yDir), 0o755); err != nil {
			return rep, err
		}
	}
	for name := range texts {
		if !plainName(name) {
			continue
		}
		if err := copyFile(filepath.Join(dir, name), filepath.Join(out, A11yDir, name)); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			return rep, err
		}
		rep.Texts++
	}
	if o.NoVideo || rep.Images == 0 {
		return rep, nil
	}
	frames, err := os.MkdirTemp("", "glovebox-frames-")
	if err != nil {
		return rep, err
	}
	defer os.RemoveAll(frames)
	n, w, h, err := writeFrames(dir, steps, images, frames)
	if err != nil || n == 0 {
		return rep, err
	}
	ffmpeg := o.FFmpeg
	if ffmpeg == "" {
		ffmpeg = "ffmpeg"
	}
	video := filepath.Join(out, VideoFile)
	cmd := exec.CommandContext(ctx, ffmpeg, "-hide_banner", "-loglevel", "error", "-y",
		"-framerate", fmt.Sprint(o.FPS), "-i", filepath.Join(frames, "frame-%06d.jpg"),
		"-vf", fmt.Sprintf("scale=%d:%d", w&^1, h&^1), "-r", fmt.Sprint(o.FPS),
		"-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", video)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return rep, fmt.Errorf("ffmpeg: %v: %s: %w", err, bytes.TrimSpace(stderr.Bytes()), errdefs.ErrInternal)
	}
	rep.Frames, rep.Video = n, video
	return rep, nil
}

// writeFrames writes the video's frames into dir as frame-%06d.jpg: the recording's first before, then each
// step's after, with a click marker. It returns the count and the first frame's size.
func writeFrames(recDir string, steps []Step, images map[string]Image, out string) (n, w, h int, err error) {
	add := func(name string, st *Step) error {
		b, err := os.ReadFile(filepath.Join(recDir, name))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil // a capture that failed
			}
			return err
		}
		src, err := jpeg.Decode(bytes.NewReader(b))
		if err != nil {
			return fmt.Errorf("%s: %v: %w", name, err, errdefs.ErrInternal)
		}
		if n == 0 {
			w, h = src.Bounds().Dx(), src.Bounds().Dy()
		}
		if st != nil && st.Pointer != nil && clickActions[st.Action] {
			geo := images[name]
			if geo.Scale == 0 {
				geo.Scale = 1
			}
			img := image.NewRGBA(src.Bounds())
			draw.Draw(img, img.Bounds(), src, src.Bounds().Min, draw.Src)
			x := int(float64(st.Pointer.X-geo.RegionX) * geo.Scale)
			y := int(float64(st.Pointer.Y-geo.RegionY) * geo.Scale)
			ring(img, x, y, 10, color.RGBA{R: 255, A: 255})
			var buf bytes.Buffer
			if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
				return err
			}
			b = buf.Bytes()
		}
		n++
		return os.WriteFile(filepath.Join(out, fmt.Sprintf("frame-%06d.jpg", n)), b, 0o600)
	}
	if len(steps) > 0 && steps[0].Before != "" {
		if err := add(steps[0].Before, nil); err != nil {
			return 0, 0, 0, err
		}
	}
	for i := range steps {
		if steps[i].After == "" {
			continue
		}
		if err := add(steps[i].After, &steps[i]); err != nil {
			return 0, 0, 0, err
		}
	}
	return n, w, h, nil
}

// ring draws a 3-pixel circle of radius r around (cx, cy).
func ring(img *image.RGBA, cx, cy, r int, c color.Color) {
	for dy := -r - 2; dy <= r+2; dy++ {
		for dx := -r - 2; dx <= r+2; dx++ {
			d := dx*dx + dy*dy
			if d >= (r-1)*(r-1) && d <= (r+2)*(r+2) {
				img.Set(cx+dx, cy+dy, c)
			}
		}
	}
}

// plainName reports whether a listed file name names a file in the recording's directory itself (a listing
// edited to name another path is not followed).
func plainName(name string) bool {
	return name != "" && name == filepath.Base(name) && name[0] != '.'
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
