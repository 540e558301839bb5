package config

import (
	"fmt"
	"path"
	"path/filepath"

	"glovebox.dev/shared/errdefs"
)

// Recording says which sessions and control leases the broker records (host/internal/recording).
type Recording struct {
	// Principals and Guests are names or path.Match globs: a session is recorded when its principal or its
	// guest matches one, and a person's control lease when they or the guest match. Both empty: nothing is
	// recorded.
	Principals []string `json:"principals"`
	Guests     []string `json:"guests"`
	// Dir holds the recordings, one directory each; empty: "recordings" beside audit.dir.
	Dir string `json:"dir"`
	// KeepText keeps typed, pasted and filled text in clear in the steps (request_text); by default a
	// recording has only its length and HMAC, like the audit log.
	KeepText bool `json:"keep_text"`
	// Screenshots takes a JPEG after each step (the next step's before), scaled to ScreenshotMaxEdge.
	Screenshots bool `json:"screenshots"`
	// ScreenshotMaxEdge bounds the longer edge of screenshots (64..4096); 0: DefaultScreenshotMaxEdge.
	ScreenshotMaxEdge int32 `json:"screenshot_max_edge"`
	// A11yText keeps the accessibility text of each step's target window (AT-SPI) or tab after the step, as a
	// detached snapshot's compact text within A11yMaxBytes, taken off the step's path.
	A11yText bool `json:"a11y_text"`
	// A11yMaxBytes is the snapshot budget of each step's text (2048..65536); 0: DefaultA11yMaxBytes.
	A11yMaxBytes int32 `json:"a11y_max_bytes"`
	// MaxAge removes sealed recordings older than this; 0: kept.
	MaxAge Duration `json:"max_age"`
	// MaxBytes removes the oldest sealed recordings while all take more; 0: no bound.
	MaxBytes int64 `json:"max_bytes"`
}

// DefaultScreenshotMaxEdge is the longer edge of recording screenshots when the config names none.
const DefaultScreenshotMaxEdge = 640

// Bounds of a step's accessibility text (Recording.A11yMaxBytes).
const (
	DefaultA11yMaxBytes = 4096
	MinA11yMaxBytes     = 2048
	MaxA11yMaxBytes     = 65536
)

// A11yBudget is the snapshot budget of a step's accessibility text.
func (r Recording) A11yBudget() int32 {
	if r.A11yMaxBytes == 0 {
		return DefaultA11yMaxBytes
	}
	return r.A11yMaxBytes
}

// Records reports whether the policy records a principal's work on a guest.
func (r Recording) Records(principal, guest string) bool {
	return matchAny(r.Principals, principal) || matchAny(r.Guests, guest)
}

func matchAny(globs []string, name string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

// RecordingDir is where the recordings live.
func (c *Config) RecordingDir() string {
	if c.Recording.Dir != "" {
		return c.Recording.Dir
	}
	return filepath.Join(filepath.Dir(filepath.Clean(c.Audit.Dir)), "recordings")
}

// validateRecording records the recording section's violations.
func (c *Config) validateRecording(v *errdefs.Violations) {
	r := &c.Recording
	for i, g := range r.Principals {
		if _, err := path.Match(g, ""); err != nil {
			v.Addf(fmt.Sprintf("recording.principals[%d]", i), "bad glob: %v", err)
		}
	}
	for i, g := range r.Guests {
		if _, err := path.Match(g, ""); err != nil {
			v.Addf(fmt.Sprintf("recording.guests[%d]", i), "bad glob: %v", err)
		}
	}
	if e := r.ScreenshotMaxEdge; e != 0 && (e < 64 || e > 4096) {
		v.Addf("recording.screenshot_max_edge", "must be 64..4096, got %d", e)
	}
	if b := r.A11yMaxBytes; b != 0 && (b < MinA11yMaxBytes || b > MaxA11yMaxBytes) {
		v.Addf("recording.a11y_max_bytes", "must be %d..%d, got %d", MinA11yMaxBytes, MaxA11yMaxBytes, b)
	}
	if r.MaxAge < 0 {
		v.Addf("recording.max_age", "must not be negative")
	}
	if r.MaxBytes < 0 {
		v.Addf("recording.max_bytes", "must not be negative")
	}
}
