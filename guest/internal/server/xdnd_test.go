package server

import (
	"context"
	"testing"

	"glovebox.dev/guest/internal/clipboard"
	"glovebox.dev/guest/internal/x11/input"
	"glovebox.dev/guest/internal/x11/windows"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv/desktop"
)

// TestXdndStaleAndNewDrag: another X client (a drag source) owns XdndSelection with a file list; the
// agent presses a button (mouse_down): a read during the press returns the list as stale (what the selection
// already held when the press began) and dragging; the source sets a new list (a new drag): the read is not
// stale; after mouse_up nothing is dragging.
func TestXdndStaleAndNewDrag(t *testing.T) {
	d := desktop.Start(t, desktop.Options{})
	cb, err := clipboard.Open(d.Display, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cb.Close() })
	source, err := clipboard.Open(d.Display, nil) // the drag source: a separate X client
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { source.Close() })
	win, err := windows.New(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { win.Close() })
	in, err := input.Open(d.Display, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	conn := dialServices(t, New(Options{Generation: 1}, Backends{Input: AdaptInput(in), Windows: win, Clipboard: AdaptClipboard(cb)}))
	act, clip := agentv1.NewActServiceClient(conn), agentv1.NewClipboardServiceClient(conn)
	ctx := context.Background()
	xdnd := agentv1.Selection_SELECTION_XDND
	read := func() *agentv1.ReadClipboardDataResponse {
		t.Helper()
		r, err := clip.ReadClipboardData(ctx, &agentv1.ReadClipboardDataRequest{Selection: xdnd, MimeType: "text/uri-list"})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	old, fresh := []byte("file:///tmp/old.txt\r\n"), []byte("file:///tmp/new.txt\r\n")
	if err := source.WriteData(ctx, xdnd, "text/uri-list", old); err != nil {
		t.Fatal(err)
	}
	at := &agentv1.Point{X: 100, Y: 100}
	if _, err := act.Act(ctx, &agentv1.ActRequest{Owner: "t", Action: &agentv1.ActRequest_MouseDown{MouseDown: &agentv1.MouseDown{At: at}}}); err != nil {
		t.Fatal(err)
	}
	if r := read(); string(r.GetData()) != string(old) || !r.GetStale() || !r.GetDragging() {
		t.Errorf("during the press, before a new drag: %q stale %v dragging %v; want the old list, stale, dragging", r.GetData(), r.GetStale(), r.GetDragging())
	}
	if r, err := clip.ReadClipboard(ctx, &agentv1.ReadClipboardRequest{Selection: xdnd}); err != nil || r.GetText() != string(old) || !r.GetStale() {
		t.Errorf("text read during the press: %q stale %v %v; want the old list as text, stale", r.GetText(), r.GetStale(), err)
	}
	if err := source.WriteData(ctx, xdnd, "text/uri-list", fresh); err != nil {
		t.Fatal(err)
	}
	if r := read(); string(r.GetData()) != string(fresh) || r.GetStale() || !r.GetDragging() {
		t.Errorf("during the new drag: %q stale %v dragging %v; want the new list, not stale, dragging", r.GetData(), r.GetStale(), r.GetDragging())
	}
	if _, err := act.Act(ctx, &agentv1.ActRequest{Owner: "t", Action: &agentv1.ActRequest_MouseUp{MouseUp: &agentv1.MouseUp{At: at}}}); err != nil {
		t.Fatal(err)
	}
	if r := read(); r.GetDragging() || r.GetStale() {
		t.Errorf("after mouse_up: stale %v dragging %v; want neither", r.GetStale(), r.GetDragging())
	}
	if _, err := clip.WriteClipboard(ctx, &agentv1.WriteClipboardRequest{Selection: xdnd, Text: "x"}); err == nil {
		t.Error("a write to XDND was accepted")
	}
}
