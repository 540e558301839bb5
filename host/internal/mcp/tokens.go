package mcp

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"glovebox.dev/host/internal/config"
	"glovebox.dev/shared/errdefs"
)

// Token bounds (McpService.CreateMcpToken).
const (
	DefaultTokenTTL = time.Hour
	MinTokenTTL     = time.Minute
	MaxTokenTTL     = 24 * time.Hour
	// tokenPrefix marks Glovebox MCP tokens so a leaked one is recognisable (and secret scanners can match it).
	tokenPrefix = "gbm_"
)

// Grant is what a token allows: MCP sessions of one principal on one guest until it expires.
type Grant struct {
	Principal *config.Principal
	Guest     string
	Label     string
	Expires   time.Time
	// ID names the token in logs (a prefix of its hash), never the token itself.
	ID string
}

// Tokens are the MCP endpoint's bearer tokens. Only their SHA-256 is kept, in memory: a broker restart revokes
// every token.
type Tokens struct {
	mu     sync.Mutex
	grants map[[sha256.Size]byte]*Grant
	now    func() time.Time
}

// NewTokens returns an empty token table.
func NewTokens() *Tokens {
	return &Tokens{grants: map[[sha256.Size]byte]*Grant{}, now: time.Now}
}

// NewToken makes a token and its id (for logs and audit) without granting anything yet; Grant makes it valid.
func NewToken() (token, id string) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // crypto/rand does not fail on Linux
	}
	tok := tokenPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	h := sha256.Sum256([]byte(tok))
	return tok, hex.EncodeToString(h[:4])
}

// Grant makes tok (from NewToken) valid for p on guest for ttl.
func (t *Tokens) Grant(tok string, p *config.Principal, guest, label string, ttl time.Duration) *Grant {
	h := sha256.Sum256([]byte(tok))
	g := &Grant{Principal: p, Guest: guest, Label: label, Expires: t.now().Add(ttl), ID: hex.EncodeToString(h[:4])}
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	for k, old := range t.grants {
		if !now.Before(old.Expires) {
			delete(t.grants, k)
		}
	}
	t.grants[h] = g
	return g
}

// Verify returns the grant of a token that exists and has not expired.
func (t *Tokens) Verify(tok string) (*Grant, error) {
	if !strings.HasPrefix(tok, tokenPrefix) {
		return nil, fmt.Errorf("not a glovebox mcp token: %w", errdefs.ErrPermissionDenied)
	}
	h := sha256.Sum256([]byte(tok))
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, g := range t.grants {
		if subtle.ConstantTimeCompare(k[:], h[:]) == 1 {
			if !t.now().Before(g.Expires) {
				delete(t.grants, k)
				return nil, fmt.Errorf("token expired: %w", errdefs.ErrPermissionDenied)
			}
			return g, nil
		}
	}
	return nil, fmt.Errorf("unknown token: %w", errdefs.ErrPermissionDenied)
}
