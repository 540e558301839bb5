package wirecodec

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/structpb"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
)

// shapes is a proto3 file with every shape the walker follows: nested, repeated, maps with string, integer
// and bool keys and message values, oneofs (named and type-only), proto3 optional, bytes and packed scalars.
const shapes = `
name: "shapes.proto" package: "wirecodec.test" syntax: "proto3"
message_type {
  name: "Leaf"
  field { name: "s" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "s" }
  field { name: "rs" number: 2 label: LABEL_REPEATED type: TYPE_STRING json_name: "rs" }
  field { name: "b" number: 3 label: LABEL_OPTIONAL type: TYPE_BYTES json_name: "b" }
  field { name: "nums" number: 4 label: LABEL_REPEATED type: TYPE_INT32 json_name: "nums" }
  field { name: "child" number: 5 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".wirecodec.test.Leaf" json_name: "child" }
}
message_type {
  name: "Root"
  field { name: "name" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "name" }
  field { name: "leaf" number: 2 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".wirecodec.test.Leaf" json_name: "leaf" }
  field { name: "leaves" number: 3 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".wirecodec.test.Leaf" json_name: "leaves" }
  field { name: "labels" number: 4 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".wirecodec.test.Root.LabelsEntry" json_name: "labels" }
  field { name: "by_id" number: 5 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".wirecodec.test.Root.ByIdEntry" json_name: "byId" }
  field { name: "flags" number: 6 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".wirecodec.test.Root.FlagsEntry" json_name: "flags" }
  field { name: "text" number: 7 label: LABEL_OPTIONAL type: TYPE_STRING oneof_index: 0 json_name: "text" }
  field { name: "node" number: 8 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".wirecodec.test.Leaf" oneof_index: 0 json_name: "node" }
  field { name: "word" number: 9 label: LABEL_OPTIONAL type: TYPE_STRING oneof_index: 1 json_name: "word" }
  field { name: "opt" number: 10 label: LABEL_OPTIONAL type: TYPE_STRING oneof_index: 2 proto3_optional: true json_name: "opt" }
  nested_type {
    name: "LabelsEntry" options { map_entry: true }
    field { name: "key" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "key" }
    field { name: "value" number: 2 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "value" }
  }
  nested_type {
    name: "ByIdEntry" options { map_entry: true }
    field { name: "key" number: 1 label: LABEL_OPTIONAL type: TYPE_SINT64 json_name: "key" }
    field { name: "value" number: 2 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".wirecodec.test.Leaf" json_name: "value" }
  }
  nested_type {
    name: "FlagsEntry" options { map_entry: true }
    field { name: "key" number: 1 label: LABEL_OPTIONAL type: TYPE_BOOL json_name: "key" }
    field { name: "value" number: 2 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "value" }
  }
  oneof_decl { name: "choice" }
  oneof_decl { name: "kind" }
  oneof_decl { name: "_opt" }
}
`

