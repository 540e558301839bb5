package clipboard

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"glovebox.dev/guest/internal/clipboard/cliptest"
	"glovebox.dev/guest/internal/x11/xconn"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/testenv/desktop"
)

const (
	clip = agentv1.Selection_SELECTION_CLIPBOARD
	prim = agentv1.Selection_SELECTION_PRIMARY
)

// xname is the selection's name for xclip.
func xname(sel agentv1.Selection) string {
	if sel == prim {
		return "primary"
	}
	return "clipboard"
}

// texts covers ASCII, accented Latin, CJK, emoji and control characters.
var texts = []struct{ name, text string }{
	{"ascii", "hello, clipboard"},
	{"accents", "café crème brûlée à Noël"},
	{"cjk", "日本語のテキスト 中文 한국어"},
	{"emoji", "ok 👍🏽 🎉 family 👨‍👩‍👧"},
	{"multiline", "line one\nline two\ttabbed\n"},
}

// logCounter counts log messages, to see which transfer path was taken (never their contents: there are none).
type logCounter struct {
	mu   sync.Mutex
	msgs map[string]int
}

func (l *logCounter) Enabled(context.Context, slog.Level) bool { return true }
func (l *logCounter) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs[r.Message]++
	return nil
}
func (l *logCounter) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logCounter) WithGroup(string) slog.Handler      { return l }
func (l *logCounter) count(msg string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.msgs[msg]
}

func start(t *testing.T) (*desktop.Desktop, *Clipboard, *logCounter) {
	t.Helper()
	d := desktop.Start(t, desktop.Options{NoWindowManager: true})
	logs := &logCounter{msgs: map[string]int{}}
	c, err := Open(d.Display, slog.New(logs))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return d, c, logs
}

func out(t *testing.T, d *desktop.Desktop, sel agentv1.Selection, target string) []byte {
	t.Helper()
	b, err := cliptest.Out(d, xname(sel), target)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWriteThenXclipReads(t *testing.T) {
	d, c, _ := start(t)
	ctx := context.Background()
	for _, sel := range []agentv1.Selection{clip, prim} {
		for _, tc := range texts {
			t.Run(xname(sel)+"/"+tc.name, func(t *testing.T) {
				if err := c.Write(ctx, sel, tc.text); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.text, string(out(t, d, sel, ""))); diff != "" {
					t.Errorf("xclip -o (-want +got):\n%s", diff)
				}
			})
		}
	}
	// The two selections are independent.
	if err := c.Write(ctx, clip, "in clipboard"); err != nil {
		t.Fatal(err)
	}
	if err := c.Write(ctx, prim, "in primary"); err != nil {
		t.Fatal(err)
	}
	got := []string{string(out(t, d, clip, "")), string(out(t, d, prim, ""))}
	if diff := cmp.Diff([]string{"in clipboard", "in primary"}, got); diff != "" {
		t.Errorf("clipboard, primary (-want +got):\n%s", diff)
	}
}

