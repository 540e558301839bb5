package broker_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/agenttest"
)

// Canary texts, each distinct and none inside another. The secret matches the broker's AWS access key rule.
const (
	canaryTyped  = "canary typed k4t9 Grüße"
	canaryPasted = "canary pasted p3x5"
	canaryClip   = "canary clip w8m2"
	canarySecret = "AKIACANARY7SECRET9ZQ"
)

// entry is a zenity entry dialog whose answer (its stdout) the test reads.
type entry struct {
	window uint32
	out    *bytes.Buffer
	done   chan error
}

func startEntry(t *testing.T, a *agenttest.Agent, title string) *entry {
	t.Helper()
	e := &entry{out: &bytes.Buffer{}, done: make(chan error, 1)}
	z := a.Desktop.Command("zenity", "--entry", "--title", title)
	z.Stdout = e.out
	a.Desktop.StartProgram(t, z)
	e.window = uint32(a.Desktop.WaitWindow(t, title, 15*time.Second))
	go func() { e.done <- z.Wait() }()
	return e
}

// answer waits for the dialog to exit and returns what it printed.
func (e *entry) answer(t *testing.T) string {
	t.Helper()
	select {
	case <-e.done:
	case <-time.After(10 * time.Second):
		t.Fatal("zenity did not exit")
	}
	return strings.TrimSuffix(e.out.String(), "\n")
}

// TestCanaries types, pastes and writes distinct canary texts through the broker (a secret-looking one
// first refused, then confirmed), checks each arrived (zenity's own answer, xclip), and then that none of
// them appears in the audit files, the broker's log, the agent's log or the broker's metrics page, while
// `glovebox audit prove` finds each with the key and `audit verify` passes; an edited and a deleted record
// each make verify fail at that record.
func TestCanaries(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb", "openbox", "zenity", "xclip")
	a := agenttest.Start(t, agenttest.Options{})
	b := setupBroker(t, map[string]string{"vm1": "unix://" + a.Socket}, func(cfg map[string]any) {
		cfg["metrics_listen"] = "127.0.0.1:0"
	}).start(t)
	ctx := context.Background()
	cc := brokerv1.NewComputerServiceClient(b.Conn)
	s := b.session(t, "vm1")
	in := func(window uint32, r *agentv1.ActRequest) *brokerv1.ActRequest {
		r.Target = &agentv1.Target{Kind: &agentv1.Target_Window{Window: &agentv1.WindowTarget{WindowId: window}}}
		return act(r, s)
	}
	typeText := func(text string, confirm bool) *agentv1.ActRequest {
		return &agentv1.ActRequest{Confirm: confirm, Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: text}}}
	}
	key := func(combo string) *agentv1.ActRequest {
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_Key{Key: &agentv1.Key{Combo: combo}}}
	}
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	writeClip := func(text string, confirm bool) error {
		_, err := cc.WriteClipboard(ctx, &brokerv1.WriteClipboardRequest{SessionId: s, Confirm: confirm, Request: &agentv1.WriteClipboardRequest{Text: text}})
		return err
	}
	xclip := func() string {
		out, err := a.Desktop.Command("xclip", "-o", "-selection", "clipboard").Output()
		must("xclip", err)
		return string(out)
	}

	// Typed.
	e := startEntry(t, a, "gb-entry-1")
	_, err := cc.Act(ctx, in(e.window, typeText(canaryTyped, false)))
	must("type", err)
	_, err = cc.Act(ctx, in(e.window, key("Return")))
	must("Return", err)
	if got := e.answer(t); got != canaryTyped {
		t.Errorf("typed: zenity read %q", got)
	}

	// Pasted: written to the clipboard, pasted with ctrl+v.
	e = startEntry(t, a, "gb-entry-2")
	must("clipboard write", writeClip(canaryPasted, false))
	_, err = cc.Act(ctx, in(e.window, key("ctrl+v")))
	must("ctrl+v", err)
	_, err = cc.Act(ctx, in(e.window, key("Return")))
	must("Return", err)
	if got := e.answer(t); got != canaryPasted {
		t.Errorf("pasted: zenity read %q", got)
	}

	// Written to the clipboard and read back through the broker.
	must("clipboard write", writeClip(canaryClip, false))
	if got := xclip(); got != canaryClip {
		t.Errorf("clipboard: xclip read %q", got)
	}
	r, err := cc.ReadClipboard(ctx, &brokerv1.ReadClipboardRequest{SessionId: s})
	must("clipboard read", err)
	if r.GetResponse().GetText() != canaryClip {
		t.Errorf("clipboard read %q", r.GetResponse().GetText())
	}

	// A secret-looking text: refused until confirmed, typed and written to the clipboard.
	e = startEntry(t, a, "gb-entry-3")
	if _, err := cc.Act(ctx, in(e.window, typeText(canarySecret, false))); !errors.Is(errgrpc.FromError(err), errdefs.ErrConfirmationRequired) {
		t.Errorf("unconfirmed secret typed: %v, want CONFIRMATION_REQUIRED", err)
	}
	if err := writeClip(canarySecret, false); !errors.Is(errgrpc.FromError(err), errdefs.ErrConfirmationRequired) {
		t.Errorf("unconfirmed secret to the clipboard: %v, want CONFIRMATION_REQUIRED", err)
	}
	_, err = cc.Act(ctx, in(e.window, typeText(canarySecret, true)))
	must("confirmed secret typed", err)
	_, err = cc.Act(ctx, in(e.window, key("Return")))
	must("Return", err)
	if got := e.answer(t); got != canarySecret {
		t.Errorf("secret: zenity read %q", got)
	}
	must("confirmed secret to the clipboard", writeClip(canarySecret, true))
	if got := xclip(); got != canarySecret {
		t.Errorf("secret clipboard: xclip read %q", got)
	}

	metricsPage := scrapeMetrics(t, b)
	b.Stop() // the logs are complete and the audit log closed

	// Nowhere: audit files, broker log, agent log, metrics. Besides each whole text, look for the canary
	// word and each text's distinctive fragment, in case a text was escaped or cut.
	sources := map[string]string{"broker log": b.Log.String(), "agent log": a.Log.String(), "metrics page": metricsPage}
	files, err := filepath.Glob(filepath.Join(b.AuditDir, "vm1", "*"))
	must("audit files", err)
	if len(files) == 0 {
		t.Fatal("no audit file")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		must("audit file", err)
		sources[f] = string(data)
	}
	needles := []string{canaryTyped, canaryPasted, canaryClip, canarySecret, "k4t9", "p3x5", "w8m2", "CANARY7SECRET", "Grüße"}
	for name, text := range sources {
		for _, n := range needles {
			if strings.Contains(text, n) {
				t.Errorf("%s contains %q", name, n)
			}
		}
		if strings.Contains(strings.ToLower(text), "canary") {
			t.Errorf("%s contains the word canary", name)
		}
	}
	if !strings.Contains(metricsPage, "glovebox_") {
		t.Errorf("metrics page has no glovebox metric:\n%.500s", metricsPage)
	}

	// audit prove finds each text with the key, in the fields that held it.
	proves := []struct {
		text   string
		fields []string
	}{
		{canaryTyped, []string{"type.text"}},
		{canaryPasted, []string{"WriteClipboard"}},
		{canaryClip, []string{"WriteClipboard", "ReadClipboard"}},
		{canarySecret, []string{"type.text", "WriteClipboard"}},
	}
	for _, p := range proves {
		code, stdout, stderr := glovebox(t, p.text, "audit", "prove", "-key", b.KeyFile, "-stdin", "-dir", b.AuditDir, "-guest", "vm1")
		if code != 0 {
			t.Errorf("audit prove %.12q…: exit %d\n%s%s", p.text, code, stdout, stderr)
		}
		for _, f := range p.fields {
			if !strings.Contains(stdout, f) {
				t.Errorf("audit prove %.12q…: no %s record:\n%s", p.text, f, stdout)
			}
		}
		if strings.Contains(stdout, p.text) {
			t.Errorf("audit prove printed the text")
		}
	}
	if code, stdout, _ := glovebox(t, "canary never typed", "audit", "prove", "-key", b.KeyFile, "-stdin", "-dir", b.AuditDir, "-guest", "vm1"); code != 1 {
		t.Errorf("audit prove of a text never sent: exit %d\n%s", code, stdout)
	}
	verifyAudit(t, b.AuditDir)
	tamper(t, b.AuditDir, "vm1")
}

