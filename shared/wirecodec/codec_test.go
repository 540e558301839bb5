package wirecodec

import (
	"bytes"
	"errors"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/testing/protocmp"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	_ "glovebox.dev/proto/glovebox/broker/v1" // registers the broker's files for TestMarkFieldUnused
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

func slice(b []byte) mem.BufferSlice { return mem.BufferSlice{mem.SliceBuffer(b)} }

func marshal(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// typeText is an ActRequest typing text, on the wire, with text as it is (valid UTF-8 or not).
func typeText(text string) []byte {
	return wire{}.str(1, "s1").msg(20, wire{}.str(1, text))
}

func TestUnmarshalValidLikeDefault(t *testing.T) {
	reqs := []proto.Message{
		&agentv1.ActRequest{Owner: "s1", Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: "héllo 世界 😀"}}},
		&agentv1.WriteClipboardRequest{Text: strings.Repeat("x", 1<<20)},
		&agentv1.ActRequest{},
	}
	for _, want := range reqs {
		b := marshal(t, want)
		got := want.ProtoReflect().Type().New().Interface()
		if err := (Codec{}).Unmarshal(slice(b), got); err != nil {
			t.Fatalf("Unmarshal %T: %v", want, err)
		}
		if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
			t.Errorf("Unmarshal (-want +got):\n%s", diff)
		}
		if check(got) != nil {
			t.Errorf("valid %T is marked", want)
		}
		ours, err := (Codec{}).Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := defaultCodec.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ours.Materialize(), theirs.Materialize()) {
			t.Errorf("Marshal %T differs from the default codec", want)
		}
	}
}

func TestUnmarshalMarksInvalidUTF8(t *testing.T) {
	got := &agentv1.ActRequest{}
	if err := (Codec{}).Unmarshal(slice(typeText("a\xffb")), got); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if got.GetType().GetText() != "a\uFFFDb" {
		t.Errorf("repaired text = %q, want %q", got.GetType().GetText(), "a\uFFFDb")
	}
	err := check(got)
	var br *errdefs.BadRequest
	if !errors.As(err, &br) || !errors.Is(err, errdefs.ErrInvalidArgument) {
		t.Fatalf("check = %v, want a *errdefs.BadRequest", err)
	}
	want := []errdefs.Violation{{Field: "action.type.text", Description: "must be valid UTF-8, got an invalid byte at 1"}}
	if diff := cmp.Diff(want, br.Violations); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	// check took the mark: the message is as if decoded from repaired bytes.
	if u := got.ProtoReflect().GetUnknown(); len(u) != 0 {
		t.Errorf("unknown fields left after check: %x", u)
	}
	if check(got) != nil {
		t.Errorf("second check still finds a mark")
	}
}

// TestUnmarshalDropsClientMark: a client cannot forge a mark; the field is dropped, other unknown fields stay.
func TestUnmarshalDropsClientMark(t *testing.T) {
	forged := wire{}.str(1, "s1").str(MarkField, "\x0a\x05\x0a\x03abc").str(99, "kept")
	for name, raw := range map[string][]byte{
		"valid message":       forged,
		"with invalid string": forged.msg(20, wire{}.str(1, "\xff")),
	} {
		t.Run(name, func(t *testing.T) {
			got := &agentv1.ActRequest{}
			if err := (Codec{}).Unmarshal(slice(raw), got); err != nil {
				t.Fatal(err)
			}
			var fields []string
			if err := check(got); err != nil {
				var br *errdefs.BadRequest
				errors.As(err, &br)
				for _, v := range br.Violations {
					fields = append(fields, v.Field)
				}
			}
			if slices.Contains(fields, "abc") {
				t.Errorf("forged mark reported: %v", fields)
			}
			if u := got.ProtoReflect().GetUnknown(); !slices.Equal([]byte(u), []byte(wire{}.str(99, "kept"))) {
				t.Errorf("unknown fields after check = %x, want only field 99", u)
			}
		})
	}
}

