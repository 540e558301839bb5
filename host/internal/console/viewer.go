package console

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"glovebox.dev/host/internal/broker"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
)

// WebSocket tuning.
const (
	// maxClientMessage bounds one message from the page: input events and pasted text (the agent's type
	// bound is 64 KiB of UTF-8; a little more for the JSON around it).
	maxClientMessage = 80 << 10
	// stateEvery is how often the panels' state is refreshed (sent only when it changed).
	stateEvery = 500 * time.Millisecond
	// writeTimeout bounds one write to the page; a viewer that cannot take a frame for this long is dropped.
	writeTimeout = 10 * time.Second
)

// viewer is one open console page.
type viewer struct {
	s     *Server
	g     *grant
	conn  *websocket.Conn
	ready chan struct{}

	mu   sync.Mutex
	pend pending
}

// wake tells the writer something is pending.
func (v *viewer) wake() {
	select {
	case v.ready <- struct{}{}:
	default:
	}
}

// serveWS upgrades the page's WebSocket: the cookie names the viewer, the Origin must be the console's own.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	g := s.viewerOf(r)
	if g == nil {
		http.Error(w, "no console session: open a viewer link", http.StatusUnauthorized)
		return
	}
	if !sameOrigin(r) {
		s.b.AuditConsole(r.Context(), g.guest, broker.RPCConsoleRefused, g.principal.Name,
			map[string]string{"link_id": g.linkID, "why": "websocket origin is not the console's"}, fmt.Errorf("cross-origin websocket: %w", errdefs.ErrPermissionDenied))
		s.log.Warn("console websocket refused", "why", "origin", "principal", g.principal.Name)
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
		return
	}
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	conn.SetReadLimit(maxClientMessage)
	v := &viewer{s: s, g: g, conn: conn, ready: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	h := s.join(v, g.principal, g.guest)
	defer s.leave(h, v)
	in := newInput(s, v)
	defer in.close()
	go func() {
		defer cancel()
		if err := v.write(ctx); err != nil && ctx.Err() == nil {
			s.log.Info("console viewer write ended", "guest", g.guest, "error", err)
		}
	}()
	for {
		_, msg, err := conn.Read(ctx)
		if err != nil {
			break
		}
		in.handle(ctx, msg)
	}
	conn.CloseNow()
}

// write sends frames, the cursor and the panels' state to the page until ctx ends.
func (v *viewer) write(ctx context.Context) error {
	tick := time.NewTicker(stateEvery)
	defer tick.Stop()
	var lastState []byte
	sendState := func() error {
		st, err := v.state()
		if err != nil {
			return err
		}
		if string(st) == string(lastState) {
			return nil
		}
		lastState = st
		return v.send(ctx, websocket.MessageText, st)
	}
	if err := sendState(); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			if err := sendState(); err != nil {
				return err
			}
			continue
		case <-v.ready:
		}
		if err := v.flush(ctx); err != nil {
			return err
		}
	}
}

// flush writes everything pending: a full frame first when one is owed, then the tiles newer than it, the
// cursor shape and position.
func (v *viewer) flush(ctx context.Context) error {
	v.mu.Lock()
	full := v.pend.needFull
	v.pend.needFull = false
	if full {
		v.pend.tiles, v.pend.seqs, v.pend.bytes = nil, nil, 0
	}
	v.mu.Unlock()
	var fullSeq uint64
	if full {
		resp, err := v.s.b.ConsoleCapture(ctx, v.g.principal, v.g.guest, liveOptions())
		if err != nil {
			// The guest may be away; the page shows the error and a later change brings a frame.
			v.mu.Lock()
			v.pend.needFull = true
			v.mu.Unlock()
			return v.sendJSON(ctx, map[string]any{"type": "error", "error": publicError(err)})
		}
		fullSeq = resp.GetFrameSeq()
		img := resp.GetImage()
		if err := v.sendImage(ctx, "full", img.GetRegion(), img, fullSeq, 0, 0); err != nil {
			return err
		}
	}
	v.mu.Lock()
	tiles, seqs := v.pend.tiles, v.pend.seqs
	v.pend.tiles, v.pend.seqs, v.pend.bytes = nil, nil, 0
	cursor, shape := v.pend.cursor, v.pend.shape
	v.pend.cursor, v.pend.shape = nil, nil
	v.mu.Unlock()
	for i, t := range tiles {
		if full && seqs[i] <= fullSeq {
			continue
		}
		if err := v.sendImage(ctx, "tile", t.GetRect(), t.GetImage(), seqs[i], 0, 0); err != nil {
			return err
		}
	}
	if shape != nil {
		if err := v.sendImage(ctx, "cursor", nil, shape.GetImage(), 0, shape.GetHotX(), shape.GetHotY()); err != nil {
			return err
		}
	}
	if cursor != nil {
		return v.sendJSON(ctx, map[string]any{"type": "cursor", "x": cursor.GetX(), "y": cursor.GetY()})
	}
	return nil
}

