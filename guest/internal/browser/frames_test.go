package browser

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/testenv/chromium"
	"glovebox.dev/shared/testenv/desktop"
	"glovebox.dev/shared/testenv/framesite"
)

// TestFrames snapshots a page with a same-origin iframe and an out-of-process one and acts by refs inside each:
// click, hover, fill, type, press, set_value, select_text and scroll each reach the frame's own element (its
// handlers report trusted events to its server), at coordinates offset by where the frame is, scrolled into view
// first.
func TestFrames(t *testing.T) {
	lb := startSiteIsolated(t)
	b := lb.b
	fs := framesite.Serve(t, func(cross string) string {
		return `<!doctype html><title>Top</title><button>Top button</button><div style="height:100px"></div>
<iframe src="/frame?n=same" style="width:420px;height:300px;border:7px solid #000;padding:5px"></iframe>
<div style="height:1400px"></div>
<iframe src="` + cross + `/frame?n=cross" style="width:420px;height:300px;border:3px solid #000;margin-left:150px"></iframe>`
	})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	tr := lb.newTab(t, ctx, "")
	if _, err := lb.act(ctx, &agentv1.ActRequest{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: tr, Url: fs.Top}}}); err != nil {
		t.Fatal(err)
	}
	snap, err := b.SnapshotTab(ctx, &agentv1.SnapshotTabRequest{Tab: tr})
	if err != nil {
		t.Fatal(err)
	}
	s := snap.GetSnapshot()
	if !s.GetComplete() {
		t.Errorf("snapshot incomplete: %s", s.GetIncompleteReason())
	}
	refOf := func(t *testing.T, name string) (*agentv1.Locator, *agentv1.Element) {
		t.Helper()
		for _, el := range s.GetElements() {
			if el.GetName() == name {
				return &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: &agentv1.ElementRef{SnapshotId: s.GetSnapshotId(), Ref: el.GetRef()}}}, el
			}
		}
		t.Fatalf("no %q in the snapshot:\n%s", name, s.GetText())
		return nil, nil
	}
	act := func(t *testing.T, r *agentv1.ActRequest) *agentv1.ActResponse {
		t.Helper()
		resp, err := lb.act(ctx, r)
		if err != nil {
			t.Fatalf("%T: %v", r.GetAction(), err)
		}
		return resp
	}
	for _, n := range []string{"same", "cross"} {
		t.Run(n, func(t *testing.T) {
			button, el := refOf(t, "Press "+n)
			if !strings.HasPrefix(el.GetRef(), "f") {
				t.Errorf("ref %s of a frame's button does not name its frame", el.GetRef())
			}
			field, _ := refOf(t, "Field "+n)
			box, _ := refOf(t, "Box "+n)
			act(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Hover{Hover: &agentv1.Hover{Tab: tr, Locator: button}}})
			fs.Await(t, n+" hover true")
			act(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: tr, Locator: button}}})
			fs.Await(t, n+" click true")
			if resp := act(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Fill{Fill: &agentv1.Fill{Tab: tr, Locator: field, Text: "filled"}}}); resp.GetValue() != "filled" {
				t.Errorf("fill answered %q", resp.GetValue())
			}
			fs.Await(t, n+" input filled")
			act(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageType{PageType: &agentv1.PageType{Tab: tr, Text: "!"}}})
			fs.Await(t, n+" input filled!")
			act(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Press{Press: &agentv1.Press{Tab: tr, Key: "Enter"}}})
			fs.Await(t, n+" key Enter true")
			act(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_SetValue{SetValue: &agentv1.SetValue{Tab: tr, Locator: field, Value: "set"}}})
			fs.Await(t, n+" change set")
			act(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageSelectText{PageSelectText: &agentv1.PageSelectText{Tab: tr, Locator: field,
				Match: &agentv1.TextMatch{Text: "e"}}}})
			fs.Await(t, n+" select 1-2")
			act(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageScroll{PageScroll: &agentv1.PageScroll{Tab: tr, Locator: box, Dy: 40}}})
			fs.Await(t, n+" scroll 40")
		})
	}
	// The same-origin frame navigates (the test's own evaluate): its refs are stale, and nothing is clicked in
	// the new document.
	tb, err := b.resolveTab(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	button, _ := refOf(t, "Press same")
	readString(t, ctx, tb, "document.querySelector('iframe').src = '/frame?n=next'; 'ok'")
	for deadline := time.Now().Add(10 * time.Second); readString(t, ctx, tb, "document.querySelector('iframe').contentDocument.title") != "Frame next"; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the frame did not navigate within 10s")
		}
	}
	if _, err := lb.act(ctx, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: tr, Locator: button}}}); !errors.Is(err, errdefs.ErrStaleRef) {
		t.Errorf("click by a ref of the frame's old document: %v, want STALE_REF", err)
	}
	if got := readString(t, ctx, tb, "document.querySelector('iframe').contentDocument.title"); got != "Frame next" {
		t.Errorf("the frame shows %q", got)
	}
	// A report the test makes the frame send comes after any the refused click would have caused.
	readString(t, ctx, tb, "document.querySelector('iframe').contentWindow.eval(\"hit('sentinel')\"), 'ok'")
	if seen := fs.Await(t, "next sentinel"); len(seen) > 0 {
		t.Errorf("the frame reported %q after the refused click", seen)
	}
}