// TestUnmarshalOtherErrors: wire data that cannot be decoded (the default codec's INTERNAL "cannot parse")
// is marked like invalid UTF-8, naming the top-level field, so it is INVALID_ARGUMENT too.
func TestUnmarshalOtherErrors(t *testing.T) {
	deep := bytes.Repeat(wire{0xcb, 0x06}, 100000) // group 105 starts, then as many ends
	deep = append(deep, bytes.Repeat(wire{0xcc, 0x06}, 100000)...)
	tests := map[string]struct {
		raw   []byte
		field string
	}{
		"truncated":                   {typeText("abc")[:5], "message"},
		"invalid UTF-8 and truncated": {append(typeText("a\xff"), 0x0a, 0x10, 'x'), "owner"},
		"nested length past the end":  {wire{}.msg(20, wire{0x0a, 0x05, 'a'}), "type"},
		"bad tag":                     {[]byte{0x00}, "message"},
		"100000-deep group":           {deep, "field 105"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if proto.Unmarshal(tc.raw, &agentv1.ActRequest{}) == nil {
				t.Fatal("the default codec decodes it")
			}
			m := &agentv1.ActRequest{}
			if err := (Codec{}).Unmarshal(slice(tc.raw), m); err != nil {
				t.Fatalf("Unmarshal = %v, want a marked message", err)
			}
			payload, ok := unmark(m)
			br := &errdetails.BadRequest{}
			if !ok || proto.Unmarshal(payload, br) != nil || len(br.GetFieldViolations()) != 1 || br.GetFieldViolations()[0].GetField() != tc.field {
				t.Errorf("mark = %v, want one violation naming %q", br, tc.field)
			}
		})
	}
	if err := (Codec{}).Unmarshal(slice(nil), "not a message"); err == nil {
		t.Errorf("Unmarshal into a string succeeded")
	}
}

// TestPathsAgreeWithValidate sets each string field of each agent request in turn to invalid UTF-8 and
// checks that the codec names it with a path shared/validate also reports for that request: the violation
// reads like the others whatever the field (oneof members, repeated elements, nested options).
func TestPathsAgreeWithValidate(t *testing.T) {
	validators := []struct {
		base  proto.Message
		check func(proto.Message) error
	}{
		{&agentv1.ActRequest{Owner: "s1"}, func(m proto.Message) error { return validate.ActRequest(m.(*agentv1.ActRequest)) }},
		{&agentv1.WriteClipboardRequest{}, func(m proto.Message) error { return validate.WriteClipboard(m.(*agentv1.WriteClipboardRequest)) }},
		{&agentv1.CaptureScreenshotRequest{}, func(m proto.Message) error { return validate.CaptureScreenshot(m.(*agentv1.CaptureScreenshotRequest)) }},
		{&agentv1.WatchScreenRequest{}, func(m proto.Message) error { return validate.WatchScreen(m.(*agentv1.WatchScreenRequest)) }},
		{&agentv1.GetBrowserRequest{}, func(m proto.Message) error { return validate.GetBrowser(m.(*agentv1.GetBrowserRequest)) }},
		{&agentv1.ListTabsRequest{}, func(m proto.Message) error { return validate.ListTabs(m.(*agentv1.ListTabsRequest)) }},
		{&agentv1.SnapshotTabRequest{}, func(m proto.Message) error { return validate.SnapshotTab(m.(*agentv1.SnapshotTabRequest)) }},
		{&agentv1.GetAppRequest{}, func(m proto.Message) error { return validate.GetApp(m.(*agentv1.GetAppRequest)) }},
		{&agentv1.SnapshotAppRequest{}, func(m proto.Message) error { return validate.SnapshotApp(m.(*agentv1.SnapshotAppRequest)) }},
		{&agentv1.SnapshotWindowRequest{}, func(m proto.Message) error { return validate.SnapshotWindow(m.(*agentv1.SnapshotWindowRequest)) }},
		{&agentv1.ExtractRequest{}, func(m proto.Message) error { return validate.Extract(m.(*agentv1.ExtractRequest)) }},
		{&agentv1.CaptureTabRequest{}, func(m proto.Message) error { return validate.CaptureTab(m.(*agentv1.CaptureTabRequest)) }},
	}
	// Long enough to break every length bound too, so validate reports fields it checks by length only.
	const n = 300
	invalid := strings.Repeat("\xff", n)
	placeholder := strings.Repeat("\uFFFD", n/3) // as many bytes, valid, to marshal and then swap
	seen := map[string]bool{}
	for _, v := range validators {
		for _, path := range stringPaths(v.base.ProtoReflect().Descriptor(), nil, nil) {
			name := string(v.base.ProtoReflect().Descriptor().Name()) + ":" + pathString(path)
			t.Run(name, func(t *testing.T) {
				bad := proto.Clone(v.base)
				setPath(bad.ProtoReflect(), path, invalid)
				var want []string
				var br *errdefs.BadRequest
				if errors.As(v.check(bad), &br) {
					for _, x := range br.Violations {
						want = append(want, x.Field)
					}
				}
				ok := proto.Clone(v.base)
				setPath(ok.ProtoReflect(), path, placeholder)
				raw := []byte(strings.ReplaceAll(string(marshal(t, ok)), placeholder, invalid))
				_, found, err := repair(raw, v.base.ProtoReflect().Descriptor())
				if err != nil || len(found) != 1 {
					t.Fatalf("repair = %v, %v; want one violation", found, err)
				}
				seen[found[0].Field] = true
				if !slices.Contains(want, found[0].Field) {
					t.Errorf("codec names %q; shared/validate names %q", found[0].Field, want)
				}
			})
		}
	}
	for _, f := range []string{"text", "action.type.text", "target.display.display_id", "action.click.modifiers[0]", "options.display_id"} {
		if !seen[f] {
			t.Errorf("no case produced %q", f)
		}
	}
}

