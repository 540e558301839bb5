package broker_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/agenttest"
)

const canaryPaste = "canary desktop paste z5k1 日本"

// TestPasteTextRestoresClipboard pastes into a GTK entry (zenity) through the broker while xclip holds the
// user's clipboard: zenity prints the pasted text, xclip -o shows the user's text again, and the response
// says requested and RESTORED. A second paste while the clipboard is empty leaves it empty. The pasted text
// appears in no audit file or log.
func TestPasteTextRestoresClipboard(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb", "openbox", "zenity", "xclip")
	a := agenttest.Start(t, agenttest.Options{})
	b := setupBroker(t, map[string]string{"vm1": "unix://" + a.Socket}, nil).start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cc := brokerv1.NewComputerServiceClient(b.Conn)
	s := b.session(t, "vm1")

	user := "the user's own clipboard"
	own := a.Desktop.Command("xclip", "-quiet", "-selection", "clipboard", "-i")
	own.Stdin = strings.NewReader(user)
	if err := own.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { own.Process.Kill(); own.Wait() })
	xclipOut := func() string {
		out, _ := a.Desktop.Command("xclip", "-o", "-selection", "clipboard").Output()
		return string(out)
	}
	deadline := time.Now().Add(10 * time.Second)
	for xclipOut() != user {
		if time.Now().After(deadline) {
			t.Fatal("xclip never owned the clipboard")
		}
		time.Sleep(10 * time.Millisecond)
	}

	e := startEntry(t, a, "gb-paste-1")
	resp, err := cc.PasteText(ctx, &brokerv1.PasteTextRequest{SessionId: s, Request: &agentv1.PasteTextRequest{Text: canaryPaste, WindowId: e.window}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cc.Act(ctx, act(&agentv1.ActRequest{Target: &agentv1.Target{Kind: &agentv1.Target_Window{Window: &agentv1.WindowTarget{WindowId: e.window}}},
		Action: &agentv1.ActRequest_Key{Key: &agentv1.Key{Combo: "Return"}}}, s)); err != nil {
		t.Fatal(err)
	}
	if got := e.answer(t); got != canaryPaste {
		t.Errorf("zenity read %q, want the pasted text", got)
	}
	if got := xclipOut(); got != user {
		t.Errorf("after the paste xclip -o reads %q, want the user's %q", got, user)
	}
	r := resp.GetResponse()
	if !r.GetRequested() || r.GetRestore() != agentv1.ClipboardRestore_CLIPBOARD_RESTORE_RESTORED || r.GetWindowId() != e.window || resp.GetTarget().GetWindowId() != e.window {
		t.Errorf("response %v target %v; want requested, RESTORED, window %d", r, resp.GetTarget(), e.window)
	}

	// An empty clipboard stays empty: a client that owned it exits, so nobody owns it.
	own.Process.Kill()
	own.Wait()
	empty := a.Desktop.Command("xclip", "-quiet", "-selection", "clipboard", "-i")
	empty.Stdin = strings.NewReader("gone soon")
	if err := empty.Start(); err != nil {
		t.Fatal(err)
	}
	for xclipOut() != "gone soon" {
		if time.Now().After(deadline.Add(10 * time.Second)) {
			t.Fatal("the second xclip never owned the clipboard")
		}
		time.Sleep(10 * time.Millisecond)
	}
	empty.Process.Kill()
	empty.Wait()
	owned := func() bool {
		tr, err := cc.ListClipboardTargets(ctx, &brokerv1.ListClipboardTargetsRequest{SessionId: s})
		if err != nil {
			t.Fatal(err)
		}
		return tr.GetResponse().GetOwned()
	}
	if owned() {
		t.Fatal("the clipboard still has an owner after xclip exited")
	}
	e = startEntry(t, a, "gb-paste-2")
	resp, err = cc.PasteText(ctx, &brokerv1.PasteTextRequest{SessionId: s, Request: &agentv1.PasteTextRequest{Text: "second", WindowId: e.window}})
	if err != nil {
		t.Fatal(err)
	}
	if owned() || resp.GetResponse().GetRestore() != agentv1.ClipboardRestore_CLIPBOARD_RESTORE_RESTORED || !resp.GetResponse().GetRequested() {
		t.Errorf("after pasting over an empty clipboard: owned %v, response %v; want no owner, requested, RESTORED", owned(), resp.GetResponse())
	}

	audit := []byte(b.Log.String() + a.Log.String())
	filesAudit := &filesSetup{broker: b, agent: a}
	audit = append(audit, readAuditText(t, filesAudit)...)
	if bytes.Contains(audit, []byte(canaryPaste)) || bytes.Contains(audit, []byte("z5k1")) {
		t.Error("the pasted text appears in the audit files or logs")
	}
	if !strings.Contains(readAuditText(t, filesAudit), "PasteText") {
		t.Error("no PasteText audit record")
	}
}
