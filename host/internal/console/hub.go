package console

import (
	"context"
	"sync"
	"time"

	"glovebox.dev/host/internal/config"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// Live view tuning.
const (
	// liveFPS is the agent's frame-rate bound for the one watch per guest.
	liveFPS = 60
	// liveQuality is the JPEG quality of tiles and full frames: text stays legible, a band of typing costs a
	// few KB.
	liveQuality = 80
	// maxPendingBytes and maxPendingTiles bound what waits for a slow viewer; past them its tiles are dropped
	// and it gets one full frame when it catches up (latest wins: a slow viewer never slows anyone else).
	maxPendingBytes = 4 << 20
	maxPendingTiles = 256
	// watchRetry is the pause before the hub watches again after its stream ended with an error.
	watchRetry = time.Second
)

// liveOptions are the screenshot options of the live view: JPEG of the whole screen at scale 1.
func liveOptions() *agentv1.ScreenshotOptions {
	return &agentv1.ScreenshotOptions{Format: agentv1.ImageFormat_IMAGE_FORMAT_JPEG, Quality: liveQuality}
}

// hub is one guest's live view: one WatchScreen on the agent, fanned out to every viewer of that guest.
type hub struct {
	s      *Server
	guest  string
	cancel context.CancelFunc

	mu      sync.Mutex
	viewers map[*viewer]bool
	cursor  *agentv1.Point
	shape   *agentv1.CursorShape
}

// pending is what waits to be written to one viewer.
type pending struct {
	tiles    []*agentv1.ScreenTile
	seqs     []uint64
	bytes    int
	needFull bool
	cursor   *agentv1.Point
	shape    *agentv1.CursorShape
}

// join adds v to guest's hub, starting the watch for the first viewer.
func (s *Server) join(v *viewer, p *config.Principal, guest string) *hub {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.hubs[guest]
	if h == nil {
		ctx, cancel := context.WithCancel(context.Background())
		h = &hub{s: s, guest: guest, cancel: cancel, viewers: map[*viewer]bool{}}
		s.hubs[guest] = h
		go h.run(ctx, p)
	}
	h.mu.Lock()
	h.viewers[v] = true
	v.pend.needFull = true
	v.pend.cursor, v.pend.shape = h.cursor, h.shape
	h.mu.Unlock()
	v.wake()
	return h
}

// leave removes v; the last viewer to leave stops the watch.
func (s *Server) leave(h *hub, v *viewer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h.mu.Lock()
	delete(h.viewers, v)
	empty := len(h.viewers) == 0
	h.mu.Unlock()
	if empty && s.hubs[h.guest] == h {
		delete(s.hubs, h.guest)
		h.cancel()
	}
}

// run watches the guest's screen until ctx ends, as the principal of the first viewer (any viewer of the
// guest may see it; the watch is the console's own view, not a session's).
func (h *hub) run(ctx context.Context, p *config.Principal) {
	// Tiles of text and UI go as PNG, photos as JPEG.
	req := &agentv1.WatchScreenRequest{Options: liveOptions(), MaxFps: liveFPS, Tiles: true, Cursor: true, PngWhenSmaller: true}
	for ctx.Err() == nil {
		err := h.s.b.ConsoleWatch(ctx, p, h.guest, req, h.fanOut)
		if ctx.Err() != nil {
			return
		}
		h.s.log.Warn("console watch ended", "guest", h.guest, "error", err)
		// Every viewer's canvas may have missed tiles: each gets a full frame once the watch is back.
		h.mu.Lock()
		for v := range h.viewers {
			v.pend.needFull = true
		}
		h.mu.Unlock()
		select {
		case <-time.After(watchRetry):
		case <-ctx.Done():
		}
	}
}

// fanOut hands one response of the watch to every viewer without waiting for any of them.
func (h *hub) fanOut(f *agentv1.WatchScreenResponse) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if f.GetCursorPosition() != nil {
		h.cursor = f.GetCursorPosition()
	}
	if f.GetCursorShape() != nil {
		h.shape = f.GetCursorShape()
	}
	for v := range h.viewers {
		v.mu.Lock()
		p := &v.pend
		if f.GetCursorPosition() != nil {
			p.cursor = f.GetCursorPosition()
		}
		if f.GetCursorShape() != nil {
			p.shape = f.GetCursorShape()
		}
		// A whole frame in the stream (its first response) is not forwarded: viewers get full frames by
		// capture when they join or fall behind, and this stream's first frame predates both.
		for _, t := range f.GetTiles() {
			if p.needFull {
				break
			}
			p.add(t, f.GetFrameSeq())
		}
		if len(p.tiles) > maxPendingTiles || p.bytes > maxPendingBytes {
			p.tiles, p.seqs, p.bytes, p.needFull = nil, nil, 0, true
		}
		v.mu.Unlock()
		v.wake()
	}
	return nil
}

// add queues tile t of frame seq, dropping queued tiles it covers entirely (latest wins).
func (p *pending) add(t *agentv1.ScreenTile, seq uint64) {
	r := t.GetRect()
	keep := p.tiles[:0]
	keepSeqs := p.seqs[:0]
	p.bytes = 0
	for i, old := range p.tiles {
		o := old.GetRect()
		if o.GetY() >= r.GetY() && o.GetY()+o.GetHeight() <= r.GetY()+r.GetHeight() &&
			o.GetX() >= r.GetX() && o.GetX()+o.GetWidth() <= r.GetX()+r.GetWidth() {
			continue
		}
		keep = append(keep, old)
		keepSeqs = append(keepSeqs, p.seqs[i])
		p.bytes += len(old.GetImage().GetData())
	}
	p.tiles = append(keep, t)
	p.seqs = append(keepSeqs, seq)
	p.bytes += len(t.GetImage().GetData())
}