func TestXclipWritesThenRead(t *testing.T) {
	d, c, _ := start(t)
	for _, sel := range []agentv1.Selection{clip, prim} {
		for _, tc := range texts {
			t.Run(xname(sel)+"/"+tc.name, func(t *testing.T) {
				o := cliptest.Own(t, d, xname(sel), []byte(tc.text), "")
				defer o.Stop()
				got, err := c.Read(context.Background(), sel)
				if err != nil {
					t.Fatal(err)
				}
				want := &agentv1.ReadClipboardResponse{Text: tc.text, Format: "UTF8_STRING", Owned: true}
				if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(agentv1.ReadClipboardResponse{})); diff != "" {
					t.Errorf("Read (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestReadNoOwner(t *testing.T) {
	_, c, _ := start(t)
	for _, sel := range []agentv1.Selection{clip, prim, agentv1.Selection_SELECTION_UNSPECIFIED} {
		got, err := c.Read(context.Background(), sel)
		if err != nil {
			t.Fatalf("%v: %v", sel, err)
		}
		if diff := cmp.Diff(&agentv1.ReadClipboardResponse{}, got, cmpopts.IgnoreUnexported(agentv1.ReadClipboardResponse{})); diff != "" {
			t.Errorf("%v (-want +got):\n%s", sel, diff)
		}
	}
}

// largeText is n bytes of mixed ASCII and multi-byte UTF-8.
func largeText(n int) string {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"alpha ", "beta\n", "γάμμα ", "日本 ", "🎉 ", "zeta\t"}
	var b strings.Builder
	for b.Len() < n-8 {
		b.WriteString(words[r.IntN(len(words))])
	}
	for b.Len() < n {
		b.WriteByte('x')
	}
	return b.String()
}

func TestLargeUsesINCR(t *testing.T) {
	d, c, logs := start(t)
	text := largeText(4 << 20)
	want := sha256.Sum256([]byte(text))

	t.Run("write", func(t *testing.T) {
		if err := c.Write(context.Background(), clip, text); err != nil {
			t.Fatal(err)
		}
		got := sha256.Sum256(out(t, d, clip, ""))
		if got != want {
			t.Errorf("xclip -o | sha256 = %x, want %x", got, want)
		}
		if n := logs.count("clipboard: INCR transfer started"); n != 1 {
			t.Errorf("INCR transfers started = %d, want 1", n)
		}
	})
	t.Run("read", func(t *testing.T) {
		o := cliptest.Own(t, d, "clipboard", []byte(text), "")
		defer o.Stop()
		got, err := c.Read(context.Background(), clip)
		if err != nil {
			t.Fatal(err)
		}
		if s := sha256.Sum256([]byte(got.GetText())); s != want || got.GetFormat() != "UTF8_STRING" {
			t.Errorf("Read: %d bytes, sha256 %x, format %q; want %d bytes, %x, UTF8_STRING",
				len(got.GetText()), s, got.GetFormat(), len(text), want)
		}
		if n := logs.count("clipboard: INCR read started"); n != 1 {
			t.Errorf("INCR reads = %d, want 1", n)
		}
	})
}

func TestTargetsAndString(t *testing.T) {
	d, c, _ := start(t)
	ctx := context.Background()
	lines := func(b []byte) []string { return strings.Fields(string(b)) }
	sorted := cmpopts.SortSlices(func(a, b string) bool { return a < b })

	if err := c.Write(ctx, clip, "café"); err != nil {
		t.Fatal(err)
	}
	wantTargets := []string{"TARGETS", "MULTIPLE", "TIMESTAMP", "UTF8_STRING", "TEXT", "STRING"}
	if diff := cmp.Diff(wantTargets, lines(out(t, d, clip, "TARGETS")), sorted); diff != "" {
		t.Errorf("TARGETS of Latin-1 text (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]byte("caf\xe9"), out(t, d, clip, "STRING")); diff != "" {
		t.Errorf("STRING (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("café", string(out(t, d, clip, "TEXT"))); diff != "" {
		t.Errorf("TEXT (-want +got):\n%s", diff)
	}

	if err := c.Write(ctx, clip, "日本"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantTargets[:5], lines(out(t, d, clip, "TARGETS")), sorted); diff != "" {
		t.Errorf("TARGETS of CJK text (-want +got):\n%s", diff)
	}
	if b, err := cliptest.Out(d, "clipboard", "STRING"); err == nil || len(b) != 0 {
		t.Errorf("STRING of CJK text = %q, %v; want refused", b, err)
	}

	// xclip -t STRING answers the UTF8_STRING request with STRING data: decoded by its type, as Latin-1.
	o := cliptest.Own(t, d, "clipboard", []byte("caf\xe9 cr\xe8me"), "STRING")
	defer o.Stop()
	got, err := c.Read(ctx, clip)
	if err != nil {
		t.Fatal(err)
	}
	want := &agentv1.ReadClipboardResponse{Text: "café crème", Format: "STRING", Owned: true}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(agentv1.ReadClipboardResponse{})); diff != "" {
		t.Errorf("Read of STRING-only owner (-want +got):\n%s", diff)
	}
}

// TestStringFallback reads from an owner that refuses UTF8_STRING and serves STRING, as old clients do.
func TestStringFallback(t *testing.T) {
	d, c, _ := start(t)
	conn, w := rawClient(t, d)
	if err := xproto.SetSelectionOwnerChecked(conn, w, xproto.AtomPrimary, xproto.TimeCurrentTime).Check(); err != nil {
		t.Fatal(err)
	}
	var asked []xproto.Atom
	served := make(chan struct{})
	go func() {
		defer close(served)
		for {
			ev, _ := conn.WaitForEvent()
			req, ok := ev.(xproto.SelectionRequestEvent)
			if ev == nil {
				return
			}
			if !ok {
				continue
			}
			asked = append(asked, req.Target)
			reply := xproto.SelectionNotifyEvent{Time: req.Time, Requestor: req.Requestor, Selection: req.Selection,
				Target: req.Target, Property: xproto.AtomNone}
			if req.Target == xproto.AtomString {
				data := []byte("na\xefve fa\xe7ade")
				xproto.ChangeProperty(conn, xproto.PropModeReplace, req.Requestor, req.Property, xproto.AtomString, 8,
					uint32(len(data)), data)
				reply.Property = req.Property
			}
			xproto.SendEvent(conn, false, req.Requestor, 0, string(reply.Bytes()))
			if req.Target == xproto.AtomString {
				return
			}
		}
	}()
	got, err := c.Read(context.Background(), prim)
	if err != nil {
		t.Fatal(err)
	}
	<-served
	want := &agentv1.ReadClipboardResponse{Text: "naïve façade", Format: "STRING", Owned: true}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(agentv1.ReadClipboardResponse{})); diff != "" {
		t.Errorf("Read (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]xproto.Atom{c.atoms.utf8, xproto.AtomString}, asked); diff != "" {
		t.Errorf("targets asked (-want +got):\n%s", diff)
	}
}

func TestSelectionTakenByAnotherClient(t *testing.T) {
	d, c, _ := start(t)
	ctx := context.Background()
	if err := c.Write(ctx, clip, "ours"); err != nil {
		t.Fatal(err)
	}
	o := cliptest.Own(t, d, "clipboard", []byte("theirs"), "")
	defer o.Stop()
	got, err := c.Read(ctx, clip)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("theirs", got.GetText()); diff != "" {
		t.Errorf("Read after xclip took it (-want +got):\n%s", diff)
	}
	// SelectionClear made us forget the offer.
	deadline := time.Now().Add(5 * time.Second)
	for {
		c.mu.Lock()
		_, held := c.offers[c.atoms.clipboard]
		c.mu.Unlock()
		if !held {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("offer still held 5s after SelectionClear")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Taking it back works, and xclip, no longer the owner, has exited.
	if err := c.Write(ctx, clip, "ours again"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("ours again", string(out(t, d, clip, ""))); diff != "" {
		t.Errorf("xclip -o (-want +got):\n%s", diff)
	}
}

// rawClient is a bare X client for misbehaving peers: an owner that never answers, a requestor that leaves.
func rawClient(t *testing.T, d *desktop.Desktop) (*xgb.Conn, xproto.Window) {
	t.Helper()
	conn, err := xconn.Open(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	w, _ := xproto.NewWindowId(conn)
	root := xproto.Setup(conn).DefaultScreen(conn).Root
	if err := xproto.CreateWindowChecked(conn, 0, w, root, 0, 0, 1, 1, 0, xproto.WindowClassInputOnly, 0,
		xproto.CwEventMask, []uint32{xproto.EventMaskPropertyChange}).Check(); err != nil {
		t.Fatal(err)
	}
	return conn, w
}

func TestReadOwnerNeverAnswers(t *testing.T) {
	d, c, _ := start(t)
	c.timeout = 300 * time.Millisecond
	conn, w := rawClient(t, d)
	if err := xproto.SetSelectionOwnerChecked(conn, w, c.atoms.clipboard, xproto.TimeCurrentTime).Check(); err != nil {
		t.Fatal(err)
	}
	_, err := c.Read(context.Background(), clip)
	if !errors.Is(err, errdefs.ErrTimeout) {
		t.Fatalf("Read from a silent owner: %v, want ErrTimeout", err)
	}
	// The next read, from an owner that answers, is not confused by the abandoned one.
	o := cliptest.Own(t, d, "clipboard", []byte("answered"), "")
	defer o.Stop()
	got, err := c.Read(context.Background(), clip)
	if err != nil || got.GetText() != "answered" {
		t.Errorf("Read after timeout = %q, %v; want \"answered\"", got.GetText(), err)
	}
}

func TestReadTooLarge(t *testing.T) {
	d, c, _ := start(t)
	o := cliptest.Own(t, d, "clipboard", bytes.Repeat([]byte("a"), MaxText+1), "")
	defer o.Stop()
	_, err := c.Read(context.Background(), clip)
	if !errors.Is(err, errdefs.ErrResourceExhausted) {
		t.Fatalf("Read of %d bytes: %v, want ErrResourceExhausted", MaxText+1, err)
	}
}

func TestManyRequestorsAndOneThatLeaves(t *testing.T) {
	d, c, _ := start(t)
	ctx := context.Background()
	text := largeText(1 << 20)
	if err := c.Write(ctx, clip, text); err != nil {
		t.Fatal(err)
	}
	// A requestor that starts an INCR transfer and disappears without reading it.
	conn, w := rawClient(t, d)
	prop, _ := xproto.InternAtom(conn, false, 4, "MINE").Reply()
	xproto.ConvertSelection(conn, w, c.atoms.clipboard, c.atoms.utf8, prop.Atom, xproto.TimeCurrentTime)
	for {
		ev, _ := conn.WaitForEvent()
		if _, ok := ev.(xproto.SelectionNotifyEvent); ok {
			break
		}
	}
	if got := c.transferCount(); got != 1 {
		t.Errorf("transfers in flight = %d, want 1", got)
	}
	xproto.DestroyWindow(conn, w)
	conn.Close()

	// Several xclip requestors at once are all served.
	want := sha256.Sum256([]byte(text))
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			b, err := cliptest.Out(d, "clipboard", "")
			if err == nil && sha256.Sum256(b) != want {
				err = errors.New("content differs")
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if diff := cmp.Diff(make([]error, 4), errs, cmpopts.EquateErrors()); diff != "" {
		t.Errorf("concurrent xclip -o (-want +got):\n%s", diff)
	}
	if got := c.transferCount(); got != 0 {
		t.Errorf("transfers in flight after the requestor left = %d, want 0", got)
	}
}

func TestConcurrentReads(t *testing.T) {
	d, c, _ := start(t)
	o := cliptest.Own(t, d, "primary", []byte("shared text"), "")
	defer o.Stop()
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Go(func() {
			r, err := c.Read(context.Background(), prim)
			if err != nil {
				got[i] = err.Error()
				return
			}
			got[i] = r.GetText()
		})
	}
	wg.Wait()
	want := []string{"shared text", "shared text", "shared text", "shared text", "shared text", "shared text",
		"shared text", "shared text"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("concurrent reads (-want +got):\n%s", diff)
	}
}

func TestCloseReleasesOwnership(t *testing.T) {
	d, c, _ := start(t)
	if err := c.Write(context.Background(), clip, "bye"); err != nil {
		t.Fatal(err)
	}
	c.Close()
	conn, _ := rawClient(t, d)
	clipAtom, _ := xproto.InternAtom(conn, false, 9, "CLIPBOARD").Reply()
	r, err := xproto.GetSelectionOwner(conn, clipAtom.Atom).Reply()
	if err != nil {
		t.Fatal(err)
	}
	if r.Owner != xproto.WindowNone {
		t.Errorf("owner after Close = %#x, want None", r.Owner)
	}
	if ok, _ := c.Available(); ok {
		t.Error("Available after Close = true")
	}
}

func TestLatin1(t *testing.T) {
	for _, tc := range []struct {
		in     string
		latin1 []byte
	}{
		{"", []byte{}},
		{"plain", []byte("plain")},
		{"café ÿ", []byte("caf\xe9 \xff")},
		{"ā", nil},
		{"日本", nil},
		{"bad \xff utf8", nil},
	} {
		got := toLatin1(tc.in)
		if diff := cmp.Diff(tc.latin1, got); diff != "" {
			t.Errorf("toLatin1(%q) (-want +got):\n%s", tc.in, diff)
		}
		if got != nil && fromLatin1(got) != tc.in {
			t.Errorf("fromLatin1(toLatin1(%q)) = %q", tc.in, fromLatin1(got))
		}
	}
}
