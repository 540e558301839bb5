package audit

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"
)

// TestRedactTextFields pins the fields always redacted and checks that each named field exists and is a
// string, so a rename in the .proto cannot silently turn redaction off.
func TestRedactTextFields(t *testing.T) {
	want := []string{
		"glovebox.agent.v1.ActResponse.value",
		"glovebox.agent.v1.DropFile.sha256",
		"glovebox.agent.v1.DroppedFile.sha256",
		"glovebox.agent.v1.ElementSetValue.text",
		"glovebox.agent.v1.Fill.text",
		"glovebox.agent.v1.PageType.text",
		"glovebox.agent.v1.Paste.html",
		"glovebox.agent.v1.Paste.text",
		"glovebox.agent.v1.PasteTextRequest.text",
		"glovebox.agent.v1.ReadClipboardResponse.text",
		"glovebox.agent.v1.ReadFileResponse.sha256",
		"glovebox.agent.v1.SetValue.value",
		"glovebox.agent.v1.TextMatch.prefix",
		"glovebox.agent.v1.TextMatch.suffix",
		"glovebox.agent.v1.TextMatch.text",
		"glovebox.agent.v1.TypeText.text",
		"glovebox.agent.v1.WriteClipboardRequest.text",
	}
	var got []string
	for name := range textFields {
		got = append(got, string(name))
	}
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("text fields (-want +got):\n%s", diff)
	}
	for name := range mergeSets(textFields, safeFields) {
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if fd, ok := d.(protoreflect.FieldDescriptor); !ok || fd.Kind() != protoreflect.StringKind {
			t.Errorf("%s is not a string field", name)
		}
	}
}

func mergeSets(a, b map[protoreflect.FullName]bool) map[protoreflect.FullName]bool {
	m := map[protoreflect.FullName]bool{}
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return m
}

func mustStruct(t *testing.T, js string) *structpb.Struct {
	t.Helper()
	s := &structpb.Struct{}
	if err := protojson.Unmarshal([]byte(js), s); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return s
}