// stringPaths lists the paths from md to every string field, entering each message type once per path.
func stringPaths(md protoreflect.MessageDescriptor, prefix []protoreflect.FieldDescriptor, open []protoreflect.FullName) [][]protoreflect.FieldDescriptor {
	if slices.Contains(open, md.FullName()) {
		return nil
	}
	var out [][]protoreflect.FieldDescriptor
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		p := append(slices.Clone(prefix), fd)
		switch {
		case fd.IsMap():
		case fd.Kind() == protoreflect.StringKind:
			out = append(out, p)
		case fd.Message() != nil:
			out = append(out, stringPaths(fd.Message(), p, append(open, md.FullName()))...)
		}
	}
	return out
}

func pathString(p []protoreflect.FieldDescriptor) string {
	var names []string
	for _, fd := range p {
		names = append(names, string(fd.Name()))
	}
	return strings.Join(names, ".")
}

// setPath sets the string at the end of path in m, creating the messages (first elements of lists) on the way.
func setPath(m protoreflect.Message, path []protoreflect.FieldDescriptor, s string) {
	for _, fd := range path[:len(path)-1] {
		if fd.IsList() {
			m = m.Mutable(fd).List().AppendMutable().Message()
			continue
		}
		m = m.Mutable(fd).Message()
	}
	last := path[len(path)-1]
	if last.IsList() {
		m.Mutable(last).List().Append(protoreflect.ValueOfString(s))
		return
	}
	m.Set(last, protoreflect.ValueOfString(s))
}

// TestMarkFieldUnused pins that no Glovebox message has a field numbered MarkField.
func TestMarkFieldUnused(t *testing.T) {
	files := 0
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		if !strings.HasPrefix(string(fd.Package()), "glovebox.") {
			return true
		}
		files++
		var walk func(protoreflect.MessageDescriptors)
		walk = func(ms protoreflect.MessageDescriptors) {
			for i := range ms.Len() {
				md := ms.Get(i)
				if md.Fields().ByNumber(MarkField) != nil || md.ExtensionRanges().Has(MarkField) {
					t.Errorf("%s uses field number %d, Codec's mark", md.FullName(), MarkField)
				}
				walk(md.Messages())
			}
		}
		walk(fd.Messages())
		return true
	})
	if files < 2 {
		t.Errorf("found %d glovebox files, want the agent's and the broker's", files)
	}
}

