// Package policy holds the broker's policy decisions that depend only on the request: confirmation gates
// (clicks with confirmable buttons, text that looks like a secret) and the per-session rate limit. The rules
// are fixed at broker start from the config.
package policy

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// Secret heuristics. A false positive costs the caller one resend with confirm; a false negative lets a
// credential reach the guest unconfirmed, so the rules lean towards asking.
const (
	// minTokenLen is the shortest run of token characters judged by entropy alone.
	minTokenLen = 20
	// tokenEntropy is the Shannon entropy (bits per character) above which such a run looks random:
	// English words stay below ~3.5, base64/hex keys of 20+ characters are above ~4.
	tokenEntropy = 4.0
	// longTokenLen and longTokenEntropy catch long hex strings (at most 4 bits per character).
	longTokenLen     = 32
	longTokenEntropy = 3.4
)

var secretPatterns = []struct {
	name string
	re   *regexp.Regexp
}{
	{"aws access key", regexp.MustCompile(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{"private key block", regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----`)},
	{"jwt", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}`)},
	{"password assignment", regexp.MustCompile(`(?i)\b(password|passwd|pwd|passphrase|secret|api[_-]?key|access[_-]?token|token)\s*[=:]\s*\S{4,}`)},
	{"github token", regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{30,}\b`)},
}

// LooksSecret reports whether text looks like a credential, and which rule matched. It never returns the
// text itself.
func LooksSecret(text string) (bool, string) {
	for _, p := range secretPatterns {
		if p.re.MatchString(text) {
			return true, p.name
		}
	}
	for _, tok := range strings.FieldsFunc(text, func(r rune) bool { return !isTokenChar(r) }) {
		if len(tok) < minTokenLen || !hasDigitAndLetter(tok) {
			continue
		}
		e := entropy(tok)
		if e >= tokenEntropy || len(tok) >= longTokenLen && e >= longTokenEntropy {
			return true, "high-entropy token"
		}
	}
	return false, ""
}

func isTokenChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("+/=_-", r)
}

func hasDigitAndLetter(s string) bool {
	d, l := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		d = d || c >= '0' && c <= '9'
		l = l || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	return d && l
}

func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n, e := float64(len(s)), 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			e -= p * math.Log2(p)
		}
	}
	return e
}

// Gates are the confirmation gates.
type Gates struct {
	// Buttons are the mouse buttons whose clicks (desktop and page), presses and drags need confirm.
	Buttons map[agentv1.MouseButton]bool
	// Secrets makes text that looks like a secret need confirm.
	Secrets bool
	// Navigation says where navigate and new_tab may go (a denial, not a confirmation).
	Navigation Navigation
}

// buttonNames maps config names to buttons.
var buttonNames = map[string]agentv1.MouseButton{
	"left": agentv1.MouseButton_MOUSE_BUTTON_LEFT, "middle": agentv1.MouseButton_MOUSE_BUTTON_MIDDLE,
	"right": agentv1.MouseButton_MOUSE_BUTTON_RIGHT, "back": agentv1.MouseButton_MOUSE_BUTTON_BACK,
	"forward": agentv1.MouseButton_MOUSE_BUTTON_FORWARD,
}

// NewGates builds the gates from config names (unknown names are ignored; config validation rejects them).
func NewGates(buttons []string, secrets bool) Gates {
	g := Gates{Buttons: map[agentv1.MouseButton]bool{}, Secrets: secrets}
	for _, b := range buttons {
		if mb, ok := buttonNames[b]; ok {
			g.Buttons[mb] = true
		}
	}
	return g
}

// CheckAct returns an error wrapping errdefs.ErrConfirmationRequired when r needs confirm and lacks it.
func (g Gates) CheckAct(r *agentv1.ActRequest) error {
	if g.Navigation.Schemes != nil {
		if err := g.Navigation.CheckAct(r); err != nil {
			return err
		}
	}
	if r.GetConfirm() {
		return nil
	}
	var button agentv1.MouseButton
	switch a := r.GetAction().(type) {
	case *agentv1.ActRequest_Click:
		button = pressedButton(a.Click.GetButton())
	case *agentv1.ActRequest_MouseDown:
		button = pressedButton(a.MouseDown.GetButton())
	case *agentv1.ActRequest_Drag:
		button = pressedButton(a.Drag.GetButton())
	case *agentv1.ActRequest_PageClick:
		button = pressedButton(a.PageClick.GetButton())
	case *agentv1.ActRequest_Type:
		return g.CheckText("request.action.type.text", a.Type.GetText())
	case *agentv1.ActRequest_PageType:
		return g.CheckText("request.action.page_type.text", a.PageType.GetText())
	case *agentv1.ActRequest_Fill:
		return g.CheckText("request.action.fill.text", a.Fill.GetText())
	case *agentv1.ActRequest_SetValue:
		return g.CheckText("request.action.set_value.value", a.SetValue.GetValue())
	case *agentv1.ActRequest_ElementSetValue:
		return g.CheckText("request.action.element_set_value.text", a.ElementSetValue.GetText())
	case *agentv1.ActRequest_Paste:
		if err := g.CheckText("request.action.paste.text", a.Paste.GetText()); err != nil {
			return err
		}
		return g.CheckText("request.action.paste.html", a.Paste.GetHtml())
	}
	if g.Buttons[button] {
		return fmt.Errorf("%s button needs confirm: %w", strings.ToLower(strings.TrimPrefix(button.String(), "MOUSE_BUTTON_")), errdefs.ErrConfirmationRequired)
	}
	return nil
}

// pressedButton is the button the agent presses for b: LEFT when unspecified or unknown (as the agent maps
// them), so a click that leaves its button out is gated like the left click it is.
func pressedButton(b agentv1.MouseButton) agentv1.MouseButton {
	switch b {
	case agentv1.MouseButton_MOUSE_BUTTON_MIDDLE, agentv1.MouseButton_MOUSE_BUTTON_RIGHT,
		agentv1.MouseButton_MOUSE_BUTTON_BACK, agentv1.MouseButton_MOUSE_BUTTON_FORWARD:
		return b
	}
	return agentv1.MouseButton_MOUSE_BUTTON_LEFT
}

// CheckText returns an error wrapping errdefs.ErrConfirmationRequired when text looks like a secret. The
// error names the field and the rule, never the text.
func (g Gates) CheckText(field, text string) error {
	if !g.Secrets {
		return nil
	}
	if ok, rule := LooksSecret(text); ok {
		return fmt.Errorf("%s looks like a secret (%s); resend with confirm: %w", field, rule, errdefs.ErrConfirmationRequired)
	}
	return nil
}

// Bucket is a token bucket: Rate tokens per second up to Burst. A Bucket with Rate < 0 never refuses.
type Bucket struct {
	mu     sync.Mutex
	rate   float64
	burst  float64
	tokens float64
	last   time.Time
}

// NewBucket returns a full bucket.
func NewBucket(rate float64, burst int) *Bucket {
	return &Bucket{rate: rate, burst: float64(burst), tokens: float64(burst)}
}

// Take takes one token at now, or returns an error wrapping errdefs.ErrResourceExhausted saying when the
// next one is due.
func (b *Bucket) Take(now time.Time) error { return b.TakeN(now, 1) }

// TakeN takes n tokens at now (a batch of n actions), all or none, as Take.
func (b *Bucket) TakeN(now time.Time, n int) error {
	need := float64(max(n, 1))
	if b.rate < 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.last.IsZero() {
		b.tokens = math.Min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	}
	b.last = now
	if b.tokens >= need {
		b.tokens -= need
		return nil
	}
	wait := time.Duration((need - b.tokens) / b.rate * float64(time.Second))
	return fmt.Errorf("session rate limit %.4g/s (burst %.0f) reached, retry in %s: %w", b.rate, b.burst, wait.Round(time.Millisecond), errdefs.ErrResourceExhausted)
}
