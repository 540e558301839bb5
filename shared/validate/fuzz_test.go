package validate

import (
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// checkResult fails unless err is nil or a non-empty *errdefs.BadRequest.
func checkResult(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var br *errdefs.BadRequest
	if !errors.As(err, &br) || len(br.Violations) == 0 {
		t.Fatalf("error %v is not a non-empty *errdefs.BadRequest", err)
	}
	for _, v := range br.Violations {
		if v.Field == "" || v.Description == "" || len(v.Description) > 512 {
			t.Fatalf("bad violation %+v", v)
		}
	}
}

func FuzzActRequest(f *testing.F) {
	for _, r := range validActions() {
		b, _ := proto.Marshal(r)
		f.Add(b)
	}
	bad := []*agentv1.ActRequest{
		{},
		{Owner: "s1", Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{Button: 9, Count: 7, Modifiers: []string{"ctl"}}}},
		{Owner: "s1", Action: &agentv1.ActRequest_Drag{Drag: &agentv1.Drag{Path: []*agentv1.Point{nil, {X: -1}}}}},
		{Owner: "s1", Action: &agentv1.ActRequest_Key{Key: &agentv1.Key{Combo: "ctrl+++"}}},
		{Owner: "s1", Target: &agentv1.Target{Kind: &agentv1.Target_Window{}}, Observe: &agentv1.ObserveAfter{QuietMs: -1, Screenshot: &agentv1.ScreenshotOptions{Format: 7}}},
	}
	for _, r := range bad {
		b, _ := proto.Marshal(r)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var r agentv1.ActRequest
		if proto.Unmarshal(b, &r) != nil {
			return
		}
		err := ActRequest(&r)
		checkResult(t, err)
		if err != nil {
			return
		}
		// A valid request stays valid through the wire.
		again, merr := proto.Marshal(&r)
		if merr != nil {
			t.Fatalf("marshal valid request: %v", merr)
		}
		var r2 agentv1.ActRequest
		if uerr := proto.Unmarshal(again, &r2); uerr != nil {
			t.Fatalf("unmarshal re-marshalled request: %v", uerr)
		}
		if err := ActRequest(&r2); err != nil {
			t.Fatalf("valid request invalid after a round trip: %v", err)
		}
	})
}

func FuzzWriteClipboard(f *testing.F) {
	f.Add("s1", int32(1), "hello")
	f.Add("", int32(0), "")
	f.Add("bad owner", int32(2), "中文 😀")
	f.Add("x", int32(-1), "\xff\xfe")
	f.Add("a:b.c-d_e", int32(3), "\x00")
	f.Fuzz(func(t *testing.T, owner string, sel int32, text string) {
		r := &agentv1.WriteClipboardRequest{Owner: owner, Selection: agentv1.Selection(sel), Text: text}
		err := WriteClipboard(r)
		checkResult(t, err)
		if err == nil {
			if _, ok := agentv1.Selection_name[sel]; !ok {
				t.Fatalf("unknown selection %d accepted", sel)
			}
			if _, merr := proto.Marshal(r); merr != nil {
				t.Fatalf("valid request does not marshal: %v", merr)
			}
		}
	})
}
