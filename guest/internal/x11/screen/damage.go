package screen

import (
	"context"
	"image"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// maxDamageLog bounds the damage rectangles kept for WatchDamage; a watch that started before the oldest one
// kept reports the whole screen (it cannot say less without the rectangles).
const maxDamageLog = 4096

// damageRect is one damage notification: where, and the frame sequence it bumped.
type damageRect struct {
	seq uint64
	r   image.Rectangle
}

// logDamageLocked records a notified rectangle at the current seq; s.mu is held.
func (s *Screen) logDamageLocked(r image.Rectangle) {
	if len(s.dmgLog) >= maxDamageLog {
		s.dmgDropped = s.dmgLog[maxDamageLog/2-1].seq
		n := copy(s.dmgLog, s.dmgLog[maxDamageLog/2:])
		s.dmgLog = s.dmgLog[:n]
	}
	s.dmgLog = append(s.dmgLog, damageRect{seq: s.seq, r: r})
}

// damageSinceLocked is the bounding box of every rectangle notified after frame sequence from, clipped to the
// screen; s.mu is held.
func (s *Screen) damageSinceLocked(from uint64) image.Rectangle {
	screen := image.Rect(0, 0, s.width, s.height)
	if from < s.dmgDropped {
		return screen
	}
	var box image.Rectangle
	for i := len(s.dmgLog) - 1; i >= 0 && s.dmgLog[i].seq > from; i-- {
		box = box.Union(s.dmgLog[i].r)
	}
	return box.Intersect(screen)
}

// WatchDamage watches the screen from frame sequence from (a Seq taken before the input was sent) for at most
// window: it returns early once damage has arrived and no more came for quiet. It then catches up with the X
// server and returns the bounding box of everything damaged after from, nil when nothing was.
func (s *Screen) WatchDamage(ctx context.Context, from uint64, window, quiet time.Duration) (*agentv1.Rect, error) {
	deadline := time.Now().Add(window)
	timer := time.NewTimer(window)
	defer timer.Stop()
	for {
		s.mu.Lock()
		cur, last, ch, closed := s.seq, s.lastDmg, s.changed, s.closed
		s.mu.Unlock()
		if closed {
			return nil, errClosed
		}
		now := time.Now()
		if !now.Before(deadline) {
			break
		}
		wait := deadline.Sub(now)
		if cur > from {
			if q := last.Add(quiet).Sub(now); q <= 0 {
				break
			} else if q < wait {
				wait = q
			}
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(wait)
		select {
		case <-ch:
		case <-timer.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	// Damage the server produced before now may still be on its way to the event loop.
	if err := s.sync(ctx); err != nil {
		return nil, err
	}
	s.mu.Lock()
	box := s.damageSinceLocked(from)
	s.mu.Unlock()
	if box.Empty() {
		return nil, nil
	}
	return &agentv1.Rect{X: int32(box.Min.X), Y: int32(box.Min.Y), Width: int32(box.Dx()), Height: int32(box.Dy())}, nil
}
