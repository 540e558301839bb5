package server

import (
	"strings"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv/framesite"
)

// TestBrowserFrames runs on both engines: a tab snapshot enters a same-origin iframe, a cross-site one further
// down and a frame in a frame; refs name their frame (f1e5) and every page action by such a ref (hover, click,
// fill, type, press, set_value, select_text, scroll) reaches the frame's own element, as the frame's handlers
// report to its server. A ref of a frame that navigated is STALE_REF, and nothing is clicked in the new document;
// so is a ref of a frame whose iframe was removed.
func TestBrowserFrames(t *testing.T) {
	for _, eng := range []struct {
		name  string
		start func(testing.TB) *pageEngine
	}{{"chromium", newChromiumEngine}, {"firefox", newFirefoxEngine}} {
		t.Run(eng.name, func(t *testing.T) {
			e := eng.start(t)
			fs := framesite.Serve(t, func(cross string) string {
				return `<!doctype html><title>Top</title><button>Top button</button><div style="height:100px"></div>
<iframe src="/frame?n=same" style="width:420px;height:300px;border:7px solid #000;padding:5px"></iframe>
<div style="height:1400px"></div>
<iframe src="` + cross + `/frame?n=cross" style="width:420px;height:300px;border:3px solid #000;margin-left:150px"></iframe>
<iframe id="outer" style="margin-left:40px" srcdoc="<p>outer</p><iframe style='margin-left:60px' srcdoc='<button onclick=&quot;document.title=event.isTrusted&quot;>Deep in</button>'></iframe>"></iframe>`
			})
			tab := e.newTab(t, fs.Top)
			s := e.snapshot(t, tab)
			if !s.GetComplete() {
				t.Errorf("snapshot incomplete: %s", s.GetIncompleteReason())
			}
			if n := strings.Count(s.GetText(), "] Iframe"); n != 4 {
				t.Errorf("%d iframe entries, want 4:\n%s", n, s.GetText())
			}
			refOf := func(t *testing.T, name string) (*agentv1.Locator, *agentv1.Element) {
				t.Helper()
				for _, el := range s.GetElements() {
					if el.GetName() == name {
						return byRef(&agentv1.ElementRef{SnapshotId: s.GetSnapshotId(), Ref: el.GetRef()}), el
					}
				}
				t.Fatalf("no %q in the snapshot:\n%s", name, s.GetText())
				return nil, nil
			}
			act := func(t *testing.T, r *agentv1.ActRequest) *agentv1.ActResponse {
				t.Helper()
				resp, err := e.do(t, r)
				if err != nil {
					t.Fatalf("%T: %v", r.GetAction(), err)
				}
				return resp
			}
			tr := e.tab(tab)
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
			// A frame in a frame: its button's ref clicks there, through both iframes' offsets.
			deep, _ := refOf(t, "Deep in")
			act(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: tr, Locator: deep}}})
			nested := "document.getElementById('outer').contentDocument.querySelector('iframe').contentDocument.title"
			if got := e.evalString(t, tab, nested); got != "true" {
				t.Errorf("the nested frame's title is %q after the click, want true (a trusted click)", got)
			}

			// The same-origin frame navigates (the test's own evaluate): its refs are stale, and nothing is
			// clicked in the new document.
			button, _ := refOf(t, "Press same")
			e.eval(t, tab, "document.querySelector('iframe').src = '/frame?n=next', 0")
			for deadline := time.Now().Add(10 * time.Second); e.evalString(t, tab, "document.querySelector('iframe').contentDocument.title") != "Frame next"; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the frame did not navigate within 10s")
				}
			}
			if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: tr, Locator: button}}}); reason(err) != "STALE_REF" {
				t.Errorf("click by a ref of the frame's old document: %v, want STALE_REF", err)
			}
			// A report the test makes the frame send comes after any the refused click would have caused.
			e.eval(t, tab, "document.querySelector('iframe').contentWindow.eval(\"hit('sentinel')\"), 0")
			if seen := fs.Await(t, "next sentinel"); len(seen) > 0 {
				t.Errorf("the frame reported %q after the refused click", seen)
			}

			// The cross-site frame's iframe is removed: a ref of the frame is STALE_REF, not TARGET_GONE (the
			// tab is there).
			cross, _ := refOf(t, "Press cross")
			e.eval(t, tab, "document.querySelectorAll('iframe')[1].remove(), 0")
			if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: tr, Locator: cross}}}); reason(err) != "STALE_REF" {
				t.Errorf("click by a ref of a removed frame: %v, want STALE_REF", err)
			}
		})
	}
}
