package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

const usageRecordingReplay = `  recording replay ID -guest G [-keep-going] [-deadline 10m]
                                             run recording ID's steps again in a new session on guest G
                                             (RecordingService.ReplayRecording): element steps found by their
                                             recorded role, name, path and app (never the old ref), pointer
                                             steps at their coordinates; one line per step (done, done by
                                             coordinates, resolved differently, not found, failed, skipped);
                                             stops at the first step not found or failed unless -keep-going;
                                             exit 1 when any was
`

func (r *runner) recordingReplay(args []string) error {
	const cmd = "recording"
	fs := r.flagSet(cmd)
	guest := fs.String("guest", "", "guest to replay on")
	keepGoing := fs.Bool("keep-going", false, "skip steps not found or failed instead of stopping")
	deadline := fs.Duration("deadline", 10*time.Minute, "deadline of the whole replay")
	pos, rc, err := parseForService(r, fs, cmd, args, brokerv1.NewRecordingServiceClient)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *guest == "" {
		return usagef(cmd, "recording replay needs one recording ID and -guest")
	}
	// A replay takes as long as its steps: its own deadline, not -timeout's of one call.
	r.global.timeout = *deadline
	resp, err := unary(r, rc.ReplayRecording, &brokerv1.ReplayRecordingRequest{RecordingId: pos[0], Guest: *guest, KeepGoing: *keepGoing})
	if err != nil {
		return err
	}
	bad := false
	for _, s := range resp.GetSteps() {
		st := s.GetStatus()
		bad = bad || st == brokerv1.ReplayStatus_REPLAY_STATUS_NOT_FOUND || st == brokerv1.ReplayStatus_REPLAY_STATUS_FAILED
	}
	err = r.emit(resp, func(w io.Writer) {
		for _, s := range resp.GetSteps() {
			line := fmt.Sprintf("step %d %s: %s", s.GetIndex(), s.GetAction(), statusText(s.GetStatus()))
			if s.GetDetail() != "" {
				line += ": " + s.GetDetail()
			}
			fmt.Fprintln(w, line)
		}
	})
	if err != nil {
		return err
	}
	if bad {
		return errSilent
	}
	return nil
}

// statusText is "resolved differently" for REPLAY_STATUS_RESOLVED_DIFFERENTLY.
func statusText(s brokerv1.ReplayStatus) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(s.String(), "REPLAY_STATUS_"), "_", " "))
}
