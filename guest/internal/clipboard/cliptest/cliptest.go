// Package cliptest drives xclip, the independent party of the clipboard tests and benchmarks: it makes
// xclip own a selection (and makes sure no xclip survives the test) and reads selections with xclip -o.
package cliptest

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb/xproto"
	"glovebox.dev/guest/internal/x11/xconn"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/desktop"
)

// Owner is an xclip process owning a selection.
type Owner struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// Stop kills xclip (if it has not exited because another client took the selection) and waits for it.
func (o *Owner) Stop() {
	if o.cmd.Process != nil {
		_ = o.cmd.Process.Kill()
	}
	<-o.done
}

// Own starts `xclip -quiet -selection <selection> -i` (in the foreground, so the test keeps its process)
// with data on stdin, optionally for one target (-t), and returns once xclip owns the selection. xclip is
// killed when the test ends.
func Own(t testing.TB, d *desktop.Desktop, selection string, data []byte, target string) *Owner {
	t.Helper()
	testenv.NeedCommands(t, "xclip")
	conn, err := xconn.Open(d.Display)
	if err != nil {
		t.Fatalf("connect to %s: %v", d.Display, err)
	}
	defer conn.Close()
	name := strings.ToUpper(selection)
	a, err := xproto.InternAtom(conn, false, uint16(len(name)), name).Reply()
	if err != nil {
		t.Fatalf("intern %s: %v", name, err)
	}
	owner := func() xproto.Window {
		r, err := xproto.GetSelectionOwner(conn, a.Atom).Reply()
		if err != nil {
			t.Fatalf("selection owner: %v", err)
		}
		return r.Owner
	}
	before := owner()

	args := []string{"-quiet", "-selection", selection, "-i"}
	if target != "" {
		args = append(args, "-t", target)
	}
	cmd := d.Command("xclip", args...)
	cmd.Stdin = bytes.NewReader(data)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start xclip: %v", err)
	}
	o := &Owner{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(o.done) }()
	t.Cleanup(o.Stop)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if w := owner(); w != xproto.WindowNone && w != before {
			return o
		}
		select {
		case <-o.done:
			t.Fatalf("xclip exited before owning %s", selection)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("xclip did not own %s within 10s", selection)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// Out returns `xclip -o -selection <selection> [-t target]`, bounded to 20 s.
func Out(d *desktop.Desktop, selection, target string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	args := []string{"-o", "-selection", selection}
	if target != "" {
		args = append(args, "-t", target)
	}
	var stderr bytes.Buffer
	cmd := d.CommandContext(ctx, "xclip", args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("xclip %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
