package recording

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// scriptSteps is the STEPS list a script WriteScript wrote holds.
func scriptSteps(t *testing.T, script string) []scriptStep {
	t.Helper()
	_, rest, ok := strings.Cut(script, "STEPS = json.loads(")
	lit, _, ok2 := strings.Cut(rest, ")\n")
	if !ok || !ok2 {
		t.Fatalf("no STEPS in the script:\n%s", script)
	}
	var inner string
	if err := json.Unmarshal([]byte(lit), &inner); err != nil {
		t.Fatalf("STEPS literal %s: %v", lit, err)
	}
	var steps []scriptStep
	if err := json.Unmarshal([]byte(inner), &steps); err != nil {
		t.Fatalf("STEPS %s: %v", inner, err)
	}
	return steps
}

// TestScriptSteps: every step of the script has a list of texts to fill in (empty, not null: the script
// iterates it), and no step keeps the recorded owner, target or request id (a request id sent again would be
// answered from the broker's log without acting). The old code wrote null for a step without text, so the
// script stopped with a TypeError at its first step, and kept request_id.
func TestScriptSteps(t *testing.T) {
	steps := []Step{
		{Index: 0, Action: "click", RPC: "/glovebox.broker.v1.ComputerService/Act", Code: "OK",
			Request: []byte(`{"owner":"s-1","request_id":"r-1","target":{"window":{"window_id":7}},"click":{"at":{"x":5,"y":6}}}`)},
		{Index: 1, Action: "type", RPC: "/glovebox.broker.v1.ComputerService/Act", Code: "OK",
			Request: []byte(`{"type":{"text":{"length":5,"hmac_sha256":"ab"}}}`)},
	}
	var buf bytes.Buffer
	if n, err := WriteScript(&buf, "rec-x", "replay.py", steps); err != nil || n != 2 {
		t.Fatalf("WriteScript: %d, %v", n, err)
	}
	got := scriptSteps(t, buf.String())
	if len(got) != 2 {
		t.Fatalf("%d steps in the script, want 2", len(got))
	}
	for _, st := range got {
		if texts, ok := st[3].([]any); !ok {
			t.Errorf("step %v: texts %#v, want a list", st[0], st[3])
		} else if st[1] == "type" && len(texts) != 1 {
			t.Errorf("type step: texts %v, want the one HMAC'd text", texts)
		}
		req, _ := st[2].(map[string]any)
		for _, k := range []string{"owner", "target", "request_id", "requestId"} {
			if _, ok := req[k]; ok {
				t.Errorf("step %v keeps %s: %v", st[0], k, req)
			}
		}
	}
}
