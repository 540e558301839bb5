package bidi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"glovebox.dev/guest/internal/browser"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// The snapshot script is kept in each document it ran in, so the next snapshot of that document sends a call of
// a few bytes instead of the script's ~20 KB, and runs code Firefox has already compiled and warmed up (on the
// benchmark page: 9 against 28 ms in the page). It is a property of the page's window named snapName (random
// per agent process, so a page cannot have taken the name before), neither writable nor configurable, so the
// page cannot replace it; the page can call it, which tells it nothing it cannot read from its own DOM. A
// document that does not have it yet (new, or from before this agent process) gets it from the first snapshot:
// the call answers null, and a second call defines it and runs it.
var snapName = func() string {
	var b [8]byte
	rand.Read(b[:])
	return "__glovebox_snapshot_" + hex.EncodeToString(b[:])
}()

// snapCall is the expression that runs the kept snapshot script with the JSON arguments args: its answer is the
// script's JSON text, or, when the document has iframe elements (args.frames names them, see jsSnapshot), an
// array of that text and the window of each iframe element in node order (its browsing context; null when it
// shows none); null when the document does not have the script.
func snapCall(args string) string {
	return `((a) => {
  const f = window[` + jsonQuote(snapName) + `];
  if (!f) return null;
  const j = f(a), s = Symbol.for('glovebox.frames.' + a.frames), fr = document[s];
  if (!fr) return j;
  delete document[s];
  return [j, ...fr.map(e => e.contentWindow)];
})(` + args + `)`
}

// snapInstall defines the kept snapshot script in the document, then runs it as snapCall does.
func snapInstall(args string) string {
	return `if (!Object.prototype.hasOwnProperty.call(window, ` + jsonQuote(snapName) + `)) Object.defineProperty(window, ` + jsonQuote(snapName) +
		`, {value: ` + browser.Scripts.Snapshot + `});
` + snapCall(args)
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// snapResult is script.evaluate's answer to snapCall, decoded no further than needed: the script's answer is one
// JSON string, which is unquoted once and parsed once (BuildSnapshot).
type snapResult struct {
	Type   string `json:"type"`
	Result struct {
		Type  string          `json:"type"`
		Value json.RawMessage `json:"value"`
	} `json:"result"`
	ExceptionDetails *struct {
		Text string `json:"text"`
	} `json:"exceptionDetails"`
}

// remoteValue is one item of a serialized array: a string, a window ({context}) or null.
type remoteValue struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

// runSnapshot runs the snapshot script with the JSON arguments args in the page realm of browsing context ctxID
// and answers its JSON text and, when the document has iframe elements, the browsing context each shows in node
// order ("" for none). One round trip, two for a document that does not have the script yet.
func runSnapshot(ctx context.Context, c *conn, ctxID, args, what string) ([]byte, []string, error) {
	for _, expr := range []string{snapCall(args), snapInstall(args)} {
		var res snapResult
		if err := c.call(ctx, "script.evaluate", evaluateParams{Expression: expr, Target: scriptTarget{Context: ctxID}, ResultOwnership: "none"}, &res); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", what, err)
		}
		if res.Type == "exception" {
			text := ""
			if res.ExceptionDetails != nil {
				text = res.ExceptionDetails.Text
			}
			return nil, nil, errgrpc.WithMetadata(fmt.Errorf("%s: page script failed: %w", what, errdefs.ErrInternal),
				map[string]string{errgrpc.Untrusted("detail"): errgrpc.UntrustedValue(text)})
		}
		switch res.Result.Type {
		case "null":
			continue
		case "string":
			var answer string
			if err := json.Unmarshal(res.Result.Value, &answer); err != nil {
				return nil, nil, fmt.Errorf("%s: decode: %w: %w", what, errdefs.ErrInternal, err)
			}
			return []byte(answer), nil, nil
		case "array":
			var items []remoteValue
			if err := json.Unmarshal(res.Result.Value, &items); err != nil || len(items) == 0 || items[0].Type != "string" {
				return nil, nil, fmt.Errorf("%s: decode: %w: %v", what, errdefs.ErrInternal, err)
			}
			var answer string
			if err := json.Unmarshal(items[0].Value, &answer); err != nil {
				return nil, nil, fmt.Errorf("%s: decode: %w: %w", what, errdefs.ErrInternal, err)
			}
			frames := make([]string, len(items)-1)
			for i, it := range items[1:] {
				var w struct {
					Context string `json:"context"`
				}
				if it.Type == "window" && json.Unmarshal(it.Value, &w) == nil {
					frames[i] = w.Context
				}
			}
			return []byte(answer), frames, nil
		}
		return nil, nil, fmt.Errorf("%s: the page answered a %s: %w", what, res.Result.Type, errdefs.ErrInternal)
	}
	return nil, nil, fmt.Errorf("%s: the page does not keep the snapshot script: %w", what, errdefs.ErrInternal)
}
