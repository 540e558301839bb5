package console

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"glovebox.dev/host/internal/broker"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/keysym"
)

// clientMessage is one message from the page. t says which; the other fields belong to some kinds only.
//
//	take {help_id}          take control (CONTROL mode), optionally for a help request
//	release {note}          give control back, with a note for the help requests answered
//	move {x, y}             pointer motion (coalesced by the page to the frame rate)
//	down / up {x, y, b}     a button (0 left, 1 middle, 2 right, 3 back, 4 forward: MouseEvent.button)
//	wheel {x, y, dx, dy}    wheel clicks (the page turns pixels into clicks)
//	key {key, code, mods}   a non-text key or a shortcut (KeyboardEvent.key/.code, modifiers held)
//	text {text}             a burst of typed, composed (IME) or pasted text
//	full                    send a full frame (the page lost its canvas)
type clientMessage struct {
	T      string   `json:"t"`
	HelpID string   `json:"help_id"`
	Note   string   `json:"note"`
	X      int32    `json:"x"`
	Y      int32    `json:"y"`
	B      int      `json:"b"`
	DX     int32    `json:"dx"`
	DY     int32    `json:"dy"`
	Key    string   `json:"key"`
	Code   string   `json:"code"`
	Mods   []string `json:"mods"`
	Text   string   `json:"text"`
}

// input turns one viewer's messages into control calls and the person's input.
type input struct {
	s *Server
	v *viewer
	// sent is set once the person's input reached the guest, so closing releases what they hold.
	sent bool
}

func newInput(s *Server, v *viewer) *input { return &input{s: s, v: v} }

// close releases every key and button the person holds (their page went away); the lease stays.
func (in *input) close() {
	if in.sent {
		in.s.b.HumanRelease(context.Background(), in.v.g.principal, in.v.g.guest)
	}
}

// handle acts on one message and reports a failure to the page.
func (in *input) handle(ctx context.Context, raw []byte) {
	var m clientMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		in.reply(ctx, m.T, &errdefs.BadRequest{Violations: []errdefs.Violation{{Field: "message", Description: "not a JSON console message"}}})
		return
	}
	if m.T == "full" {
		in.v.mu.Lock()
		in.v.pend.needFull = true
		in.v.mu.Unlock()
		in.v.wake()
		return
	}
	g := in.v.g
	if g.mode != brokerv1.ViewerMode_VIEWER_MODE_CONTROL {
		err := fmt.Errorf("this console was opened with a VIEW link: %w", errdefs.ErrPermissionDenied)
		in.s.b.AuditConsole(ctx, g.guest, broker.RPCConsoleRefused, g.principal.Name,
			map[string]string{"link_id": g.linkID, "message": safeKind(m.T), "why": "input on a VIEW console"}, err)
		in.reply(ctx, m.T, err)
		return
	}
	var err error
	switch m.T {
	case "take":
		_, err = in.s.b.ConsoleAcquire(ctx, g.principal, &brokerv1.AcquireControlRequest{Guest: g.guest, Reason: "console", HelpId: m.HelpID})
	case "release":
		_, err = in.s.b.ConsoleRelease(ctx, g.principal, &brokerv1.ReleaseControlRequest{Guest: g.guest, Note: m.Note})
	default:
		var req *agentv1.ActRequest
		if req, err = actionOf(m); err == nil {
			in.sent = true
			_, err = in.s.b.HumanAct(ctx, g.principal, g.guest, req)
		}
	}
	if err != nil {
		in.reply(ctx, m.T, err)
	}
}

// reply tells the page a message failed.
func (in *input) reply(ctx context.Context, kind string, err error) {
	in.v.sendJSON(ctx, map[string]any{"type": "error", "for": safeKind(kind), "error": publicError(err)})
}

// safeKind is a message kind fit for a log or audit field: one of ours, else "unknown".
func safeKind(t string) string {
	switch t {
	case "take", "release", "move", "down", "up", "wheel", "key", "text", "full":
		return t
	}
	return "unknown"
}

// buttons maps MouseEvent.button to the agent's buttons.
var buttons = map[int]agentv1.MouseButton{
	0: agentv1.MouseButton_MOUSE_BUTTON_LEFT, 1: agentv1.MouseButton_MOUSE_BUTTON_MIDDLE, 2: agentv1.MouseButton_MOUSE_BUTTON_RIGHT,
	3: agentv1.MouseButton_MOUSE_BUTTON_BACK, 4: agentv1.MouseButton_MOUSE_BUTTON_FORWARD,
}