// frameHeader describes an image message: kind (full, tile, cursor), where it goes, its format.
type frameHeader struct {
	Kind   string `json:"k"`
	X      int32  `json:"x"`
	Y      int32  `json:"y"`
	W      int32  `json:"w"`
	H      int32  `json:"h"`
	Seq    uint64 `json:"seq,omitempty"`
	Format string `json:"fmt"`
	HotX   int32  `json:"hx,omitempty"`
	HotY   int32  `json:"hy,omitempty"`
}

// sendImage writes one binary message: a 4-byte big-endian header length, the JSON header, the image bytes.
func (v *viewer) sendImage(ctx context.Context, kind string, at *agentv1.Rect, img *agentv1.Image, seq uint64, hx, hy int32) error {
	h := frameHeader{Kind: kind, X: at.GetX(), Y: at.GetY(), W: img.GetWidth(), H: img.GetHeight(), Seq: seq, Format: "jpeg", HotX: hx, HotY: hy}
	if img.GetFormat() == agentv1.ImageFormat_IMAGE_FORMAT_PNG {
		h.Format = "png"
	}
	hb, err := json.Marshal(h)
	if err != nil {
		return err
	}
	msg := make([]byte, 4, 4+len(hb)+len(img.GetData()))
	binary.BigEndian.PutUint32(msg, uint32(len(hb)))
	msg = append(append(msg, hb...), img.GetData()...)
	return v.send(ctx, websocket.MessageBinary, msg)
}

func (v *viewer) sendJSON(ctx context.Context, m any) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return v.send(ctx, websocket.MessageText, b)
}

func (v *viewer) send(ctx context.Context, typ websocket.MessageType, b []byte) error {
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	return v.conn.Write(ctx, typ, b)
}

// publicError is an error as the page shows it: the class and our own message (guest text never reaches an
// error message of ours, so the message is safe to show).
func publicError(err error) string { return err.Error() }

// stateView is the panels' state as the page receives it.
type stateView struct {
	Type      string        `json:"type"`
	Principal string        `json:"principal"`
	Mode      string        `json:"mode"`
	Guest     string        `json:"guest"`
	Guests    []string      `json:"guests"`
	State     string        `json:"state"`
	Control   controlView   `json:"control"`
	Sessions  []sessionView `json:"sessions"`
	Help      []helpView    `json:"help"`
	Audit     []auditView   `json:"audit"`
	AuditNote string        `json:"audit_note,omitempty"`
}

type controlView struct {
	Held       bool   `json:"held"`
	Holder     string `json:"holder,omitempty"`
	Mine       bool   `json:"mine"`
	Reason     string `json:"reason,omitempty"`
	Generation uint64 `json:"generation"`
	Since      string `json:"since,omitempty"`
}

type sessionView struct {
	ID         string   `json:"id"`
	Principal  string   `json:"principal"`
	Label      string   `json:"label,omitempty"`
	Mode       string   `json:"mode"`
	AgeSeconds int64    `json:"age_s"`
	LastAction string   `json:"last_action,omitempty"`
	LastAt     string   `json:"last_at,omitempty"`
	Held       []string `json:"held,omitempty"`
}