func FuzzCodec(f *testing.F) {
	valid := []proto.Message{
		&agentv1.ActRequest{Owner: "s1", RequestId: "r", Target: &agentv1.Target{Kind: &agentv1.Target_Display{Display: &agentv1.DisplayTarget{DisplayId: "d"}}},
			Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{Modifiers: []string{"ctrl", "shift"}}}},
		&agentv1.ActRequest{Owner: "s1", Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: "héllo"}}},
		&agentv1.ActRequest{Observe: &agentv1.ObserveAfter{Screenshot: &agentv1.ScreenshotOptions{DisplayId: "x"}}},
	}
	for _, m := range valid {
		f.Add(marshal(f, m))
	}
	f.Add(typeText("\xff"))
	f.Add([]byte(wire{}.str(1, "\xc3").msg(3, wire{}.msg(1, wire{}.str(1, "\xe2\x82")))))
	f.Add([]byte(wire{}.str(MarkField, "\x0a\x02\x0a\x00")))
	f.Fuzz(func(t *testing.T, raw []byte) {
		want := &agentv1.ActRequest{}
		werr := proto.Unmarshal(raw, want)
		got := &agentv1.ActRequest{}
		gerr := (Codec{}).Unmarshal(slice(raw), got)
		switch {
		case werr == nil:
			// Valid: the same message as the default codec's, less any forged mark.
			if gerr != nil {
				t.Fatalf("Unmarshal = %v, default codec accepted it", gerr)
			}
			unmark(want)
			if !proto.Equal(want, got) {
				t.Fatalf("Unmarshal differs from the default codec")
			}
			if err := check(got); err != nil {
				t.Fatalf("valid message marked: %v", err)
			}
		case gerr != nil:
			if gerr.Error() != werr.Error() {
				t.Fatalf("Unmarshal = %v, default codec said %v", gerr, werr)
			}
		default:
			// Repaired: the check reports at least one named field, and what is left is a valid message.
			var br *errdefs.BadRequest
			if !errors.As(check(got), &br) || len(br.Violations) == 0 || len(br.Violations) > MaxListed+1 {
				t.Fatalf("repaired message without a proper mark: %v", check(got))
			}
			for _, v := range br.Violations {
				if v.Field == "" {
					t.Fatalf("violation without a field: %+v", v)
				}
			}
			b, err := proto.Marshal(got)
			if err != nil {
				t.Fatalf("repaired message does not marshal: %v", err)
			}
			if err := proto.Unmarshal(b, &agentv1.ActRequest{}); err != nil {
				t.Fatalf("repaired message does not round-trip: %v", err)
			}
		}
		if _, ok := unmark(got); ok && gerr == nil {
			t.Fatalf("mark left after check")
		}
	})
}

// BenchmarkUnmarshal puts Codec beside grpc-go's proto codec on a valid request (the path every request
// takes) and shows the cost of the repair path on an invalid one.
func BenchmarkUnmarshal(b *testing.B) {
	valid := marshal(b, &agentv1.ActRequest{Owner: "s1", RequestId: "r1",
		Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: strings.Repeat("héllo ", 100)}}})
	invalid := typeText(strings.Repeat("héllo ", 100) + "\xff")
	run := func(name string, c interface {
		Unmarshal(mem.BufferSlice, any) error
	}, raw []byte) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = c.Unmarshal(slice(raw), &agentv1.ActRequest{})
			}
		})
	}
	run("glovebox-act", Codec{}, valid)
	run("grpc-act", defaultCodec, valid)
	run("glovebox-act-invalid", Codec{}, invalid)
	run("grpc-act-invalid", defaultCodec, invalid)
}
