package console

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"sync"
	"time"

	"glovebox.dev/host/internal/config"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// Link and viewer bounds (the ConsoleService contract).
const (
	// MaxLinkTTL bounds how long a minted link may wait to be opened.
	MaxLinkTTL = time.Hour
	// DefaultLinkTTL is a link's life when the request names none.
	DefaultLinkTTL = 10 * time.Minute
	// ViewerTTL is how long the cookie a link was exchanged for stays valid: a working day of supervision.
	ViewerTTL = 8 * time.Hour
	// maxLinks bounds the unopened links kept (expired ones are dropped first); minting past it drops the
	// oldest, so a principal minting in a loop costs memory it cannot grow.
	maxLinks = 4096
	// maxViewers bounds the cookie sessions kept.
	maxViewers = 4096
)

// grant is what a link or cookie allows: a principal, one guest, a mode.
type grant struct {
	principal *config.Principal
	guest     string
	mode      brokerv1.ViewerMode
	linkID    string
	expires   time.Time
}

// secrets keeps links and cookie sessions by the SHA-256 of their token, never the token itself, so a
// memory dump or a debug print of the map reveals nothing that opens the console.
type secrets struct {
	mu      sync.Mutex
	links   map[string]*grant
	viewers map[string]*grant
	// spent keeps used links until they would have expired, so a second use is refused and audited under
	// the link's id rather than being an unknown token.
	spent map[string]*grant
}

func newSecrets() *secrets {
	return &secrets{links: map[string]*grant{}, viewers: map[string]*grant{}, spent: map[string]*grant{}}
}

// newToken returns 32 random bytes, URL-safe base64.
func newToken() string {
	var b [32]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// newLinkID returns the id that names a link in the audit log.
func newLinkID() string {
	var b [8]byte
	rand.Read(b[:])
	return "l-" + hex.EncodeToString(b[:])
}

func tokenKey(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// mint stores a link grant and returns its one-time token.
func (s *secrets) mint(g *grant, now time.Time) string {
	tok := newToken()
	s.mu.Lock()
	defer s.mu.Unlock()
	prune(s.links, now, maxLinks-1)
	s.links[tokenKey(tok)] = g
	return tok
}

// redeemResult says why a link was not exchanged.
type redeemResult int

const (
	redeemed redeemResult = iota
	unknownLink
	expiredLink
	reusedLink
)

// redeem exchanges a link token for a cookie token: the link is spent afterwards, whatever happens next. It
// returns the grant (nil for an unknown token) and why it was refused, if it was.
func (s *secrets) redeem(token string, now time.Time) (cookie string, g *grant, res redeemResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := tokenKey(token)
	if g := s.spent[k]; g != nil {
		return "", g, reusedLink
	}
	g = s.links[k]
	if g == nil {
		return "", nil, unknownLink
	}
	delete(s.links, k)
	prune(s.spent, now, maxLinks-1)
	if !now.Before(g.expires) {
		return "", g, expiredLink
	}
	s.spent[k] = g
	v := *g
	v.expires = now.Add(ViewerTTL)
	prune(s.viewers, now, maxViewers-1)
	cookie = newToken()
	s.viewers[tokenKey(cookie)] = &v
	return cookie, &v, redeemed
}

// viewer returns the grant of a cookie token, or nil.
func (s *secrets) viewer(cookie string, now time.Time) *grant {
	if cookie == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := tokenKey(cookie)
	g := s.viewers[k]
	if g != nil && !now.Before(g.expires) {
		delete(s.viewers, k)
		return nil
	}
	return g
}

// prune drops expired grants, then the ones expiring soonest, until at most keep remain.
func prune(m map[string]*grant, now time.Time, keep int) {
	for k, g := range m {
		if !now.Before(g.expires) {
			delete(m, k)
		}
	}
	for len(m) > keep {
		var oldest string
		for k, g := range m {
			if oldest == "" || g.expires.Before(m[oldest].expires) {
				oldest = k
			}
		}
		delete(m, oldest)
	}
}