type helpView struct {
	ID           string `json:"id"`
	SessionID    string `json:"session_id"`
	Principal    string `json:"principal"`
	Reason       string `json:"reason"`
	Instructions string `json:"instructions,omitempty"`
	State        string `json:"state"`
	Created      string `json:"created"`
	TakenBy      string `json:"taken_by,omitempty"`
}

type auditView struct {
	Seq       uint64 `json:"seq"`
	Time      string `json:"time"`
	Rpc       string `json:"rpc"`
	Phase     string `json:"phase"`
	Principal string `json:"principal"`
	Session   string `json:"session,omitempty"`
	Code      string `json:"code,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Source    string `json:"source,omitempty"`
}

// auditTailLen is how many audit records the panel shows.
const auditTailLen = 15

// state renders the panels' state for this viewer.
func (v *viewer) state() ([]byte, error) {
	gv, err := v.s.b.ConsoleView(v.g.principal, v.g.guest)
	if err != nil {
		return nil, err
	}
	now := v.s.now()
	out := stateView{Type: "state", Principal: v.g.principal.Name, Mode: v.g.mode.String(), Guest: v.g.guest,
		Guests: v.s.b.ConsoleGuests(v.g.principal), State: gv.Guest.GetState().String()}
	c := gv.Control
	out.Control = controlView{Held: c.GetHeld(), Generation: c.GetGeneration()}
	if l := c.GetLease(); l != nil {
		out.Control.Holder, out.Control.Reason = l.GetHolder(), l.GetReason()
		out.Control.Mine = l.GetHolder() == v.g.principal.Name
		out.Control.Since = l.GetAcquiredAt().AsTime().Format(time.RFC3339)
	}
	for _, sv := range gv.Sessions {
		s := sv.Session
		row := sessionView{ID: s.GetId(), Principal: s.GetPrincipal(), Label: s.GetLabel(), Mode: s.GetMode().String(),
			AgeSeconds: int64(now.Sub(s.GetCreatedAt().AsTime()) / time.Second), LastAction: sv.LastAction}
		if !sv.LastAt.IsZero() {
			row.LastAt = sv.LastAt.Format(time.RFC3339)
		}
		for _, h := range sv.Held {
			if h.GetKey() != "" {
				row.Held = append(row.Held, "key "+h.GetKey())
			} else {
				row.Held = append(row.Held, "button "+h.GetButton().String())
			}
		}
		out.Sessions = append(out.Sessions, row)
	}
	for _, h := range gv.Help {
		out.Help = append(out.Help, helpView{ID: h.GetId(), SessionID: h.GetSessionId(), Principal: h.GetPrincipal(),
			Reason: h.GetReason(), Instructions: h.GetInstructions(), State: h.GetState().String(),
			Created: h.GetCreatedAt().AsTime().Format(time.RFC3339), TakenBy: h.GetTakenBy()})
	}
	switch p := v.g.principal; {
	case v.s.audit == nil:
		out.AuditNote = "no audit log"
	case !p.Admin && !p.Audit:
		out.AuditNote = "this principal may not read the audit log"
	default:
		recs, err := v.s.audit(v.g.guest, auditTailLen)
		if err != nil {
			out.AuditNote = "audit log unreadable: " + err.Error()
		}
		for _, r := range recs {
			row := auditView{Seq: r.GetSeq(), Time: r.GetTime().AsTime().Format(time.RFC3339), Rpc: r.GetRpc(),
				Phase: r.GetPhase().String(), Principal: r.GetPrincipal(), Session: r.GetSessionId(), Code: r.GetCode(), Reason: r.GetReason()}
			if r.GetSource() != brokerv1.AuditSource_AUDIT_SOURCE_UNSPECIFIED {
				row.Source = r.GetSource().String()
			}
			out.Audit = append(out.Audit, row)
		}
	}
	return json.Marshal(out)
}