func TestRedact(t *testing.T) {
	long := strings.Repeat("L", maxClearString+1)
	mac := func(s string) string { return testKey.mac(s) }
	tests := []struct {
		name string
		msg  proto.Message
		want string
	}{
		{"typed text", &brokerv1.ActRequest{SessionId: "s1", Request: &agentv1.ActRequest{
			Owner: "s1", Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: "pässword", DelayMs: 5}},
		}}, `{"session_id":"s1","request":{"owner":"s1","type":{"delay_ms":5,"text":{"length":9,"hmac_sha256":"` + mac("pässword") + `"}}}}`},
		{"empty text stays absent", &agentv1.TypeText{}, `{}`},
		{"nil message", (*brokerv1.ActRequest)(nil), `{}`},
		{"clipboard write", &brokerv1.WriteClipboardRequest{SessionId: "s1", Request: &agentv1.WriteClipboardRequest{
			Owner: "s1", Text: "x",
		}}, `{"session_id":"s1","request":{"owner":"s1","text":{"length":1,"hmac_sha256":"` + mac("x") + `"}}}`},
		{"clipboard read", &brokerv1.ReadClipboardResponse{AuditSeq: 3, Response: &agentv1.ReadClipboardResponse{
			Text: "copied", Format: "text/plain",
		}}, `{"audit_seq":"3","response":{"format":"text/plain","text":{"length":6,"hmac_sha256":"` + mac("copied") + `"}}}`},
		{"image bytes dropped", &agentv1.CaptureScreenshotResponse{FrameSeq: 2, Image: &agentv1.Image{
			Width: 2, Height: 1, Scale: 1, Data: []byte("\x89PNG...."),
		}}, `{"frame_seq":"2","image":{"width":2,"height":1,"scale":1}}`},
		{"long unlisted string", &agentv1.ActRequest{Owner: "o", RequestId: long},
			`{"owner":"o","request_id":{"length":257,"hmac_sha256":"` + mac(long) + `"}}`},
		{"long list element", &agentv1.Click{Modifiers: []string{"ctrl", long}},
			`{"modifiers":["ctrl",{"length":257,"hmac_sha256":"` + mac(long) + `"}]}`},
		{"long safe field kept", &agentv1.FrozenTarget{WindowTitle: long}, `{"window_title":"` + long + `"}`},
		{"long string inside a Struct", &brokerv1.AuditRecord{Args: &structpb.Struct{Fields: map[string]*structpb.Value{
			"a": structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewStringValue(long), structpb.NewStringValue("short")}}),
		}}}, `{"args":{"a":[{"length":257,"hmac_sha256":"` + mac(long) + `"},"short"]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := proto.Clone(tt.msg)
			got := Redact(testKey, tt.msg)
			if diff := cmp.Diff(mustStruct(t, tt.want), got, protocmp.Transform()); diff != "" {
				t.Errorf("Redact (-want +got):\n%s", diff)
			}
			if !proto.Equal(before, tt.msg) {
				t.Error("Redact modified its argument")
			}
		})
	}
}

// TestCanariesNeverWritten appends the records the broker writes for typing, pasting and clipboard reads
// and writes, then reads the files: no canary appears, and Prove finds each one with the key.
func TestCanariesNeverWritten(t *testing.T) {
	canaries := map[string]proto.Message{
		"CANARY-typed-7f3a": &brokerv1.ActRequest{SessionId: "s1", Request: &agentv1.ActRequest{
			Owner: "s1", Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: "CANARY-typed-7f3a"}}}},
		"CANARY-pasted-91c2": &brokerv1.WriteClipboardRequest{SessionId: "s1", Request: &agentv1.WriteClipboardRequest{
			Owner: "s1", Text: "CANARY-pasted-91c2"}},
		"CANARY-clipboard-e5d0": &brokerv1.ReadClipboardResponse{Response: &agentv1.ReadClipboardResponse{
			Text: "CANARY-clipboard-e5d0"}},
		"CANARY-long-" + strings.Repeat("z", 300): &agentv1.ActRequest{RequestId: "CANARY-long-" + strings.Repeat("z", 300)},
	}
	l, dir := openLog(t, Options{})
	var recs []*brokerv1.AuditRecord
	for canary, msg := range canaries {
		rec := &brokerv1.AuditRecord{Guest: "vm1", Phase: brokerv1.AuditPhase_AUDIT_PHASE_COMPLETE, Args: l.Redact(msg)}
		if _, err := l.Append(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
		if paths := Prove(testKey, canary, rec); len(paths) != 1 {
			t.Errorf("Prove(%.20s): %v, want one path", canary, paths)
		}
		if paths := Prove(testKey, canary+"x", rec); len(paths) != 0 {
			t.Errorf("Prove of another text matched %v", paths)
		}
		if paths := Prove(Key(bytes.Repeat([]byte{1}, KeySize)), canary, rec); len(paths) != 0 {
			t.Errorf("Prove with another key matched %v", paths)
		}
	}
	l.Close()
	var all []byte
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			all = append(all, b...)
		}
		return nil
	})
	if len(all) == 0 {
		t.Fatal("no audit bytes written")
	}
	for canary := range canaries {
		if bytes.Contains(all, []byte("CANARY")) {
			t.Errorf("canary %.20s found in the audit files", canary)
		}
	}
	if got := Prove(testKey, "CANARY-typed-7f3a", &brokerv1.AuditRecord{Args: Redact(testKey, canaries["CANARY-typed-7f3a"])}); !cmp.Equal(got, []string{"request.type.text"}) {
		t.Errorf("Prove path = %v, want [request.type.text]", got)
	}
}

// TestRedactMatchesProtojson fills every message of the agent and broker APIs (each oneof member in turn)
// and checks that Redact's direct walk gives the Struct of the reference protojson round trip.
func TestRedactMatchesProtojson(t *testing.T) {
	var msgs []protoreflect.MessageDescriptor
	for _, fd := range []protoreflect.FileDescriptor{
		agentv1.File_glovebox_agent_v1_act_proto, agentv1.File_glovebox_agent_v1_agent_proto,
		agentv1.File_glovebox_agent_v1_clipboard_proto, agentv1.File_glovebox_agent_v1_observe_proto,
		agentv1.File_glovebox_agent_v1_common_proto, brokerv1.File_glovebox_broker_v1_audit_proto,
		brokerv1.File_glovebox_broker_v1_computer_proto, brokerv1.File_glovebox_broker_v1_session_proto,
		brokerv1.File_glovebox_broker_v1_guest_proto, brokerv1.File_glovebox_broker_v1_control_proto,
	} {
		for i := 0; i < fd.Messages().Len(); i++ {
			msgs = append(msgs, fd.Messages().Get(i))
		}
	}
	for _, md := range msgs {
		for variant := range 4 {
			mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
			if err != nil {
				t.Fatal(err)
			}
			m := mt.New()
			fill(m, variant, 3)
			want := redactViaJSON(testKey, m.Interface())
			got := Redact(testKey, m.Interface())
			if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
				t.Errorf("%s variant %d (-protojson +Redact):\n%s", md.FullName(), variant, diff)
			}
		}
	}
}

// fill sets every field of m to a value that is not the default, choosing oneof member variant (mod count).
func fill(m protoreflect.Message, variant, depth int) {
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if o := fd.ContainingOneof(); o != nil && !o.IsSynthetic() && o.Fields().Get(variant%o.Fields().Len()) != fd {
			continue
		}
		switch {
		case fd.IsList():
			l := m.Mutable(fd).List()
			for j := range 2 {
				if fd.Kind() == protoreflect.MessageKind {
					e := l.NewElement()
					if fillMessage(e.Message(), variant+j, depth-1) {
						l.Append(e)
					}
					continue
				}
				l.Append(scalar(fd, j))
			}
		case fd.IsMap():
			mp := m.Mutable(fd).Map()
			for j := range 2 {
				k := scalar(fd.MapKey(), j).MapKey()
				if fd.MapValue().Kind() == protoreflect.MessageKind {
					v := mp.NewValue()
					if fillMessage(v.Message(), variant, depth-1) {
						mp.Set(k, v)
					}
					continue
				}
				mp.Set(k, scalar(fd.MapValue(), j))
			}
		case fd.Kind() == protoreflect.MessageKind:
			v := m.NewField(fd)
			if fillMessage(v.Message(), variant, depth-1) {
				m.Set(fd, v)
			}
		default:
			m.Set(fd, scalar(fd, 1))
		}
	}
}

func fillMessage(m protoreflect.Message, variant, depth int) bool {
	switch name := m.Descriptor().FullName(); {
	case depth <= 0:
		return false
	case name == "google.protobuf.Timestamp" || name == "google.protobuf.Duration":
		m.Set(m.Descriptor().Fields().ByName("seconds"), protoreflect.ValueOfInt64(1700000000))
		m.Set(m.Descriptor().Fields().ByName("nanos"), protoreflect.ValueOfInt32(5000))
		return true
	case name.Parent() == "google.protobuf":
		return false
	}
	fill(m, variant, depth)
	return true
}

func scalar(fd protoreflect.FieldDescriptor, j int) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(true)
	case protoreflect.EnumKind:
		vals := fd.Enum().Values()
		return protoreflect.ValueOfEnum(vals.Get(vals.Len() - 1 - j%vals.Len()).Number())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(-7 - j))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(int64(-1<<40 - j))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(4000000000 + j))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(1)<<63 + uint64(j))
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(0.1 + float32(j))
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(0.3 + float64(j))
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(string(fd.Name()) + "-" + strings.Repeat("é", j*200))
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte{1, 2, byte(j)})
	}
	panic("unhandled kind " + fd.Kind().String())
}
