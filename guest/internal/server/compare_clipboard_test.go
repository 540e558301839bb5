package server

import (
	"context"
	"strings"
	"syscall"
	"testing"

	"glovebox.dev/guest/internal/clipboard/cliptest"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv"
)

// benchText is a short clipboard text, as an agent copies a URL or a line.
var benchText = strings.Repeat("clipboard-bench-", 4) // 64 bytes

// BenchmarkClipboardWrite compares WriteClipboard through gRPC with `xclip -i`, timed until the command
// returns (xclip forks a server that owns the selection and returns).
func BenchmarkClipboardWrite(b *testing.B) {
	testenv.NeedCommands(b, "xclip")
	e := startClipEnv(b)
	ctx := context.Background()
	b.Run("glovebox-write", func(b *testing.B) {
		req := &agentv1.WriteClipboardRequest{Owner: "bench", Text: benchText}
		timeOp(b, func() {
			if _, err := e.clip.WriteClipboard(ctx, req); err != nil {
				b.Fatal(err)
			}
		})
		if got := e.xclipOut(b, "clipboard", ""); got != benchText {
			b.Fatalf("xclip -o after the benchmark = %q, want %q", got, benchText)
		}
	})
	b.Run("xclip-write", func(b *testing.B) {
		var groups []int
		// Each xclip runs in its own process group, which its forked server inherits, so every server it
		// left behind can be killed afterwards (each also exits when the next one takes the selection).
		defer func() {
			for _, g := range groups {
				_ = syscall.Kill(-g, syscall.SIGKILL)
			}
		}()
		timeOp(b, func() {
			cmd := e.d.Command("xclip", "-selection", "clipboard", "-i")
			cmd.Stdin = strings.NewReader(benchText)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			err := cmd.Run()
			if cmd.Process != nil {
				groups = append(groups, cmd.Process.Pid)
			}
			if err != nil {
				b.Fatal(err)
			}
		})
		if got := e.xclipOut(b, "clipboard", ""); got != benchText {
			b.Fatalf("xclip -o after the benchmark = %q, want %q", got, benchText)
		}
	})
}

// BenchmarkClipboardRead compares ReadClipboard through gRPC with `xclip -o`, both converting the same
// selection owned by a third client (an xclip server).
func BenchmarkClipboardRead(b *testing.B) {
	testenv.NeedCommands(b, "xclip")
	e := startClipEnv(b)
	ctx := context.Background()
	owner := cliptest.Own(b, e.d, "clipboard", []byte(benchText), "")
	defer owner.Stop()
	b.Run("glovebox-read", func(b *testing.B) {
		timeOp(b, func() {
			r, err := e.clip.ReadClipboard(ctx, &agentv1.ReadClipboardRequest{})
			if err != nil || r.GetText() != benchText {
				b.Fatalf("ReadClipboard = %q, %v", r.GetText(), err)
			}
		})
	})
	b.Run("xclip-read", func(b *testing.B) {
		timeOp(b, func() {
			if got := e.xclipOut(b, "clipboard", ""); got != benchText {
				b.Fatalf("xclip -o = %q", got)
			}
		})
	})
}
