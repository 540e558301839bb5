package broker_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
)

// xclipOut runs xclip -o on the agent's desktop, bounded to 20 s.
func xclipOut(t *testing.T, f *filesSetup, target string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	args := []string{"-o", "-selection", "clipboard"}
	if target != "" {
		args = append(args, "-t", target)
	}
	out, err := f.agent.Desktop.CommandContext(ctx, "xclip", args...).Output()
	if err != nil {
		t.Fatalf("xclip %v: %v", args, err)
	}
	return out
}

func testPNG(t testing.TB) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 1280, 800))
	r := rand.New(rand.NewPCG(3, 4))
	for i := range img.Pix {
		if i%7 == 0 {
			img.Pix[i] = byte(r.Uint32())
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestImageClipboardThroughBroker: a 1280x800 PNG written through the broker is read byte-exact by xclip; one
// xclip owns is read back exactly and its targets are listed; the audit records hold lengths, no bytes.
func TestImageClipboardThroughBroker(t *testing.T) {
	testenv.NeedCommands(t, "xclip")
	f := startFiles(t, nil)
	computer := brokerv1.NewComputerServiceClient(f.broker.Conn)
	ctx := context.Background()
	img := testPNG(t)
	if _, err := computer.WriteClipboardData(ctx, &brokerv1.WriteClipboardDataRequest{SessionId: f.session,
		Request: &agentv1.WriteClipboardDataRequest{MimeType: "image/png", Data: img}}); err != nil {
		t.Fatal(err)
	}
	if got := xclipOut(t, f, "image/png"); !bytes.Equal(got, img) {
		t.Errorf("xclip read %d bytes, want the %d-byte PNG", len(got), len(img))
	}

	cmd := f.agent.Desktop.Command("xclip", "-quiet", "-selection", "clipboard", "-t", "image/png", "-i")
	cmd.Stdin = bytes.NewReader(img[:len(img)/2])
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	half := img[:len(img)/2]
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := computer.ReadClipboardData(ctx, &brokerv1.ReadClipboardDataRequest{SessionId: f.session,
			Request: &agentv1.ReadClipboardDataRequest{MimeType: "image/png"}})
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(resp.GetResponse().GetData(), half) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ReadClipboardData never returned xclip's %d bytes (last: %d bytes, owned %v)", len(half),
				len(resp.GetResponse().GetData()), resp.GetResponse().GetOwned())
		}
		time.Sleep(20 * time.Millisecond)
	}
	tr, err := computer.ListClipboardTargets(ctx, &brokerv1.ListClipboardTargetsRequest{SessionId: f.session})
	if err != nil || !strings.Contains(strings.Join(tr.GetResponse().GetTargets(), " "), "image/png") {
		t.Errorf("targets of xclip's image: %v %v", tr.GetResponse().GetTargets(), err)
	}
	audit := readAuditText(t, f)
	if !strings.Contains(audit, "WriteClipboardData") || !strings.Contains(audit, `"length":`) || strings.Contains(audit, `"data"`) {
		t.Errorf("audit of the image clipboard: want records with lengths and no data field:\n%.3000s", audit)
	}
}

// TestDropToDesktopClipboard: files dropped with target DESKTOP_CLIPBOARD are pasteable: xclip reads their
// URIs as text/uri-list and x-special/gnome-copied-files.
func TestDropToDesktopClipboard(t *testing.T) {
	testenv.NeedCommands(t, "xclip")
	f := startFiles(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := drop(ctx, f.files, f.session, agentv1.DropTarget_DROP_TARGET_DESKTOP_CLIPBOARD,
		payload{name: "a b.txt", size: 5, seed: 1}, payload{name: "c", size: 0, seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetResponse().GetTarget() != agentv1.DropTarget_DROP_TARGET_DESKTOP_CLIPBOARD || !resp.GetResponse().GetFiles()[0].GetOnClipboard() {
		t.Errorf("response %v; want target DESKTOP_CLIPBOARD, files on the clipboard", resp.GetResponse())
	}
	drops := filepath.Join(f.home, "Drops")
	wantList := "file://" + filepath.Join(drops, "a%20b.txt") + "\r\nfile://" + filepath.Join(drops, "c") + "\r\n"
	if got := string(xclipOut(t, f, "text/uri-list")); got != wantList {
		t.Errorf("text/uri-list %q, want %q", got, wantList)
	}
	if got := string(xclipOut(t, f, "x-special/gnome-copied-files")); !strings.HasPrefix(got, "copy\nfile://") {
		t.Errorf("gnome-copied-files %q", got)
	}
	if _, err := os.Stat(filepath.Join(drops, "a b.txt")); err != nil {
		t.Error(err)
	}
}

func readAuditText(t *testing.T, f *filesSetup) string {
	t.Helper()
	var sb strings.Builder
	filepath.WalkDir(f.broker.AuditDir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
			b, _ := os.ReadFile(path)
			sb.Write(b)
		}
		return nil
	})
	return sb.String()
}
