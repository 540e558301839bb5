package validate

import (
	"strings"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// TestTextCheckLinear: a largest valid type text made of U+FFFD (a legal character that looks like a decoding
// error) is checked in about the time of any other text of that size, not in time quadratic in its length.
func TestTextCheckLinear(t *testing.T) {
	n := MaxTypeBytes / len("\uFFFD")
	replacement := strings.Repeat("\uFFFD", n)
	plain := strings.Repeat("abc", n)
	typeReq := func(s string) *agentv1.ActRequest {
		return &agentv1.ActRequest{Owner: "o", Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: s}}}
	}
	cost := func(s string) time.Duration {
		best := time.Duration(1 << 62)
		for range 3 {
			start := time.Now()
			if err := ActRequest(typeReq(s)); err != nil {
				t.Fatalf("valid text refused: %v", err)
			}
			best = min(best, time.Since(start))
		}
		return best
	}
	plainCost, replCost := cost(plain), cost(replacement)
	// Both are one pass over 64 KiB; allow a wide margin for a loaded machine.
	if replCost > 20*plainCost+5*time.Millisecond {
		t.Errorf("checking %d U+FFFD took %v, %d ASCII triples %v: not linear", n, replCost, n, plainCost)
	}
	// A bad byte after them is still found, at its offset.
	bad := replacement[:len(replacement)-3] + "\xff"
	if err := ActRequest(typeReq(bad)); err == nil || !strings.Contains(err.Error(), "invalid UTF-8 at byte") {
		t.Errorf("invalid byte after U+FFFD: %v", err)
	}
}
