// Package xstate reads input state straight from the X server (QueryKeymap, QueryPointer) on a connection of
// the test's own, so tests check what is held without asking the agent under test.
package xstate

import (
	"fmt"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// Down is what the X server reports pressed.
type Down struct {
	// Keycodes of the keys down.
	Keys []int
	// Pointer button mask bits (Button1Mask ... Button5Mask) set, as button numbers 1..5.
	Buttons []int
}

// Empty reports whether nothing is pressed.
func (d Down) Empty() bool { return len(d.Keys) == 0 && len(d.Buttons) == 0 }

// String formats the state for test messages.
func (d Down) String() string { return fmt.Sprintf("keys %v buttons %v", d.Keys, d.Buttons) }

// Query returns the keys and buttons down on display.
func Query(display string) (Down, error) {
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		return Down{}, err
	}
	defer conn.Close()
	var d Down
	km, err := xproto.QueryKeymap(conn).Reply()
	if err != nil {
		return d, fmt.Errorf("query keymap: %w", err)
	}
	for i, b := range km.Keys {
		for bit := 0; bit < 8; bit++ {
			if b&(1<<bit) != 0 {
				d.Keys = append(d.Keys, i*8+bit)
			}
		}
	}
	root := xproto.Setup(conn).DefaultScreen(conn).Root
	p, err := xproto.QueryPointer(conn, root).Reply()
	if err != nil {
		return d, fmt.Errorf("query pointer: %w", err)
	}
	for n := 1; n <= 5; n++ {
		if p.Mask&(xproto.ButtonMask1<<(n-1)) != 0 {
			d.Buttons = append(d.Buttons, n)
		}
	}
	return d, nil
}
