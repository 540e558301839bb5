package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"glovebox.dev/host/internal/audit"
	"glovebox.dev/host/internal/recording"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
)

const usageRecording = `  recording export ID -dir D -o OUT [-format bundle|script] [-fps N] [-no-video]
                                             write recording ID of the recordings directory D as a bundle
                                             (steps.jsonl, manifest.json, images/, a11y/, video.mp4; docs/RECORDINGS.md)
                                             or, with -format script, OUT as a Python program doing its steps
` + usageRecordingReplay

func (r *runner) recording(args []string) error {
	const cmd = "recording"
	sub, args, err := r.subcommand(cmd, "", args)
	if err != nil {
		return err
	}
	switch sub {
	case "export":
		return r.recordingExport(args)
	case "replay":
		return r.recordingReplay(args)
	default:
		return usagef(cmd, "unknown recording command %q", sub)
	}
}

func (r *runner) recordingExport(args []string) error {
	const cmd = "recording"
	fs := r.offlineFlagSet(cmd)
	dir := fs.String("dir", "", "recordings directory")
	out := fs.String("o", "", "output directory (bundle) or file (script)")
	format := fs.String("format", "bundle", "bundle or script")
	fps := fs.Int("fps", recording.DefaultFPS, "video frame rate")
	noVideo := fs.Bool("no-video", false, "skip the video")
	pos, err := r.parse(fs, cmd, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef(cmd, "recording export needs one recording ID")
	}
	if *dir == "" || *out == "" {
		return usagef(cmd, "recording export needs -dir (the recordings directory) and -o")
	}
	st, err := recording.Open(*dir)
	if err != nil {
		return err
	}
	id := pos[0]
	switch *format {
	case "bundle":
		rep, err := st.Export(context.Background(), id, *out, recording.ExportOptions{FPS: *fps, NoVideo: *noVideo})
		if err != nil {
			return err
		}
		return r.printJSONOr(rep, fmt.Sprintf("%s: %d steps, %d images, %d accessibility texts, video %d frames -> %s\n", id, rep.Steps, rep.Images, rep.Texts, rep.Frames, *out))
	case "script":
		steps, err := st.ReadSteps(id)
		if err != nil {
			return err
		}
		f, err := os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
		if err != nil {
			return err
		}
		n, err := recording.WriteScript(f, id, filepath.Base(*out), steps)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		return r.printJSONOr(map[string]any{"steps": n, "script": *out}, fmt.Sprintf("%s: %d steps -> %s\n", id, n, *out))
	default:
		return usagef(cmd, "-format must be bundle or script, got %q", *format)
	}
}

// printJSONOr prints v as JSON with -json, else text.
func (r *runner) printJSONOr(v any, text string) error {
	if !r.global.json {
		_, err := fmt.Fprint(r.env.Stdout, text)
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(r.env.Stdout, "%s\n", b)
	return err
}

// recordingProblems checks every recording sealed in a guest's audit log against its manifest hash; a
// recording removed later (a Remove record) is passed over, one missing without it is a problem.
func recordingProblems(auditDir, recDir, guest string) ([]string, error) {
	sealed := map[string]string{}
	var order []string
	err := audit.Scan(auditDir, guest, 0, func(rec *brokerv1.AuditRecord) error {
		id := rec.GetArgs().GetFields()["recording_id"].GetStringValue()
		switch rec.GetRpc() {
		case recording.SealRPC:
			sealed[id] = rec.GetArgs().GetFields()["manifest_sha256"].GetStringValue()
			order = append(order, id)
		case recording.RemoveRPC:
			delete(sealed, id)
		}
		return nil
	})
	if err != nil || len(order) == 0 {
		return nil, err
	}
	st := &recordingsDir{dir: recDir}
	var out []string
	for _, id := range order {
		sum, ok := sealed[id]
		if !ok {
			continue
		}
		if err := st.verify(id, sum); err != nil {
			out = append(out, err.Error())
		}
	}
	return out, nil
}

// recordingsDir verifies recordings without creating the directory.
type recordingsDir struct{ dir string }

func (d *recordingsDir) verify(id, sum string) error {
	if _, err := os.Stat(d.dir); err != nil {
		return fmt.Errorf("recording %s: recordings directory %s: %w", id, d.dir, errdefs.ErrNotFound)
	}
	st, err := recording.Open(d.dir)
	if err != nil {
		return err
	}
	err = st.Verify(id, sum)
	if errors.Is(err, errdefs.ErrNotFound) {
		return fmt.Errorf("%w (and no retention record)", err)
	}
	return err
}
