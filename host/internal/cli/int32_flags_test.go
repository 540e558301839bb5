package cli

import (
	"strings"
	"testing"
)

// TestInt32FlagsOutOfRange: a numeric flag whose value does not fit the request's int32 field is a usage error
// naming the flag, with nothing sent; it is not wrapped around into another, valid value (-count 4294967298
// was a double click, -quality 4294967376 quality 80).
func TestInt32FlagsOutOfRange(t *testing.T) {
	f := startFakeBroker(t)
	for _, tc := range []struct {
		flag string
		args []string
	}{
		{"count", []string{"act", "-s", "s-1", "click", "10", "20", "-count", "4294967298"}},
		{"repeat", []string{"act", "-s", "s-1", "key", "a", "-repeat", "4294967297"}},
		{"delay", []string{"act", "-s", "s-1", "type", "hi", "-delay", "4294967306"}},
		{"step-delay", []string{"act", "-s", "s-1", "drag", "1", "2", "3", "4", "-step-delay", "-4294967286"}},
		{"quality", []string{"screenshot", "-s", "s-1", "-o", "-", "-jpeg", "-quality", "4294967376"}},
		{"max-edge", []string{"screenshot", "-s", "s-1", "-o", "-", "-max-edge", "4294968320"}},
		{"page-size", []string{"sessions", "list", "-page-size", "4294967301"}},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			before := len(f.requests())
			code, stdout, stderr := f.run(t, "", nil, tc.args...)
			if code != ExitUsage || !strings.Contains(stderr, "-"+tc.flag) {
				t.Errorf("exit %d, want %d naming -%s; stdout %q stderr:\n%s", code, ExitUsage, tc.flag, stdout, stderr)
			}
			if sent := f.requests()[before:]; len(sent) != 0 {
				t.Errorf("sent %v", sent)
			}
		})
	}
}
