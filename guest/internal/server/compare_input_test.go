package server

import (
	"context"
	"testing"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/desktop"
)

// Input benchmarks act on the bare root window of a desktop with no client window: a left click there and
// keys with no focused client change nothing, so nothing accumulates between iterations.
const (
	benchASCII = "glovebox-typing!" // 16 characters
	benchCJK   = "日本語中文漢字平仮名片"      // 10 characters, none in the keymap
)

// BenchmarkClick compares a click at a point through gRPC with `xdotool mousemove X Y click 1`. The glovebox
// side turns the damage watch off (watch_ms -1): xdotool only delivers, and so is measured against delivery.
func BenchmarkClick(b *testing.B) {
	testenv.NeedCommands(b, "xdotool")
	e := startActDesktop(b)
	b.Run("glovebox-click", func(b *testing.B) {
		i := 0
		timeOp(b, func() {
			i++
			e.benchAct(b, &agentv1.ActRequest{Owner: "bench", WatchMs: -1, Action: &agentv1.ActRequest_Click{Click: &agentv1.Click{
				At: &agentv1.Point{X: int32(600 + i%50), Y: 400}}}})
		})
	})
	b.Run("xdotool-click", func(b *testing.B) {
		i := 0
		timeOp(b, func() {
			i++
			e.run(b, "xdotool", "mousemove", itoa(uint32(600+i%50)), "400", "click", "1")
		})
	})
}

// BenchmarkType16 compares typing 16 ASCII characters through gRPC with `xdotool type --delay 0`.
func BenchmarkType16(b *testing.B) {
	benchType(b, "ascii", benchASCII)
}

// BenchmarkTypeCJK compares typing CJK characters (every one through a remapped spare keycode) through gRPC
// with `xdotool type --delay 0`.
func BenchmarkTypeCJK(b *testing.B) {
	benchType(b, "cjk", benchCJK)
}

// benchType runs on a desktop without a window manager (the keys go to the root window either way): xdotool
// remaps a keycode for every character missing from the keymap and maps it back at once, and openbox answers
// each of those thousands of MappingNotify events by grabbing its key bindings again, which kept a core busy
// for minutes, during the benchmark and after it.
func benchType(b *testing.B, name, text string) {
	testenv.NeedCommands(b, "xdotool")
	e := startActDesktopWith(b, desktop.Options{NoWindowManager: true})
	b.Run("glovebox-"+name, func(b *testing.B) {
		// Delivery only (watch_ms -1), as xdotool.
		req := &agentv1.ActRequest{Owner: "bench", WatchMs: -1, Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: text}}}
		timeOp(b, func() { e.benchAct(b, req) })
	})
	b.Run("xdotool-"+name, func(b *testing.B) {
		timeOp(b, func() { e.run(b, "xdotool", "type", "--delay", "0", text) })
	})
	if got := e.keysDown(b); len(got) != 0 {
		b.Errorf("keys left down: %v", got)
	}
}

func (e *actDesktop) benchAct(b *testing.B, r *agentv1.ActRequest) {
	if _, err := e.client.Act(context.Background(), r); err != nil {
		b.Fatal(err)
	}
}

func (e *actDesktop) run(b *testing.B, name string, args ...string) {
	if out, err := e.Command(name, args...).CombinedOutput(); err != nil {
		b.Fatalf("%s: %v %s", name, err, out)
	}
}
