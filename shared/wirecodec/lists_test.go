package wirecodec

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/validate"
)

// TestUnmarshalOversized: a list over MaxListElements and a string over its validate.StringBound are found
// on the wire and named; the message is decoded without them (the list cut, the string left out), so nothing
// of their size is allocated; a string within a large bound (clipboard text) is not refused.
func TestUnmarshalOversized(t *testing.T) {
	path := make([]*agentv1.Point, MaxListElements+5)
	for i := range path {
		path[i] = &agentv1.Point{X: 1, Y: 2}
	}
	long := strings.Repeat("x", validate.MaxStringBytes+1)
	tests := []struct {
		name  string
		m     proto.Message
		new   func() proto.Message
		field string
		check func(t *testing.T, m proto.Message)
	}{
		{"drag path", &agentv1.ActRequest{Owner: "o", Action: &agentv1.ActRequest_Drag{Drag: &agentv1.Drag{Path: path}}},
			func() proto.Message { return &agentv1.ActRequest{} }, "action.drag.path", func(t *testing.T, m proto.Message) {
				if n := len(m.(*agentv1.ActRequest).GetDrag().GetPath()); n != MaxListElements {
					t.Errorf("decoded %d points, want the first %d", n, MaxListElements)
				}
			}},
		{"typed text", &agentv1.ActRequest{Owner: "o", Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: long}}},
			func() proto.Message { return &agentv1.ActRequest{} }, "action.type.text", func(t *testing.T, m proto.Message) {
				if m.(*agentv1.ActRequest).GetOwner() != "o" || m.(*agentv1.ActRequest).GetType().GetText() != "" {
					t.Errorf("decoded %v, want the owner and no text", m)
				}
			}},
		{"broker request", &brokerv1.ActRequest{SessionId: "s", Request: &agentv1.ActRequest{Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: long}}}},
			func() proto.Message { return &brokerv1.ActRequest{} }, "request.action.type.text", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := proto.Marshal(tc.m)
			if err != nil {
				t.Fatal(err)
			}
			m := tc.new()
			if err := (Codec{}).Unmarshal(slice(raw), m); err != nil {
				t.Fatal(err)
			}
			payload, ok := unmark(m)
			br := &errdetails.BadRequest{}
			if !ok || proto.Unmarshal(payload, br) != nil {
				t.Fatalf("no mark")
			}
			var got []string
			for _, v := range br.GetFieldViolations() {
				got = append(got, v.GetField())
			}
			if diff := cmp.Diff([]string{tc.field}, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s\n%v", diff, br)
			}
			if tc.check != nil {
				tc.check(t, m)
			}
		})
	}
	clip, _ := proto.Marshal(&agentv1.WriteClipboardRequest{Owner: "o", Text: long})
	m := &agentv1.WriteClipboardRequest{}
	if err := (Codec{}).Unmarshal(slice(clip), m); err != nil || m.GetText() != long {
		t.Errorf("clipboard text of %d bytes: %v, want decoded", len(long), err)
	}
	if _, marked := unmark(m); marked {
		t.Errorf("clipboard text of %d bytes marked", len(long))
	}
}
