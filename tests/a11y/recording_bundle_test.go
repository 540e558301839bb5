package a11y

import (
	"bytes"
	"context"
	"encoding/json"
	"image/jpeg"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"google.golang.org/grpc"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/tests/internal/stepschema"
)

// checkBundle checks an exported bundle with tools nobody here wrote and returns its steps: steps.jsonl
// validates against the documented schema (and a step with a wrong source does not, so the validator is
// seen to work), every image decodes at the size images.jsonl gives, and ffprobe finds an H.264 video of one
// frame per image at the default 2 fps.
func checkBundle(t *testing.T, dir string) []map[string]any {
	t.Helper()
	stepsFile := filepath.Join(dir, "steps.jsonl")
	if out, err := stepschema.Check(t, stepsFile); err != nil {
		t.Errorf("steps.jsonl does not validate against docs/recording-step.schema.json: %v\n%s", err, out)
	}
	data, err := os.ReadFile(stepsFile)
	if err != nil {
		t.Fatal(err)
	}
	var steps []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("steps.jsonl: %v", err)
		}
		steps = append(steps, m)
	}
	if len(steps) == 0 {
		t.Fatal("steps.jsonl is empty")
	}
	broken := maps.Clone(steps[0])
	broken["source"] = "ROBOT"
	line, _ := json.Marshal(broken)
	brokenFile := filepath.Join(t.TempDir(), "broken.jsonl")
	if err := os.WriteFile(brokenFile, append(line, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := stepschema.Check(t, brokenFile); err == nil {
		t.Errorf("a step with source ROBOT validated:\n%s", out)
	}

	geo := map[string][2]int{}
	imgData, err := os.ReadFile(filepath.Join(dir, "images.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(imgData), []byte("\n")) {
		var g struct {
			Name          string
			Width, Height int
		}
		if err := json.Unmarshal(line, &g); err != nil {
			t.Fatalf("images.jsonl: %v", err)
		}
		geo[g.Name] = [2]int{g.Width, g.Height}
	}
	images, _ := filepath.Glob(filepath.Join(dir, "images", "*.jpg"))
	if len(images) < 2 || len(images) != len(geo) {
		t.Errorf("%d images, %d in images.jsonl; want the same, at least start.jpg and one after", len(images), len(geo))
	}
	for _, p := range images {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		img, err := jpeg.Decode(f)
		f.Close()
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if g, sz := geo[filepath.Base(p)], img.Bounds().Size(); g != [2]int{sz.X, sz.Y} {
			t.Errorf("%s decodes to %v, images.jsonl says %v", p, sz, g)
		}
	}

	// The video's frames: the first step's before, then every step's after that was captured.
	frames := 0
	if b, _ := steps[0]["before"].(string); b != "" && fileExists(filepath.Join(dir, "images", b)) {
		frames++
	}
	for _, st := range steps {
		if a, _ := st["after"].(string); a != "" && fileExists(filepath.Join(dir, "images", a)) {
			frames++
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	probe, err := exec.CommandContext(ctx, "ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=nb_read_frames,duration,codec_name", "-of", "json", filepath.Join(dir, "video.mp4")).Output()
	if err != nil {
		t.Fatalf("ffprobe: %v", err)
	}
	var pr struct {
		Streams []struct {
			Codec    string `json:"codec_name"`
			Frames   string `json:"nb_read_frames"`
			Duration string `json:"duration"`
		} `json:"streams"`
	}
	if err := json.Unmarshal(probe, &pr); err != nil || len(pr.Streams) != 1 {
		t.Fatalf("ffprobe output %s: %v", probe, err)
	}
	v := pr.Streams[0]
	dur, _ := strconv.ParseFloat(v.Duration, 64)
	if v.Codec != "h264" || v.Frames != strconv.Itoa(frames) || math.Abs(dur-float64(frames)/2) > 0.01 {
		t.Errorf("video: %+v, want h264, %d frames, %.1f s (2 fps)", v, frames, float64(frames)/2)
	}
	return steps
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// waitGuestReady waits until the broker reports guest READY.
func waitGuestReady(t *testing.T, conn *grpc.ClientConn, guest string, timeout time.Duration) {
	t.Helper()
	guests := brokerv1.NewGuestServiceClient(conn)
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		g, err := guests.GetGuest(ctx, &brokerv1.GetGuestRequest{Name: guest})
		cancel()
		if err == nil && g.GetGuest().GetState() == brokerv1.GuestState_GUEST_STATE_READY {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("guest %s not ready within %v: %v %v", guest, timeout, g.GetGuest().GetState(), err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