func shapesRoot(t testing.TB) protoreflect.MessageDescriptor {
	t.Helper()
	var fdp descriptorpb.FileDescriptorProto
	if err := prototext.Unmarshal([]byte(shapes), &fdp); err != nil {
		t.Fatal(err)
	}
	fd, err := protodesc.NewFile(&fdp, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fd.Messages().ByName("Root")
}

// wire builds message bytes field by field, so a test can put any bytes in a string field.
type wire []byte

func (w wire) str(n protowire.Number, s string) wire {
	return protowire.AppendString(protowire.AppendTag(w, n, protowire.BytesType), s)
}

func (w wire) msg(n protowire.Number, m wire) wire {
	return protowire.AppendBytes(protowire.AppendTag(w, n, protowire.BytesType), m)
}

func (w wire) varint(n protowire.Number, v uint64) wire {
	return protowire.AppendVarint(protowire.AppendTag(w, n, protowire.VarintType), v)
}

const bad = "ok\xff\xfebad" // invalid at byte 2

func TestRepairPaths(t *testing.T) {
	root := shapesRoot(t)
	badAt := func(field string, at int) errdefs.Violation {
		return errdefs.Violation{Field: field, Description: "must be valid UTF-8, got an invalid byte at " + strconv.Itoa(at)}
	}
	tests := []struct {
		name string
		msg  wire
		want []errdefs.Violation
	}{
		{"valid", wire{}.str(1, "héllo").msg(2, wire{}.str(1, "ok")), nil},
		{"top", wire{}.str(1, bad), []errdefs.Violation{badAt("name", 2)}},
		{"nested", wire{}.msg(2, wire{}.str(1, bad)), []errdefs.Violation{badAt("leaf.s", 2)}},
		{"deeper", wire{}.msg(2, wire{}.msg(5, wire{}.msg(5, wire{}.str(1, bad)))), []errdefs.Violation{badAt("leaf.child.child.s", 2)}},
		{"repeated string", wire{}.msg(2, wire{}.str(2, "a").str(2, bad).str(2, "\x80")),
			[]errdefs.Violation{badAt("leaf.rs[1]", 2), badAt("leaf.rs[2]", 0)}},
		{"repeated message, interleaved", wire{}.msg(3, wire{}.str(1, "a")).str(1, "n").msg(3, wire{}.str(1, bad)),
			[]errdefs.Violation{badAt("leaves[1].s", 2)}},
		{"map string value", wire{}.msg(4, wire{}.str(1, "gpu").str(2, bad)), []errdefs.Violation{badAt("labels[gpu]", 2)}},
		{"map odd key quoted", wire{}.msg(4, wire{}.str(1, "a b").str(2, bad)), []errdefs.Violation{badAt(`labels["a b"]`, 2)}},
		{"map value before key", wire{}.msg(4, wire{}.str(2, bad).str(1, "k")), []errdefs.Violation{badAt("labels[k]", 2)}},
		{"map bad key", wire{}.msg(4, wire{}.str(1, bad).str(2, "v")),
			[]errdefs.Violation{{Field: "labels", Description: "keys must be valid UTF-8, got an invalid byte at 2"}}},
		{"map int key, message value", wire{}.msg(5, wire{}.varint(1, protowire.EncodeZigZag(-7)).msg(2, wire{}.str(1, bad))),
			[]errdefs.Violation{badAt("by_id[-7].s", 2)}},
		{"map missing key", wire{}.msg(5, wire{}.msg(2, wire{}.str(2, bad))), []errdefs.Violation{badAt("by_id[0].rs[0]", 2)}},
		{"map bool key", wire{}.msg(6, wire{}.varint(1, 1).str(2, bad)), []errdefs.Violation{badAt("flags[true]", 2)}},
		{"oneof string", wire{}.str(7, bad), []errdefs.Violation{badAt("choice.text", 2)}},
		{"oneof message", wire{}.msg(8, wire{}.str(1, bad)), []errdefs.Violation{badAt("choice.node.s", 2)}},
		{"type-only oneof", wire{}.str(9, bad), []errdefs.Violation{badAt("word", 2)}},
		{"proto3 optional", wire{}.str(10, bad), []errdefs.Violation{badAt("opt", 2)}},
		{"bytes are not text", wire{}.msg(2, wire{}.str(3, bad)), nil},
		{"unknown field kept", wire{}.str(99, bad).str(1, bad), []errdefs.Violation{badAt("name", 2)}},
		{"several", wire{}.str(1, bad).msg(2, wire{}.str(1, "\xc3")).str(7, "x\xff"),
			[]errdefs.Violation{badAt("name", 2), badAt("leaf.s", 0), badAt("choice.text", 1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fixed, got, err := repair(tt.msg, root)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
			// The repaired copy decodes (TestRepairKeepsEverythingElse checks its contents).
			m := dynamicpb.NewMessage(root)
			if err := proto.Unmarshal(fixed, m); err != nil {
				t.Fatalf("repaired copy does not decode: %v", err)
			}
		})
	}
}

// TestRepairKeepsEverythingElse checks the repaired copy field by field against the message with the same
// strings repaired by hand.
func TestRepairKeepsEverythingElse(t *testing.T) {
	want := &agentv1.ActRequest{
		Owner:  "s\uFFFD1",
		Target: &agentv1.Target{Kind: &agentv1.Target_Display{Display: &agentv1.DisplayTarget{DisplayId: "\uFFFD"}}, Generation: 9},
		Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{
			At: &agentv1.Point{X: 3, Y: 4}, Count: 2, Modifiers: []string{"ctrl", "\uFFFDx"},
		}},
		Observe: &agentv1.ObserveAfter{QuietMs: 5},
	}
	raw, err := proto.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	// The same message with invalid strings: each U+FFFD (EF BF BD) becomes three invalid bytes, one run that
	// repairs to one U+FFFD, so no length changes.
	raw = []byte(strings.ReplaceAll(string(raw), "\uFFFD", "\xff\xfe\xfd"))
	fixed, found, err := repair(raw, want.ProtoReflect().Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	got := &agentv1.ActRequest{}
	if err := proto.Unmarshal(fixed, got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
		t.Errorf("repaired request (-want +got):\n%s", diff)
	}
	var fields []string
	for _, v := range found {
		fields = append(fields, v.Field)
	}
	if diff := cmp.Diff([]string{"owner", "target.display.display_id", "action.click.modifiers[1]"}, fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
}

// TestRepairWellKnownTypes walks a google.protobuf.Struct: a map of oneofs of nested structs and lists.
func TestRepairWellKnownTypes(t *testing.T) {
	// Struct{fields: {"a": Value{list_value: ListValue{values: [Value{string_value: "ok"}, Value{struct_value:
	// Struct{fields: {"b": Value{string_value: bad}}}}]}}}}
	inner := wire{}.msg(1, wire{}.str(1, "b").msg(2, wire{}.str(3, bad)))
	list := wire{}.msg(1, wire{}.str(3, "ok")).msg(1, wire{}.msg(5, inner))
	raw := wire{}.msg(1, wire{}.str(1, "a").msg(2, wire{}.msg(6, list)))
	_, found, err := repair(raw, (&structpb.Struct{}).ProtoReflect().Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	// google.protobuf.Value's oneof is named kind: it only says the value's type, as Target.kind does.
	want := []errdefs.Violation{{Field: "fields[a].list_value.values[1].struct_value.fields[b].string_value",
		Description: "must be valid UTF-8, got an invalid byte at 2"}}
	if diff := cmp.Diff(want, found); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

func TestRepairBrokerPaths(t *testing.T) {
	raw := wire{}.str(1, "s1").msg(2, wire{}.str(1, "o").msg(20, wire{}.str(1, bad)))
	_, found, err := repair(raw, (&brokerv1.ActRequest{}).ProtoReflect().Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]errdefs.Violation{{Field: "request.action.type.text", Description: "must be valid UTF-8, got an invalid byte at 2"}}, found); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	raw = wire{}.str(1, "g").msg(3, wire{}.str(1, "zone").str(2, bad))
	_, found, err = repair(raw, (&brokerv1.RegisterGuestRequest{}).ProtoReflect().Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]errdefs.Violation{{Field: "labels[zone]", Description: "must be valid UTF-8, got an invalid byte at 2"}}, found); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

func TestRepairBounded(t *testing.T) {
	var raw wire
	leaf := wire{}
	for range 25 {
		leaf = leaf.str(2, bad)
	}
	raw = raw.msg(2, leaf)
	_, found, err := repair(raw, shapesRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != MaxListed+1 {
		t.Fatalf("%d violations, want %d", len(found), MaxListed+1)
	}
	want := errdefs.Violation{Field: "leaf.rs[9]", Description: "15 more fields with invalid UTF-8 not listed"}
	if diff := cmp.Diff(want, found[MaxListed]); diff != "" {
		t.Errorf("last violation (-want +got):\n%s", diff)
	}
}

func TestRepairMalformed(t *testing.T) {
	root := shapesRoot(t)
	tests := []struct {
		name string
		raw  []byte
	}{
		{"truncated tag", []byte{0x80}},
		{"length past the end", wire{}.str(1, bad)[:4]},
		{"nested garbage", wire{}.msg(2, wire{0xff, 0xff})},
		{"field number 0", []byte{0x02, 0x00}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := repair(tt.raw, root); err == nil {
				t.Errorf("repair of malformed bytes succeeded")
			}
		})
	}
	// Nesting beyond the decoder's own limit is refused, not followed down the stack.
	deep := wire{}.str(1, bad)
	for range maxDepth + 1 {
		deep = wire{}.msg(5, deep)
	}
	if _, _, err := repair(wire{}.msg(2, deep), root); err == nil {
		t.Errorf("repair of a message nested %d deep succeeded", maxDepth+2)
	}
}

func TestKeyText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"gpu", "gpu"},
		{"a.b-c_d", "a.b-c_d"},
		{"", `""`},
		{"a b", `"a b"`},
		{"é", `"é"`},
		{strings.Repeat("x", 40), strings.Repeat("x", 32) + "..."},
		{strings.Repeat("é", 20), `"` + strings.Repeat("é", 16) + `"...`},
	}
	for _, tt := range tests {
		if got := keyText(tt.in); got != tt.want {
			t.Errorf("keyText(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
