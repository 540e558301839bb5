package validate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

func TestClipboard(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want []errdefs.Violation
	}{
		{"read default", ReadClipboard(&agentv1.ReadClipboardRequest{}), nil},
		{"read primary", ReadClipboard(&agentv1.ReadClipboardRequest{Selection: agentv1.Selection_SELECTION_PRIMARY}), nil},
		{"read unknown selection", ReadClipboard(&agentv1.ReadClipboardRequest{Selection: 4}), vs("selection", "unknown value 4")},
		{"read xdnd", ReadClipboard(&agentv1.ReadClipboardRequest{Selection: agentv1.Selection_SELECTION_XDND}), nil},
		{"write xdnd", WriteClipboard(&agentv1.WriteClipboardRequest{Selection: agentv1.Selection_SELECTION_XDND, Text: "x"}),
			vs("selection", "XDND is read only (the drag source owns it)")},
		{"write empty", WriteClipboard(&agentv1.WriteClipboardRequest{}), nil},
		{"write any text", WriteClipboard(&agentv1.WriteClipboardRequest{Owner: "s-1", Text: "a\x00b\x07 中文 😀"}), nil},
		{"write 16 MiB", WriteClipboard(&agentv1.WriteClipboardRequest{Text: strings.Repeat("x", 16<<20)}), nil},
		{"write too big", WriteClipboard(&agentv1.WriteClipboardRequest{Text: strings.Repeat("x", 16<<20+1)}),
			vs("text", "must be at most 16777216 bytes, got 16777217")},
		{"write bad everything", WriteClipboard(&agentv1.WriteClipboardRequest{Owner: "me/you", Selection: -2, Text: "ok\xc3"}),
			vs("owner", "must be [A-Za-z0-9._:-] only, got byte 0x2f at 2", "selection", "unknown value -2", "text", "invalid UTF-8 at byte 2")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, violations(t, tt.err)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}