// actionOf turns an input message into the agent request that performs it.
func actionOf(m clientMessage) (*agentv1.ActRequest, error) {
	at := &agentv1.Point{X: m.X, Y: m.Y}
	bad := func(field, why string) error {
		return &errdefs.BadRequest{Violations: []errdefs.Violation{{Field: field, Description: why}}}
	}
	switch m.T {
	case "move":
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{To: at}}}, nil
	case "down", "up":
		b, ok := buttons[m.B]
		if !ok {
			return nil, bad("b", fmt.Sprintf("must be a MouseEvent.button 0..4, got %d", m.B))
		}
		if m.T == "down" {
			return &agentv1.ActRequest{Action: &agentv1.ActRequest_MouseDown{MouseDown: &agentv1.MouseDown{At: at, Button: b}}}, nil
		}
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_MouseUp{MouseUp: &agentv1.MouseUp{At: at, Button: b}}}, nil
	case "wheel":
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_Scroll{Scroll: &agentv1.Scroll{At: at, Dx: m.DX, Dy: m.DY}}}, nil
	case "text":
		if !utf8.ValidString(m.Text) {
			return nil, bad("text", "must be UTF-8")
		}
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_Type{Type: &agentv1.TypeText{Text: m.Text}}}, nil
	case "key":
		combo, err := comboOf(m)
		if err != nil {
			return nil, err
		}
		return &agentv1.ActRequest{Action: &agentv1.ActRequest_Key{Key: &agentv1.Key{Combo: combo}}}, nil
	}
	return nil, bad("t", "unknown console message kind")
}

// domKeys maps KeyboardEvent.key names of keys that type no text to X keysym names.
var domKeys = map[string]string{
	"Enter": "Return", "Backspace": "BackSpace", "Tab": "Tab", "Escape": "Escape", "Delete": "Delete",
	"Insert": "Insert", "Home": "Home", "End": "End", "PageUp": "Prior", "PageDown": "Next",
	"ArrowLeft": "Left", "ArrowRight": "Right", "ArrowUp": "Up", "ArrowDown": "Down", "ContextMenu": "Menu",
	"PrintScreen": "Print", "Pause": "Pause", "ScrollLock": "Scroll_Lock", "NumLock": "Num_Lock", "CapsLock": "Caps_Lock",
	" ": "space",
}

// modNames maps the page's modifier names to X combo names.
var modNames = map[string]string{"ctrl": "ctrl", "alt": "alt", "shift": "shift", "meta": "super", "altgr": "altgr"}

// comboOf builds the X key combo of a key message: the modifiers held, then the key. A printable key comes
// here only with ctrl, alt or meta held (a shortcut); it is named by its physical key (KeyboardEvent.code) so
// that ctrl+shift+a is not ctrl+shift+A, falling back to the character.
func comboOf(m clientMessage) (string, error) {
	bad := func(field, why string) error {
		return &errdefs.BadRequest{Violations: []errdefs.Violation{{Field: field, Description: why}}}
	}
	var parts []string
	for _, mod := range m.Mods {
		n, ok := modNames[mod]
		if !ok {
			return "", bad("mods", "modifiers are ctrl, alt, shift, meta, altgr")
		}
		parts = append(parts, n)
	}
	name, ok := domKeys[m.Key]
	switch {
	case ok:
	case strings.HasPrefix(m.Key, "F") && len(m.Key) <= 3 && m.Key != "F":
		name = m.Key
	case strings.HasPrefix(m.Code, "Key") && len(m.Code) == 4:
		name = strings.ToLower(m.Code[3:])
	case strings.HasPrefix(m.Code, "Digit") && len(m.Code) == 6:
		name = m.Code[5:]
	case utf8.RuneCountInString(m.Key) == 1:
		name = m.Key
	default:
		return "", bad("key", "not a key the console sends")
	}
	if _, ok := keysym.Lookup(name); !ok {
		return "", bad("key", "no X keysym for this key")
	}
	parts = append(parts, name)
	if name == "+" {
		parts[len(parts)-1] = "plus"
	}
	return strings.Join(parts, "+"), nil
}