// TestFrameNotEntered: a sandboxed frame without scripts is entered all the same (DevTools runs scripts in
// it), and so is a frame in a frame, whose button a click by ref reaches through both offsets; an out-of-process
// frame whose renderer crashed runs no script and cannot be entered: the snapshot says so (complete false, the
// reason naming the iframe) instead of answering complete without its content.
func TestFrameNotEntered(t *testing.T) {
	lb := startSiteIsolated(t)
	fs := framesite.Serve(t, func(cross string) string {
		return `<!doctype html><title>Sealed</title><button>Outside</button>
<iframe sandbox srcdoc="<button>Sealed in</button>"></iframe><iframe src="` + cross + `/frame?n=cross"></iframe>
<iframe id="outer" style="margin-left:40px" srcdoc="<p>outer</p><iframe style='margin-left:60px' srcdoc='<button onclick=&quot;document.title=event.isTrusted&quot;>Deep in</button>'></iframe>"></iframe>`
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tr := lb.newTab(t, ctx, "")
	if _, err := lb.act(ctx, &agentv1.ActRequest{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: tr, Url: fs.Top}}}); err != nil {
		t.Fatal(err)
	}
	snapshot := func() *agentv1.Snapshot {
		t.Helper()
		snap, err := lb.b.SnapshotTab(ctx, &agentv1.SnapshotTabRequest{Tab: tr})
		if err != nil {
			t.Fatal(err)
		}
		return snap.GetSnapshot()
	}
	s := snapshot()
	if !s.GetComplete() || !strings.Contains(s.GetText(), `button "Sealed in"`) || !strings.Contains(s.GetText(), `button "Press cross"`) {
		t.Fatalf("before the crash: complete %v (%s), want both frames entered:\n%s", s.GetComplete(), s.GetIncompleteReason(), s.GetText())
	}
	// A frame in a frame: its button's ref clicks there, at the point offset by both iframes.
	var deep *agentv1.Element
	for _, el := range s.GetElements() {
		if el.GetName() == "Deep in" {
			deep = el
		}
	}
	if deep == nil || deep.GetDepth() < 5 {
		t.Fatalf("no nested frame's button at depth 5 or more:\n%s", s.GetText())
	}
	if _, err := lb.act(ctx, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: tr,
		Locator: &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: &agentv1.ElementRef{SnapshotId: s.GetSnapshotId(), Ref: deep.GetRef()}}}}}}); err != nil {
		t.Fatal(err)
	}
	tb, err := lb.b.resolveTab(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	if got := readString(t, ctx, tb, "document.getElementById('outer').contentDocument.querySelector('iframe').contentDocument.title"); got != "true" {
		t.Errorf("the nested frame's title is %q after the click, want true (a trusted click)", got)
	}

	// Crash the out-of-process frame's renderer through a DevTools connection of the test's own.
	var list []targetInfo
	var ws string
	if err := getJSON(ctx, lb.port, "/json/list", &list); err != nil {
		t.Fatal(err)
	}
	for _, ti := range list {
		if ti.Type == "iframe" && strings.Contains(ti.URL, "n=cross") {
			ws = "ws://127.0.0.1:" + strconv.Itoa(lb.port) + "/devtools/page/" + ti.ID
		}
	}
	if ws == "" {
		t.Fatalf("the browser lists no out-of-process frame: %+v", list)
	}
	own, err := dial(ctx, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer own.close()
	crashCtx, cancelCrash := context.WithTimeout(ctx, 2*time.Second)
	defer cancelCrash()
	_ = own.call(crashCtx, "", "Page.crash", nil, nil) // no answer comes from a crashed renderer
	s = snapshot()
	if s.GetComplete() || !strings.Contains(s.GetIncompleteReason(), "iframe e4 not entered") || strings.Contains(s.GetText(), "Press cross") {
		t.Errorf("after the crash: complete %v, reason %q; want incomplete naming iframe e4:\n%s", s.GetComplete(), s.GetIncompleteReason(), s.GetText())
	}
	if !strings.Contains(s.GetText(), `button "Outside"`) || !strings.Contains(s.GetText(), `button "Sealed in"`) {
		t.Errorf("the rest of the page is missing:\n%s", s.GetText())
	}
}

// startSiteIsolated is startBrowser with every site in a process of its own (--site-per-process), so a
// cross-site iframe is an out-of-process frame.
func startSiteIsolated(t *testing.T) *liveBrowser {
	t.Helper()
	chromium.Need(t)
	d := desktop.Start(t, desktop.Options{})
	port := chromium.Launch(t, d, chromium.Options{Extra: []string{"--site-per-process"}}).Port
	b := New(Config{Ports: []int{port}, Display: d.Display, ProfileDir: t.TempDir(), Executable: "/nonexistent"})
	t.Cleanup(func() { b.Close() })
	return &liveBrowser{b: b, id: browserID(port), port: port}
}
