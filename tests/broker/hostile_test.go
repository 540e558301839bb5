package broker_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// hugeDrag is an Act dragging along n points.
func hugeDrag(session string, n int) *brokerv1.ActRequest {
	path := make([]*agentv1.Point, n)
	for i := range path {
		path[i] = &agentv1.Point{X: int32(i % 1000), Y: int32(i % 700)}
	}
	return act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Drag{Drag: &agentv1.Drag{Path: path}}}, session)
}

// deepGroup is an Act request with a 100,000-deep nested group in an unknown field.
func deepGroup(session string) []byte {
	b, _ := proto.Marshal(act(&agentv1.ActRequest{Action: &agentv1.ActRequest_Wait{Wait: &agentv1.Wait{}}}, session))
	b = append(b, bytes.Repeat([]byte{0xcb, 0x06}, 100000)...)
	return append(b, bytes.Repeat([]byte{0xcc, 0x06}, 100000)...)
}

// TestHostileInputBounded drives the real broker (and agent) with the hostile requests of issue 11: a
// 1,000,000-point drag is refused with INVALID_ARGUMENT naming the path, and its audit record is bounded (the
// path kept as its element count, size and keyed hash); ListAuditRecords and `glovebox audit tail` still
// read the log; a 100,000-deep nested group is INVALID_ARGUMENT at the broker and at the agent, not INTERNAL.
// Before: the drag's refusal wrote a 19 MB line that made ListAuditRecords fail with RESOURCE_EXHAUSTED,
// and the deep group was INTERNAL "cannot parse".
func TestHostileInputBounded(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb", "openbox")
	a := agenttest.Start(t, agenttest.Options{})
	b := startBroker(t, map[string]string{"vm1": "unix://" + a.Socket})
	ctx := context.Background()
	cc := brokerv1.NewComputerServiceClient(b.Conn)
	s := b.session(t, "vm1")

	_, err := cc.Act(ctx, hugeDrag(s, 1000000))
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "request.action.drag.path") {
		t.Fatalf("1,000,000-point drag: %v, want INVALID_ARGUMENT naming request.action.drag.path", err)
	}
	var drag *brokerv1.AuditRecord
	for _, rec := range brokertest.AuditRecords(t, b.AuditDir, "vm1") {
		if rec.GetRpc() == "/glovebox.broker.v1.ComputerService/Act" && rec.GetCode() == "INVALID_ARGUMENT" {
			drag = rec
		}
	}
	files, _ := os.ReadDir(b.AuditDir + "/vm1")
	for _, f := range files {
		data, _ := os.ReadFile(b.AuditDir + "/vm1/" + f.Name())
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(line) > 64<<10 {
				t.Errorf("%s: a line of %d bytes, want at most 64 KiB", f.Name(), len(line))
			}
		}
	}
	// The path was cut to wirecodec.MaxListElements before decoding; what was decoded is kept as its count,
	// size and keyed hash.
	path := drag.GetArgs().GetFields()["drag"].GetStructValue().GetFields()["path"].GetStructValue().GetFields()
	if path["elements"].GetNumberValue() != 10000 || path["size"].GetNumberValue() == 0 || len(path["hmac_sha256"].GetStringValue()) != 64 {
		t.Errorf("the drag's path in the audit record = %v, want elements 10000, size and hmac_sha256", path)
	}

	raw := deepGroup(s)
	var out []byte
	err = b.Conn.Invoke(ctx, "/glovebox.broker.v1.ComputerService/Act", raw, &out, grpc.ForceCodecV2(rawCodec{}))
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("broker, 100,000-deep group: %v, want INVALID_ARGUMENT", err)
	}
	agentRaw, _ := proto.Marshal(&agentv1.ActRequest{Owner: "me", Action: &agentv1.ActRequest_Wait{Wait: &agentv1.Wait{}}})
	agentRaw = append(append(agentRaw, bytes.Repeat([]byte{0xcb, 0x06}, 100000)...), bytes.Repeat([]byte{0xcc, 0x06}, 100000)...)
	err = a.DialUnix(t).Invoke(ctx, "/glovebox.agent.v1.ActService/Act", agentRaw, &out, grpc.ForceCodecV2(rawCodec{}))
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("agent, 100,000-deep group: %v, want INVALID_ARGUMENT", err)
	}

	ac := brokerv1.NewAuditServiceClient(b.Conn)
	if _, err := ac.ListAuditRecords(ctx, &brokerv1.ListAuditRecordsRequest{Guest: "vm1", PageSize: 1000}); err != nil {
		t.Errorf("ListAuditRecords after the hostile requests: %v", err)
	}
	code, stdout, stderr := glovebox(t, "", "-broker", "unix://"+b.Socket, "audit", "tail", "-guest", "vm1", "-n", "50")
	if code != 0 || !strings.Contains(stdout, "INVALID_ARGUMENT") {
		t.Errorf("glovebox audit tail: exit %d\n%s%s", code, stdout, stderr)
	}
}

// BenchmarkHostileDrag puts what refusing a 1,000,000-point drag costs (the round trip from the client to
// the broker's INVALID_ARGUMENT, upload included) beside what the sender spends marshalling it, in one run.
// Before wirecodec counted lists on the wire, the broker decoded and redacted every point: ~1.9 s a refusal
// against a ~0.2 s marshal.
func BenchmarkHostileDrag(b *testing.B) {
	testenv.NeedCommands(b, "Xvfb", "openbox")
	a := agenttest.Start(b, agenttest.Options{})
	p := startBroker(b, map[string]string{"vm1": "unix://" + a.Socket})
	ctx := context.Background()
	req := hugeDrag(p.session(b, "vm1"), 1000000)
	raw, err := proto.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("sender-marshal", func(b *testing.B) {
		for b.Loop() {
			if _, err := proto.Marshal(req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("refusal-round-trip", func(b *testing.B) {
		for b.Loop() {
			var out []byte
			err := p.Conn.Invoke(ctx, "/glovebox.broker.v1.ComputerService/Act", raw, &out, grpc.ForceCodecV2(rawCodec{}))
			if status.Code(err) != codes.InvalidArgument {
				b.Fatalf("drag: %v", err)
			}
		}
	})
}
