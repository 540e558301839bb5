package screen

import (
	"image"
	"testing"
)

// TestDamageSince: the box is the union of the rectangles after a sequence, clipped to the screen; once the log
// has dropped rectangles a watch from before them answers the whole screen rather than too little.
func TestDamageSince(t *testing.T) {
	s := &Screen{width: 100, height: 50}
	add := func(r image.Rectangle) {
		s.seq++
		s.logDamageLocked(r)
	}
	add(image.Rect(0, 0, 5, 5))      // seq 1
	add(image.Rect(10, 10, 20, 20))  // seq 2
	add(image.Rect(90, 40, 120, 60)) // seq 3, partly off screen
	if got, want := s.damageSinceLocked(1), image.Rect(10, 10, 100, 50); got != want {
		t.Errorf("since 1: %v, want %v", got, want)
	}
	if got := s.damageSinceLocked(3); !got.Empty() {
		t.Errorf("since 3: %v, want nothing", got)
	}
	for s.seq < 3+maxDamageLog {
		add(image.Rect(1, 1, 2, 2))
	}
	if got, want := s.damageSinceLocked(1), image.Rect(0, 0, 100, 50); got != want {
		t.Errorf("since 1 after the log dropped it: %v, want the whole screen %v", got, want)
	}
	if got, want := s.damageSinceLocked(s.seq-1), image.Rect(1, 1, 2, 2); got != want {
		t.Errorf("since the newest but one: %v, want %v", got, want)
	}
	if len(s.dmgLog) > maxDamageLog {
		t.Errorf("log holds %d rectangles, at most %d", len(s.dmgLog), maxDamageLog)
	}
}
