package server

import (
	"context"
	"fmt"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// TileScreen is what WatchScreen's tiles and cursor modes need beyond ScreenCapture; package x11/screen
// implements it.
type TileScreen interface {
	// CaptureTiles encodes the bands damaged since the frame sequence since and returns the sequence they
	// are current at.
	CaptureTiles(ctx context.Context, since uint64, format agentv1.ImageFormat, quality int32, pngWhenSmaller bool) ([]*agentv1.ScreenTile, uint64, error)
	// CursorShape returns the cursor's image and its serial.
	CursorShape(ctx context.Context) (*agentv1.CursorShape, uint32, error)
}

// How often a watch with cursor looks at the pointer when nothing is damaged (pointer moves make no damage):
// 30 times a second while it moves, smooth to a person; 5 times a second once it has rested for idleAfter,
// so an idle screen costs a QueryPointer every 200 ms.
const (
	cursorPoll     = time.Second / 30
	cursorIdlePoll = time.Second / 5
	idleAfter      = 2 * time.Second
)

// watchTiles is WatchScreen with tiles and/or cursor: a full frame first, then only the damaged bands (or
// whole frames without tiles), and the pointer's position and shape beside them.
func (o *observeService) watchTiles(r *agentv1.WatchScreenRequest, scr Screen, interval time.Duration, stream agentv1.ObserveService_WatchScreenServer) error {
	ctx := stream.Context()
	ts, ok := scr.(TileScreen)
	if !ok {
		if a, isAdapted := scr.(adaptedScreen); isAdapted {
			ts, ok = a.DegradedScreen.(TileScreen)
		}
	}
	if !ok {
		return fmt.Errorf("screen: this backend cannot send tiles or the cursor: %w", errdefs.ErrCapabilityUnavailable)
	}
	opts := r.GetOptions()
	img, _, last, err := scr.Capture(ctx, opts)
	if err != nil {
		return ctxErr(ctx, err)
	}
	resp := &agentv1.WatchScreenResponse{Image: img, FrameSeq: last, CapturedAtUs: time.Now().UnixMicro()}
	var serial uint32
	var pos *agentv1.Point
	if r.GetCursor() {
		if pos, serial, err = o.cursor(ctx, ts, resp, 0, true); err != nil {
			return ctxErr(ctx, err)
		}
	}
	if err := stream.Send(resp); err != nil {
		return ctxErr(ctx, err)
	}
	sent, moved := time.Now(), time.Now()
	for {
		// Rate bound: changes meanwhile are coalesced into the next response.
		if wait := time.Until(sent.Add(interval)); wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return nil
			}
		}
		wctx, cancel := ctx, context.CancelFunc(func() {})
		if r.GetCursor() {
			poll := cursorPoll
			if time.Since(moved) > idleAfter {
				poll = cursorIdlePoll
			}
			wctx, cancel = context.WithTimeout(ctx, poll)
		}
		_, werr := scr.WaitChange(wctx, last)
		cancel()
		if ctx.Err() != nil {
			return nil
		}
		changed := werr == nil
		resp := &agentv1.WatchScreenResponse{CapturedAtUs: time.Now().UnixMicro()}
		if changed {
			if r.GetTiles() {
				if resp.Tiles, last, err = ts.CaptureTiles(ctx, last, opts.GetFormat(), opts.GetQuality(), r.GetPngWhenSmaller()); err != nil {
					return ctxErr(ctx, err)
				}
			} else {
				var unchanged bool
				if resp.Image, unchanged, last, err = scr.Capture(ctx, opts); err != nil {
					return ctxErr(ctx, err)
				}
				if unchanged {
					resp.Image = nil
				}
			}
		}
		resp.FrameSeq = last
		cursorMoved := false
		if r.GetCursor() {
			p, err := o.s.b().Screen.Cursor(ctx)
			if err != nil {
				return ctxErr(ctx, err)
			}
			resp.CursorPosition = p.GetPosition()
			cursorMoved = p.GetPosition().GetX() != pos.GetX() || p.GetPosition().GetY() != pos.GetY()
			if cursorMoved {
				moved = time.Now()
			}
			// The shape is read only when something happened: an idle screen costs one QueryPointer a poll.
			if cursorMoved || changed {
				if _, serial, err = o.cursor(ctx, ts, resp, serial, false); err != nil {
					return ctxErr(ctx, err)
				}
			}
			cursorMoved = cursorMoved || resp.CursorShape != nil
			pos = p.GetPosition()
		}
		if len(resp.Tiles) == 0 && resp.Image == nil && !cursorMoved {
			continue
		}
		if err := stream.Send(resp); err != nil {
			return ctxErr(ctx, err)
		}
		sent = time.Now()
	}
}

// cursor fills resp's cursor position, and its shape when the serial differs from serial (or always); it
// returns the position and the current serial.
func (o *observeService) cursor(ctx context.Context, ts TileScreen, resp *agentv1.WatchScreenResponse, serial uint32, always bool) (*agentv1.Point, uint32, error) {
	c, err := o.s.b().Screen.Cursor(ctx)
	if err != nil {
		return nil, 0, err
	}
	resp.CursorPosition = c.GetPosition()
	shape, cur, err := ts.CursorShape(ctx)
	if err != nil {
		return nil, 0, err
	}
	if always || cur != serial {
		resp.CursorShape = shape
	}
	return c.GetPosition(), cur, nil
}
