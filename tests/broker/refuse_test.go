package broker_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/agenttest"
)

// rawCodec sends pre-encoded request bytes, which a generated client refuses to encode when a string
// holds invalid UTF-8, and keeps the response bytes.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(v.([]byte))}, nil
}
func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*(v.(*[]byte)) = data.Materialize()
	return nil
}
func (rawCodec) Name() string { return "proto" }

// withInvalidUTF8 encodes m and replaces the marker "\x00BAD" (4 bytes, inside one string field) with 4
// bytes that are not UTF-8, keeping every length prefix right.
func withInvalidUTF8(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(b, []byte("\x00BAD")) != 1 {
		t.Fatalf("marker not found once in %x", b)
	}
	return bytes.Replace(b, []byte("\x00BAD"), []byte{0xff, 0xfe, 0xc3, 0x28}, 1)
}

// TestBadInputRefused: requests with bad fields, including invalid UTF-8 on the wire, are refused with
// INVALID_ARGUMENT naming the field in the broker's request (request.action...), nothing reaches the agent
// or the X server, and each refusal is one audit record with the INVALID_ARGUMENT outcome and no intent.
func TestBadInputRefused(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb", "openbox", "xdotool", "xclip")
	a := agenttest.Start(t, agenttest.Options{})
	b := startBroker(t, map[string]string{"vm1": "unix://" + a.Socket})
	ctx := context.Background()
	cc := brokerv1.NewComputerServiceClient(b.Conn)
	s := b.session(t, "vm1")
	if err := a.Desktop.Command("xdotool", "mousemove", "40", "40").Run(); err != nil {
		t.Fatal(err)
	}
	clip := a.Desktop.Command("xclip", "-selection", "clipboard")
	clip.Stdin = strings.NewReader("before")
	if err := clip.Run(); err != nil {
		t.Fatal(err)
	}
	actRPC, clipRPC := "/glovebox.broker.v1.ComputerService/Act", "/glovebox.broker.v1.ComputerService/WriteClipboard"
	move := func(x, y int32) *agentv1.ActRequest {
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{To: &agentv1.Point{X: x, Y: y}}}}
	}
	tests := []struct {
		name  string
		rpc   string
		call  func() error
		field string
	}{
		{"click count", actRPC, func() error {
			r := clickAt(100, 100)
			r.GetClick().Count = 7
			_, err := cc.Act(ctx, act(r, s))
			return err
		}, "request.action.click.count"},
		{"negative point", actRPC, func() error { _, err := cc.Act(ctx, act(move(-5, 100), s)); return err }, "request.action.mouse_move.to.x"},
		{"another owner", actRPC, func() error {
			r := move(100, 100)
			r.Owner = "someone-else"
			_, err := cc.Act(ctx, act(r, s))
			return err
		}, "request.owner"},
		{"no action", actRPC, func() error { _, err := cc.Act(ctx, act(&agentv1.ActRequest{}, s)); return err }, "request.action"},
		{"unknown key", actRPC, func() error {
			_, err := cc.Act(ctx, act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Key{Key: &agentv1.Key{Combo: "ctrl+nosuchkey"}}}, s))
			return err
		}, "request.action.key.combo"},
		{"unknown selection", clipRPC, func() error {
			_, err := cc.WriteClipboard(ctx, &brokerv1.WriteClipboardRequest{SessionId: s, Request: &agentv1.WriteClipboardRequest{Selection: 99, Text: "x"}})
			return err
		}, "request.selection"},
		{"invalid UTF-8 typed text", actRPC, func() error {
			raw := withInvalidUTF8(t, act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: "typed \x00BAD text"}}}, s))
			var out []byte
			return b.Conn.Invoke(ctx, actRPC, raw, &out, grpc.ForceCodecV2(rawCodec{}))
		}, "request.action.type.text"},
		{"invalid UTF-8 clipboard text", clipRPC, func() error {
			raw := withInvalidUTF8(t, &brokerv1.WriteClipboardRequest{SessionId: s, Request: &agentv1.WriteClipboardRequest{Text: "clip \x00BAD"}})
			var out []byte
			return b.Conn.Invoke(ctx, clipRPC, raw, &out, grpc.ForceCodecV2(rawCodec{}))
		}, "request.text"},
	}
	var wantRPCs []string
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if status.Code(err) != codes.InvalidArgument {
				t.Fatalf("got %v, want INVALID_ARGUMENT", err)
			}
			var br *errdefs.BadRequest
			if !errors.As(errgrpc.FromError(err), &br) {
				t.Fatalf("no field violations in %v", err)
			}
			var fields []string
			for _, v := range br.Violations {
				fields = append(fields, v.Field)
			}
			if diff := cmp.Diff([]string{tc.field}, fields); diff != "" {
				t.Errorf("violated fields (-want +got):\n%s", diff)
			}
		})
		wantRPCs = append(wantRPCs, tc.rpc)
	}

	// Nothing done: the pointer and the clipboard are as they were, and the agent saw no request of the session.
	if out, err := a.Desktop.Command("xdotool", "getmouselocation").Output(); err != nil || !strings.HasPrefix(string(out), "x:40 y:40 ") {
		t.Errorf("pointer after refused requests: %s %v", out, err)
	}
	if out, err := a.Desktop.Command("xclip", "-o", "-selection", "clipboard").Output(); err != nil || string(out) != "before" {
		t.Errorf("clipboard after refused requests: %q %v", out, err)
	}
	if strings.Contains(a.Log.String(), s) {
		t.Errorf("the agent received a request of session %s", s)
	}

	// Audited: one COMPLETE record per refusal, INVALID_ARGUMENT, and no intent.
	recs, err := brokerv1.NewAuditServiceClient(b.Conn).ListAuditRecords(ctx, &brokerv1.ListAuditRecordsRequest{Guest: "vm1", SessionId: s, PageSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var gotRPCs []string
	for _, r := range recs.GetRecords() {
		if r.GetRpc() != actRPC && r.GetRpc() != clipRPC {
			continue
		}
		gotRPCs = append(gotRPCs, r.GetRpc())
		if r.GetPhase() != brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE || r.GetCode() != "INVALID_ARGUMENT" {
			t.Errorf("audit seq %d: %v %s, want a COMPLETE INVALID_ARGUMENT refusal", r.GetSeq(), r.GetPhase(), r.GetCode())
		}
	}
	if diff := cmp.Diff(wantRPCs, gotRPCs); diff != "" {
		t.Errorf("audited refusals (-want +got):\n%s", diff)
	}
}
