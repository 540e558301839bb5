package recording

import (
	"encoding/json"
	"time"
)

// Step is one line of steps.jsonl: one mutation as the broker ran it. The schema is in docs/RECORDINGS.md
// (and docs/recording-step.schema.json); fields are only added, never renamed.
type Step struct {
	// Index counts the recording's steps from 0.
	Index int `json:"index"`
	// Time is when the broker received the request.
	Time time.Time `json:"time"`
	// Source is AGENT (a session) or HUMAN (the console).
	Source    string `json:"source"`
	Principal string `json:"principal"`
	SessionID string `json:"session_id,omitempty"`
	// RPC is the broker RPC (or console input) the step came through.
	RPC string `json:"rpc"`
	// Action is the action's field name in the agent's ActRequest ("click", "type", "element_click"), or
	// the RPC's last part for other mutations.
	Action string `json:"action"`
	// Request is the agent request as sent, redacted like the audit record's args: typed, pasted and filled
	// text is {"length", "hmac"}.
	Request json.RawMessage `json:"request"`
	// RequestText is the agent request with its text in clear, only when the policy keeps text.
	RequestText json.RawMessage `json:"request_text,omitempty"`
	// Target is the frozen target the broker checked and the agent acted on (protojson of FrozenTarget);
	// its source says how it was chosen.
	Target       json.RawMessage `json:"target,omitempty"`
	TargetSource string          `json:"target_source,omitempty"`
	// Code is the outcome ("OK" or a gRPC code name) and Reason the error reason.
	Code   string `json:"code"`
	Reason string `json:"reason,omitempty"`
	// Effect is the agent's answer's effect (an Effect enum name: EFFECT_DONE, EFFECT_VERIFIED, ...), when
	// it answered.
	Effect string `json:"effect,omitempty"`
	// Pointer is where the pointer was after the action, in root-window pixels, when the agent said.
	Pointer *Point `json:"pointer,omitempty"`
	// DurationUs is the broker's time for the step, from receipt to the outcome record.
	DurationUs int64 `json:"duration_us"`
	// AuditSeq is the seq of the step's outcome record in the guest's audit log.
	AuditSeq uint64 `json:"audit_seq"`
	// Element is the stable description of the element an element action named (from the session's
	// snapshot), for a replay to find it again on another desktop; absent when the snapshot was not seen.
	Element *Element `json:"element,omitempty"`
	// Tab is the tab a page step acted on, with its URL and title as the session last listed them.
	Tab *TabDesc `json:"tab,omitempty"`
	// Before and After name the step's screenshots in the directory (JPEG, scaled), when the policy takes
	// them: After is captured right after the agent answered, off the step's path, and Before is the
	// previous step's After (the first step's is captured when the recording starts). A name whose capture
	// failed has no file; images.jsonl gives each file's geometry.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// A11yAfter names the file with the accessibility text of the step's target window or tab after the step
	// (A11yName), when the policy takes it and the step named a window, an app or a tab: read off the step's
	// path, so a later step may already show in it. A name without a file: the read failed, or a later step's
	// read replaced it (a11y.jsonl lists the files written). Untrusted text from the guest.
	A11yAfter string `json:"a11y_after,omitempty"`
}

// Element describes an element (of an app's accessibility tree, or of a page for a page step's ref locator)
// independently of its ref: its role and name, the roles and names of its
// ancestors from the root of the snapshot (root first), and the application. Ref and SnapshotID are the
// recorded ones, for reference only: a replay never uses them. Name, App and the path names are untrusted
// text from the guest.
type Element struct {
	AppID      string     `json:"app_id,omitempty"`
	App        string     `json:"app,omitempty"`
	Role       string     `json:"role"`
	Name       string     `json:"name"`
	Path       []PathStep `json:"path"`
	Ref        string     `json:"ref,omitempty"`
	SnapshotID string     `json:"snapshot_id,omitempty"`
}

// PathStep is one ancestor in an Element's path.
type PathStep struct {
	Role string `json:"role"`
	Name string `json:"name"`
}

// Point is a screen point in root-window pixels.
type Point struct {
	X int32 `json:"x"`
	Y int32 `json:"y"`
}

// ImagesFile lists the geometry of each screenshot written, one Image a line.
const ImagesFile = "images.jsonl"

// Image is the geometry of one screenshot file: a screen point (x, y) is the image point
// ((x - region_x) * scale, (y - region_y) * scale).
type Image struct {
	Name    string  `json:"name"`
	Width   int32   `json:"width"`
	Height  int32   `json:"height"`
	Scale   float64 `json:"scale"`
	RegionX int32   `json:"region_x"`
	RegionY int32   `json:"region_y"`
}
