package xconn

import (
	"sync"
	"testing"
	"time"

	"github.com/jezek/xgb/damage"
	"github.com/jezek/xgb/xfixes"
	"github.com/jezek/xgb/xproto"

	"glovebox.dev/shared/testenv/desktop"
)

// TestOpenWhileOthersReadEvents opens connections concurrently while an open one receives a stream of
// events (under -race this is what ext.Init on each connection got reported for), then checks that a
// connection opened last decodes extension events through the globals written by the first Open.
func TestOpenWhileOthersReadEvents(t *testing.T) {
	d := desktop.Start(t, desktop.Options{NoWindowManager: true})
	busy, err := Open(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(busy.Close)
	root := xproto.Setup(busy).DefaultScreen(busy).Root
	xproto.ChangeWindowAttributes(busy, root, xproto.CwEventMask, []uint32{xproto.EventMaskPropertyChange})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // property changes on the root: a PropertyNotify for busy's reader each time
		defer wg.Done()
		for i := uint32(0); ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			xproto.ChangeProperty(busy, xproto.PropModeReplace, root, xproto.AtomCutBuffer0, xproto.AtomInteger, 32, 1,
				[]byte{byte(i), 0, 0, 0})
			xproto.GetInputFocus(busy).Reply()
		}
	}()
	go func() {
		defer wg.Done()
		for {
			if ev, xerr := busy.WaitForEvent(); ev == nil && xerr == nil {
				return
			}
		}
	}()

	var opened sync.WaitGroup
	for range 4 {
		opened.Add(1)
		go func() {
			defer opened.Done()
			c, err := Open(d.Display)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			for _, name := range []string{XFixes, Damage, Shm, XTest} {
				if err := Require(c, name); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	opened.Wait()
	close(stop)

	// Damage on a later connection: its event must come back as a damage.NotifyEvent.
	c, err := Open(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := xfixes.QueryVersion(c, 5, 0).Reply(); err != nil {
		t.Fatal(err)
	}
	if _, err := damage.QueryVersion(c, 1, 1).Reply(); err != nil {
		t.Fatal(err)
	}
	dmg, _ := damage.NewDamageId(c)
	if err := damage.CreateChecked(c, dmg, xproto.Drawable(root), damage.ReportLevelNonEmpty).Check(); err != nil {
		t.Fatal(err)
	}
	xproto.ChangeWindowAttributes(busy, root, xproto.CwBackPixel, []uint32{0x123456})
	xproto.ClearArea(busy, false, root, 0, 0, 8, 8)
	xproto.GetInputFocus(busy).Reply()
	got := make(chan any, 1)
	go func() {
		ev, xerr := c.WaitForEvent()
		if xerr != nil {
			got <- xerr
			return
		}
		got <- ev
	}()
	select {
	case ev := <-got:
		if _, ok := ev.(damage.NotifyEvent); !ok {
			t.Errorf("first event on the damage connection: %T %v, want damage.NotifyEvent", ev, ev)
		}
	case <-time.After(5 * time.Second):
		t.Error("no damage event within 5s")
	}
	busy.Close()
	wg.Wait()
}

func TestRequireMissing(t *testing.T) {
	d := desktop.Start(t, desktop.Options{NoWindowManager: true})
	c, err := Open(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := Require(c, "NO-SUCH-EXTENSION"); err == nil {
		t.Error("Require of an unknown extension: no error")
	}
}

func TestOpenBadDisplay(t *testing.T) {
	if _, err := Open(":4999"); err == nil {
		t.Error("Open of a display with no server: no error")
	}
}