// scrapeMetrics reads the broker's Prometheus page; its address is in the broker's log.
func scrapeMetrics(t *testing.T, b *brokerProc) string {
	t.Helper()
	m := regexp.MustCompile(`"msg":"metrics serving","listen":"([^"]+)"`).FindStringSubmatch(b.Log.String())
	if m == nil {
		t.Fatal("broker log names no metrics listener")
	}
	resp, err := http.Get("http://" + m[1] + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("metrics: %v %v", resp.Status, err)
	}
	return string(body)
}

// tamper edits one record, then deletes one, each in a copy of the guest's log, and expects `audit verify`
// to fail at that record's place.
func tamper(t *testing.T, auditDir, guest string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(auditDir, guest, "audit-*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("audit files: %v %v", files, err)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	const at = 5 // 1-based line of the record changed
	if len(lines) < at+3 {
		t.Fatalf("only %d records", len(lines))
	}
	seqOf := func(line string) string { return regexp.MustCompile(`"seq":"?(\d+)`).FindStringSubmatch(line)[1] }
	tests := []struct {
		name    string
		edit    func([]string) []string
		wantSeq string
	}{
		{"edited", func(l []string) []string {
			if !strings.Contains(l[at-1], `"principal":"me"`) {
				t.Fatalf("line %d has no principal: %s", at, l[at-1])
			}
			l[at-1] = strings.Replace(l[at-1], `"principal":"me"`, `"principal":"mallory"`, 1)
			return l
		}, seqOf(lines[at-1])},
		{"deleted", func(l []string) []string { return append(l[:at-1], l[at:]...) }, seqOf(lines[at])},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, guest), 0o700); err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if f == files[0] {
					b = []byte(strings.Join(tc.edit(append([]string(nil), lines...)), ""))
				}
				if err := os.WriteFile(filepath.Join(dir, guest, filepath.Base(f)), b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			code, stdout, _ := glovebox(t, "", "audit", "verify", "-dir", dir, "-guest", guest)
			want := "guest " + guest + ": BROKEN at " + filepath.Join(dir, guest, filepath.Base(files[0])) + ":" + strconv.Itoa(at) + " (seq " + tc.wantSeq + ")"
			if code != 1 || !strings.HasPrefix(stdout, want) {
				t.Errorf("verify after the record was %s: exit %d\n%s\nwant prefix %q", tc.name, code, stdout, want)
			}
		})
	}
}
