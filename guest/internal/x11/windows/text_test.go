package windows

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLegacyText(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		compound bool
		want     string
	}{
		{"ascii string", "plain", false, "plain"},
		{"latin1 string", "caf\xe9", false, "café"},
		{"compound latin1", "w\xefndow", true, "wïndow"},
		{"compound utf8 segment", "beta w\xefndow \x1b%G✓ 漢字\x1b%@ end", true, "beta wïndow ✓ 漢字 end"},
		{"compound designations", "\x1b(Bab\x1b-Acd\xe9", true, "abcdé"},
		{"unknown charset dropped", "a\x1b$(Bxx\x1b(Bb", true, "ab"},
		{"truncated escape", "a\x1b", true, "a"},
		{"bad utf8 in segment", "\x1b%G\xff\x1b%@", true, "\ufffd"},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, legacyText([]byte(tc.in), tc.compound)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
